// Tensor cores on hardware: half and bfloat16 matmuls whose kernels run on the device's matrix
// instruction compute what float32 on the host computes from the same inputs. Needs a device with
// tensor cores (--device=CUDA, --device=HIP); tools/gpu_check.sh runs it on every GPU it finds and
// the suite skips, saying so, on a device without them.
#include <cmath>
#include <vector>

#include "compiler/codegen/codegen.h"
#include "compiler/schedule/schedule.h"
#include "compiler/target.h"
#include "frontend/tg.h"
#include "gtest/gtest.h"
#include "runtime/device_registry.h"

namespace tg::compiler {
namespace {

runtime::Device& SuiteDevice() { return *runtime::DeviceRegistry::Global().GetDevice(Tensor::rand({1}).device()).value(); }

// out[b][i][j] = sum_k x[b][i][k] * w[b][k][j], in double from the values the device holds.
std::vector<double> HostMatmul(const std::vector<float>& x, const std::vector<float>& w, int64_t batch, int64_t m,
                               int64_t k, int64_t n) {
  std::vector<double> out(batch * m * n);
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double s = 0;
        for (int64_t q = 0; q < k; ++q) s += double(x[(b * m + i) * k + q]) * w[(b * k + q) * n + j];
        out[(b * m + i) * n + j] = s;
      }
  return out;
}

// Whether the kernels of |t| call a matrix instruction on the suite's device.
bool OnMatrixUnits(const Tensor& t) {
  const Target& target = TargetOf(SuiteDevice());
  for (const ScheduleItem& item : CreateSchedule({t.uop()}, {t.device()}).items) {
    if (item.kind != ScheduleItem::Kind::kKernel) continue;
    std::string source = GenerateKernel(item.ast, target).source.source;
    for (const TensorCore& tc : target.tensor_cores)
      if (source.find("tg_" + tc.name + "(") != std::string::npos) return true;
  }
  return false;
}

class TensorCoreNumerics : public ::testing::TestWithParam<DType> {
 protected:
  void SetUp() override {
    const Target& target = TargetOf(SuiteDevice());
    bool takes = false;
    for (const TensorCore& tc : target.tensor_cores) takes = takes || tc.input == GetParam();
    if (!takes) GTEST_SKIP() << "device " << target.device << " (" << target.arch << ") has no tensor core for "
                             << GetParam().name();
  }

  void ExpectMatmul(int64_t batch, int64_t m, int64_t k, int64_t n) {
    Shape xs = batch == 1 ? Shape{m, k} : Shape{batch, m, k}, ws = batch == 1 ? Shape{k, n} : Shape{batch, k, n};
    Tensor x = Tensor::rand(xs).cast(GetParam()).realize(), w = Tensor::rand(ws).cast(GetParam()).realize();
    Tensor out = x.matmul(w).cast(dtypes::float32);
    std::vector<double> want = HostMatmul(x.cast(dtypes::float32).to_vector<float>(),
                                          w.cast(dtypes::float32).to_vector<float>(), batch, m, k, n);
    std::vector<float> got = out.to_vector<float>();
    ASSERT_EQ(got.size(), want.size());
    // The product is exact and the sum float32; the result is rounded to the input type once.
    double tolerance = GetParam() == dtypes::bfloat16 ? 1.0 / 128 : 1.0 / 1024;
    for (size_t i = 0; i < got.size(); ++i)
      ASSERT_NEAR(got[i], want[i], tolerance * std::max(1.0, std::abs(want[i]))) << m << "x" << k << "x" << n << " at " << i;
  }
};

TEST_P(TensorCoreNumerics, MatmulsOnTheMatrixInstructionMatchTheHost) {
  ExpectMatmul(1, 16, 16, 16);
  ExpectMatmul(1, 64, 96, 48);
  ExpectMatmul(3, 32, 64, 16);
  ExpectMatmul(1, 16, 512, 32);
  ExpectMatmul(1, 256, 256, 256);
}

TEST_P(TensorCoreNumerics, TheKernelsUseTheInstruction) {
  Tensor x = Tensor::rand({64, 64}).cast(GetParam()).realize();
  EXPECT_TRUE(OnMatrixUnits(x.matmul(x)));
}

INSTANTIATE_TEST_SUITE_P(Inputs, TensorCoreNumerics, ::testing::Values(dtypes::float16, dtypes::bfloat16),
                         [](const auto& info) { return info.param.name(); });

}  // namespace
}  // namespace tg::compiler
