// Vector memory on a GPU dialect: UPCAST copies that read or write consecutive elements at an
// aligned index become one 16-byte access (float4, int4, half8), the lanes computed one by one.
// Each case runs on the suite's device against the host (or the kernel without opts) and checks
// which accesses the source makes wide. Runs where a device's dialect has vector memory (OpenCL).
#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "compiler/codegen/codegen.h"
#include "compiler/codegen/vector_memory.h"
#include "compiler/schedule/schedule.h"
#include "compiler/target.h"
#include "frontend/tg.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/device_registry.h"

namespace tg::compiler {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

runtime::Device& SuiteDevice() { return *runtime::DeviceRegistry::Global().GetDevice(Tensor::rand({1}).device()).value(); }

// The source of the one kernel of |t|, with the heuristic's opts or |opts|.
std::string SourceOf(const Tensor& t, const std::vector<Opt>* opts = nullptr) {
  Schedule s = CreateSchedule({t.uop()}, {t.device()});
  EXPECT_EQ(s.items.size(), 1u);
  const Target& target = TargetOf(SuiteDevice());
  return (opts ? GenerateKernel(s.items.at(0).ast, target, *opts) : GenerateKernel(s.items.at(0).ast, target)).source.source;
}

std::vector<float> Iota(int n, float scale) {
  std::vector<float> v(n);
  for (int i = 0; i < n; ++i) v[i] = scale * i - 3;
  return v;
}

class VectorMemory : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!TargetOf(SuiteDevice()).vector_memory)
      GTEST_SKIP() << "device " << SuiteDevice().info().name << " has no vector memory in its dialect";
  }
};

TEST_F(VectorMemory, AnElementwiseKernelLoadsAndStoresFloat4) {
  Tensor a = Tensor::from_vector(Iota(4096, 0.5f), Shape{4096}), b = Tensor::from_vector(Iota(4096, -2.0f), Shape{4096});
  Tensor sum = a * 2 + b;
  std::string src = SourceOf(sum);
  EXPECT_THAT(src, HasSubstr("(*(__global float4*)(data0+")) << src;
  EXPECT_THAT(src, HasSubstr("(*(__global float4*)(data1+")) << src;
  std::vector<float> got = sum.to_vector<float>(), x = Iota(4096, 0.5f), y = Iota(4096, -2.0f);
  for (int i = 0; i < 4096; ++i) ASSERT_FLOAT_EQ(got[i], x[i] * 2 + y[i]) << i;
}

TEST_F(VectorMemory, IntsAreFourToAVector) {
  Tensor i = Tensor::arange(0, 2048, 1, dtypes::int32);
  Tensor doubled = i * 2 + 1;
  EXPECT_THAT(SourceOf(doubled), HasSubstr("int4"));
  std::vector<int32_t> got = doubled.to_vector<int32_t>();
  for (int k = 0; k < 2048; ++k) ASSERT_EQ(got[k], 2 * k + 1);
}

TEST_F(VectorMemory, HalvesAreEightToAVector) {
  if (!TargetOf(SuiteDevice()).Computes(dtypes::float16)) GTEST_SKIP() << "the device computes no float16";
  Tensor h = Tensor::from_vector(Iota(4096, 0.25f), Shape{4096}).cast(dtypes::float16).realize();
  Tensor scaled = h * 2;
  EXPECT_THAT(SourceOf(scaled), HasSubstr("half8"));
  std::vector<float> want = Iota(4096, 0.5f), halves = scaled.cast(dtypes::float32).to_vector<float>();
  for (int k = 0; k < 4096; ++k) ASSERT_NEAR(halves[k], want[k], 2e-3 * std::max(1.0f, std::abs(want[k]))) << k;
}

// Reading from element 1 on, no four neighbours start at a multiple of four: the loads stay scalar,
// the store (from element 0) is still one vector.
TEST_F(VectorMemory, AMisalignedReadStaysScalar) {
  Tensor a = Tensor::from_vector(Iota(4100, 1.0f), Shape{4100});
  Tensor shifted = a.shrink({{1, 4097}}) + 1;
  std::vector<Opt> upcast = {{OptOp::kUpcast, 0, 4}};
  std::string src = SourceOf(shifted, &upcast);
  EXPECT_THAT(src, Not(HasSubstr("(*(__global float4*)(data1+"))) << src;
  EXPECT_THAT(src, HasSubstr("(*(__global float4*)(data0+")) << src;
  std::vector<float> got = shifted.to_vector<float>(), x = Iota(4100, 1.0f);
  for (int i = 0; i < 4096; ++i) ASSERT_FLOAT_EQ(got[i], x[i + 1] + 1) << i;
}

TEST_F(VectorMemory, AMatmulTakesItsOutputsFourAtATime) {
  Tensor a = Tensor::rand({32, 64}).realize(), b = Tensor::rand({64, 256}).realize();
  Tensor c = a.matmul(b);
  EXPECT_THAT(SourceOf(c), HasSubstr("float4"));
  std::vector<float> got = c.to_vector<float>(), x = a.to_vector<float>(), y = b.to_vector<float>();
  for (int i = 0; i < 32; ++i)
    for (int j = 0; j < 256; ++j) {
      double s = 0;
      for (int q = 0; q < 64; ++q) s += double(x[i * 64 + q]) * y[q * 256 + j];
      ASSERT_NEAR(got[i * 256 + j], s, 1e-4 * std::max(1.0, std::abs(s))) << i << "," << j;
    }
}

TEST(KnownFactor, ReadsTheConstantsOfASumOfProducts) {
  UOpRef r = UOp::Range(8, 0), s = UOp::Range(16, 1);
  EXPECT_EQ(KnownFactor(r * 4 + s * 8), 4);
  EXPECT_EQ(KnownFactor(r * 4 + s * 8 + 2), 2);
  EXPECT_EQ(KnownFactor(r * 4 + s), 1);
  EXPECT_EQ(KnownFactor(UOp::Const(dtypes::index, int64_t{0})), 0);
  EXPECT_EQ(KnownFactor((r * 2) * 8), 16);
}

}  // namespace
}  // namespace tg::compiler
