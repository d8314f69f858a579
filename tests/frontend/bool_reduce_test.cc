// any()/all() over bool tensors made by comparisons, on both axes of several shapes, on their own
// and fused into a where(), against values computed on the host. The one-hot of an arange against a
// run of positions is the KV cache's "which rows were written" mask.
#include <cstdint>
#include <vector>

#include "frontend/tensor.h"
#include "gtest/gtest.h"

namespace tg {
namespace {

// Row-major [rows, cols] one-hot: rows[i] == cols[j].
std::vector<bool> HostOneHot(const std::vector<int32_t>& rows, const std::vector<int32_t>& cols) {
  std::vector<bool> out;
  for (int32_t r : rows)
    for (int32_t c : cols) out.push_back(r == c);
  return out;
}

// any (or all) of a row-major [n0, n1] mask over |axis|.
std::vector<bool> HostReduce(const std::vector<bool>& mask, int64_t n0, int64_t n1, int axis, bool any) {
  std::vector<bool> out;
  int64_t outer = axis == 0 ? n1 : n0, inner = axis == 0 ? n0 : n1;
  for (int64_t o = 0; o < outer; ++o) {
    bool acc = !any;
    for (int64_t i = 0; i < inner; ++i) {
      bool v = axis == 0 ? mask[i * n1 + o] : mask[o * n1 + i];
      acc = any ? (acc || v) : (acc && v);
    }
    out.push_back(acc);
  }
  return out;
}

std::vector<int32_t> Range(int32_t start, int32_t count) {
  std::vector<int32_t> out;
  for (int32_t i = 0; i < count; ++i) out.push_back(start + i);
  return out;
}

struct Case {
  int32_t context;        // arange length
  int32_t first, count;   // positions: count consecutive from first
};

class BoolReduce : public ::testing::TestWithParam<std::tuple<Case, int>> {
 protected:
  void SetUp() override {
    auto [c, axis] = GetParam();
    rows_ = Range(0, c.context);
    cols_ = Range(c.first, c.count);
    axis_ = axis;
    host_ = HostOneHot(rows_, cols_);
  }
  // The device's one-hot, built as the KV cache builds it.
  Tensor OneHot() const {
    Tensor all = Tensor::arange(0, n0(), 1, dtypes::int32);
    Tensor positions = Tensor::from_vector(cols_, Shape{n1()});
    return all.reshape({n0(), 1}) == positions.reshape({1, n1()});
  }
  int64_t n0() const { return static_cast<int64_t>(rows_.size()); }
  int64_t n1() const { return static_cast<int64_t>(cols_.size()); }

  std::vector<int32_t> rows_, cols_;
  int axis_ = 0;
  std::vector<bool> host_;
};

TEST_P(BoolReduce, AnyMatchesHost) {
  Tensor any = OneHot().any({axis_});
  EXPECT_EQ(any.dtype(), dtypes::bool_);
  EXPECT_EQ(any.to_vector<bool>(), HostReduce(host_, n0(), n1(), axis_, true));
}

TEST_P(BoolReduce, AllMatchesHost) {
  EXPECT_EQ(OneHot().all({axis_}).to_vector<bool>(), HostReduce(host_, n0(), n1(), axis_, false));
  // Comparisons that hold almost everywhere, so all() is not trivially false.
  Tensor differs = OneHot().logical_not();
  std::vector<bool> host_differs;
  for (bool b : host_) host_differs.push_back(!b);
  EXPECT_EQ(differs.all({axis_}).to_vector<bool>(), HostReduce(host_differs, n0(), n1(), axis_, false));
}

// The reduce feeds a where() in the same kernel, as the KV cache's written.where(new, old) does.
TEST_P(BoolReduce, AnyFusedIntoWhereMatchesHost) {
  std::vector<bool> mask = HostReduce(host_, n0(), n1(), axis_, true);
  int64_t n = static_cast<int64_t>(mask.size());
  std::vector<float> a, b, want;
  for (int64_t i = 0; i < n; ++i) {
    a.push_back(100.0f + static_cast<float>(i));
    b.push_back(-1.0f - static_cast<float>(i));
    want.push_back(mask[i] ? a.back() : b.back());
  }
  Tensor got = OneHot().any({axis_}).reshape({1, 1, n, 1})
                   .where(Tensor::from_vector(a, Shape{1, 1, n, 1}), Tensor::from_vector(b, Shape{1, 1, n, 1}));
  EXPECT_EQ(got.to_vector<float>(), want);
  // The same mask cast to int32 and to float.
  std::vector<int32_t> want_int(mask.begin(), mask.end());
  EXPECT_EQ(OneHot().any({axis_}).cast(dtypes::int32).to_vector<int32_t>(), want_int);
  std::vector<float> want_float(mask.begin(), mask.end());
  EXPECT_EQ(OneHot().any({axis_}).cast(dtypes::float32).to_vector<float>(), want_float);
}

// all() of a mask that holds almost everywhere, selecting in the same kernel.
TEST_P(BoolReduce, AllFusedIntoWhereMatchesHost) {
  std::vector<bool> differs;
  for (bool b : host_) differs.push_back(!b);
  std::vector<bool> mask = HostReduce(differs, n0(), n1(), axis_, false);
  int64_t n = static_cast<int64_t>(mask.size());
  std::vector<float> want;
  for (int64_t i = 0; i < n; ++i) want.push_back(mask[i] ? 7.0f + static_cast<float>(i) : -3.0f);
  Tensor a = Tensor::arange(0, n, 1, dtypes::float32) + 7.0f;
  EXPECT_EQ(OneHot().logical_not().all({axis_}).where(a, -3.0f).to_vector<float>(), want);
}

INSTANTIATE_TEST_SUITE_P(Shapes, BoolReduce,
                         ::testing::Combine(::testing::Values(Case{16, 3, 3}, Case{16, 0, 1}, Case{8, 6, 4},
                                                              Case{5, 0, 5}, Case{33, 10, 7}),
                                            ::testing::Values(0, 1)));

// Float comparisons reduce the same way as int32 ones.
TEST(BoolReduceFloat, AnyAllOfFloatComparison) {
  std::vector<float> x = {-1.5f, 0.5f, 2.0f, -0.25f, 3.0f, 0.0f, 1.0f, -2.0f, 0.75f, 4.0f, -3.0f, 0.1f};
  Tensor t = Tensor::from_vector(x, Shape{3, 4});
  std::vector<bool> host;
  for (float v : x) host.push_back(v > 0.3f);
  for (int axis : {0, 1}) {
    EXPECT_EQ((t > 0.3f).any({axis}).to_vector<bool>(), HostReduce(host, 3, 4, axis, true)) << axis;
    EXPECT_EQ((t > 0.3f).all({axis}).to_vector<bool>(), HostReduce(host, 3, 4, axis, false)) << axis;
  }
  EXPECT_EQ((t > 0.3f).any().item<bool>(), true);
  EXPECT_EQ((t > -5.0f).all().item<bool>(), true);
  EXPECT_EQ((t > 5.0f).any().item<bool>(), false);
}

// Elementwise maximum and < of two bool tensors, long enough to run as vectors: false < true.
TEST(BoolElementwise, MaximumAndLessOfComparisons) {
  std::vector<float> x, y;
  for (int i = 0; i < 32; ++i) {
    x.push_back(static_cast<float>(i % 5) - 2.0f);
    y.push_back(static_cast<float>(i % 7) - 3.0f);
  }
  Tensor a = Tensor::from_vector(x) > 0.0f, b = Tensor::from_vector(y) > 0.0f;
  std::vector<bool> want_max, want_lt;
  for (int i = 0; i < 32; ++i) {
    bool ha = x[i] > 0.0f, hb = y[i] > 0.0f;
    want_max.push_back(ha || hb);
    want_lt.push_back(!ha && hb);
  }
  EXPECT_EQ(a.maximum(b).to_vector<bool>(), want_max);
  EXPECT_EQ((a < b).to_vector<bool>(), want_lt);
  // One bool for every lane, from a broadcast element, joins the vector masks.
  Tensor one = Tensor::from_vector<float>({1.0f}, Shape{1}) > 0.0f;
  std::vector<float> want_where;
  for (int i = 0; i < 32; ++i) want_where.push_back(x[i] > 0.0f ? x[i] : -9.0f);
  Tensor xs = Tensor::from_vector(x);
  EXPECT_EQ((a & one.expand({32})).where(xs, -9.0f).to_vector<float>(), want_where);
  EXPECT_EQ(one.expand({32}).where(a, false).where(xs, -9.0f).to_vector<float>(), want_where);
}

}  // namespace
}  // namespace tg
