// One-hot reduces: sum_r (r == e ? x(r) : 0) becomes one indexed load. Each case checks the kernel
// that runs (no REDUCE left where e is free of r, one kept where it is not) and its values against
// host loops, out-of-range and negative selections (which pick nothing) included.
#include <limits>
#include <vector>

#include "compiler/codegen/codegen.h"
#include "compiler/schedule/schedule.h"
#include "compiler/target.h"
#include "frontend/tg.h"
#include "gtest/gtest.h"
#include "runtime/device_registry.h"

namespace tg::compiler {
namespace {

// How many REDUCEs the kernels that compute |t| keep once codegen has started on them.
int ReducesAfterCodegen(const Tensor& t) {
  Schedule s = CreateSchedule({t.uop()}, {t.device()});
  const runtime::Device* device = runtime::DeviceRegistry::Global().GetDevice(t.device()).value();
  int reduces = 0;
  for (const ScheduleItem& item : s.items) {
    if (item.kind != ScheduleItem::Kind::kKernel) continue;
    for (const UOpRef& u : StartKernel(item.ast, TargetOf(*device)).ast()->toposort())
      reduces += u->op() == Ops::kReduce;
  }
  return reduces;
}

std::vector<float> Table(int64_t rows, int64_t cols) {
  std::vector<float> v(rows * cols);
  for (size_t i = 0; i < v.size(); ++i) v[i] = 0.5f * static_cast<float>(i) - 3.0f;
  return v;
}

// The rows |ids| picks from a (rows, cols) table; zeros for ids outside [0, rows).
std::vector<float> HostRows(const std::vector<float>& table, int64_t rows, int64_t cols, const std::vector<int>& ids) {
  std::vector<float> out;
  for (int id : ids)
    for (int64_t c = 0; c < cols; ++c) out.push_back(id >= 0 && id < rows ? table[id * cols + c] : 0.0f);
  return out;
}

TEST(OneHotReduce, ComparedAgainstArangeIsAnIndexedLoad) {
  const int64_t rows = 10, cols = 4;
  std::vector<float> table = Table(rows, cols);
  std::vector<int> ids{3, 0, 9, -1, 12, 7};
  Tensor w = Tensor::from_vector(table, Shape{rows, cols});
  Tensor idx = Tensor::from_vector(std::vector<int32_t>(ids.begin(), ids.end()), Shape{6});
  Tensor hot = idx.reshape({6, 1, 1}).eq(Tensor::arange(0, rows).reshape({1, rows, 1}));
  Tensor picked = hot.where(w.reshape({1, rows, cols}), 0.0f).sum({1});
  EXPECT_EQ(ReducesAfterCodegen(picked), 0);
  EXPECT_EQ(picked.to_vector<float>(), HostRows(table, rows, cols, ids));
}

// The losses' form: values times the bool one-hot (a cast to float), summed over the classes. It reads
// as the gather it spells, so an inf in a class not picked stays out of the sum (as in PyTorch's
// gather-based losses) instead of making it NaN.
TEST(OneHotReduce, AProductWithTheOneHotCollapsesToo) {
  const int64_t rows = 6, cols = 5;
  std::vector<float> table = Table(rows, cols);
  table[1] = -std::numeric_limits<float>::infinity();  // row 0 picks column 4
  std::vector<int> ids{4, 0, 2, 7, -1, 1};
  Tensor x = Tensor::from_vector(table, Shape{rows, cols});
  Tensor y = Tensor::from_vector(std::vector<int32_t>(ids.begin(), ids.end()), Shape{rows, 1});
  Tensor picked = (x * y.eq(Tensor::arange(0, cols).reshape({1, cols}))).sum({1});
  EXPECT_EQ(ReducesAfterCodegen(picked), 0);
  std::vector<float> want;
  for (int64_t r = 0; r < rows; ++r) want.push_back(ids[r] >= 0 && ids[r] < cols ? table[r * cols + ids[r]] : 0.0f);
  EXPECT_EQ(picked.to_vector<float>(), want);
}

TEST(OneHotReduce, WideIndicesCollapseToo) {
  const int64_t rows = 8, cols = 3;
  std::vector<float> table = Table(rows, cols);
  std::vector<int> ids{7, -3, 2, 8};
  Tensor w = Tensor::from_vector(table, Shape{rows, cols});
  Tensor idx = Tensor::from_vector(std::vector<int64_t>(ids.begin(), ids.end()), Shape{4});
  Tensor picked = w.gather(0, idx.reshape({4, 1}).expand({4, cols}));  // gather refuses nothing: -3, 8 pick 0
  EXPECT_EQ(ReducesAfterCodegen(picked), 0);
  EXPECT_EQ(picked.to_vector<float>(), HostRows(table, rows, cols, ids));
}

TEST(OneHotReduce, TensorIndexOverTwoAxesLeavesNoLoop) {
  const int64_t a = 3, b = 5, c = 2;
  std::vector<float> table = Table(a * b, c);
  std::vector<int> i0{2, 0, 1, 2}, i1{4, 0, 3, 1};
  Tensor x = Tensor::from_vector(table, Shape{a, b, c});
  Tensor t0 = Tensor::from_vector(std::vector<int32_t>(i0.begin(), i0.end()), Shape{4});
  Tensor t1 = Tensor::from_vector(std::vector<int32_t>(i1.begin(), i1.end()), Shape{4});
  Tensor picked = x[{t0, t1}];
  EXPECT_EQ(ReducesAfterCodegen(picked), 0);
  std::vector<int> flat;
  for (size_t k = 0; k < i0.size(); ++k) flat.push_back(i0[k] * static_cast<int>(b) + i1[k]);
  EXPECT_EQ(picked.to_vector<float>(), HostRows(table, a * b, c, flat));
}

TEST(OneHotReduce, BoolTablesPickWithTheirMax) {
  Tensor bits = Tensor::from_vector(std::vector<uint8_t>{1, 0, 0, 1, 1}, Shape{5}).cast(dtypes::bool_);
  Tensor idx = Tensor::from_vector(std::vector<int32_t>{1, 4, 0, 2}, Shape{4});
  Tensor picked = bits[{idx}];
  EXPECT_EQ(ReducesAfterCodegen(picked), 0);
  EXPECT_EQ(picked.cast(dtypes::int32).to_vector<int32_t>(), (std::vector<int32_t>{0, 1, 1, 0}));
}

// sum_r (a[r] == r ? x[r] : 0): the selected index reads r itself, so every r can contribute and
// the loop must stay.
TEST(OneHotReduce, ASelectionThatDependsOnTheLoopKeepsIt) {
  Tensor a = Tensor::from_vector(std::vector<int32_t>{0, 2, 2, 3, 1, 5}, Shape{6});
  Tensor x = Tensor::from_vector(std::vector<float>{1, 2, 4, 8, 16, 32}, Shape{6});
  Tensor fixed_points = a.eq(Tensor::arange(0, 6)).where(x, 0.0f).sum();
  EXPECT_EQ(ReducesAfterCodegen(fixed_points), 1);
  EXPECT_EQ(fixed_points.item<float>(), 1.0f + 4.0f + 8.0f + 32.0f);
}

// A product reduce's 0 is not its identity: prod_r (r == e ? x : 0) is 0 unless the loop has one step.
TEST(OneHotReduce, AProductIsNotCollapsed) {
  Tensor idx = Tensor::from_vector(std::vector<int32_t>{1}, Shape{1, 1});
  Tensor x = Tensor::from_vector(std::vector<float>{2, 3, 5}, Shape{1, 3});
  Tensor p = idx.eq(Tensor::arange(0, 3).reshape({1, 3})).where(x, 0.0f).prod({1});
  EXPECT_EQ(ReducesAfterCodegen(p), 1);
  EXPECT_EQ(p.to_vector<float>(), std::vector<float>{0.0f});
}

}  // namespace
}  // namespace tg::compiler
