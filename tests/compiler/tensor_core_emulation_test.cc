// Tensor cores emulated on OpenCL (TC_EMULATE=<arch>, set per target in BUILD): float matmuls lowered
// onto that arch's instruction layout, the instruction computed through local memory lane by lane.
// What runs is everything of the tensor-core path but the instruction itself: the TC opt's splits,
// each lane's fragment coordinates, the accumulator folded into the instruction, UPCAST's copies and
// LOCAL's warps, each accumulator element stored where the layout puts it. Checked against the host.
#include <cmath>
#include <cstdlib>
#include <tuple>
#include <string>
#include <vector>

#include "compiler/codegen/codegen.h"
#include "compiler/codegen/heuristic.h"
#include "compiler/codegen/kernel.h"
#include "compiler/schedule/schedule.h"
#include "compiler/target.h"
#include "frontend/tg.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/buffer.h"
#include "runtime/device_registry.h"

namespace tg::compiler {
namespace {

runtime::Device& SuiteDevice() { return *runtime::DeviceRegistry::Global().GetDevice(Tensor::rand({1}).device()).value(); }

struct Matmul {
  Tensor x, w, bias, out;
  std::vector<double> want;
};

// x (batch, m, k) @ w (batch, k, n) (+ bias, relu), with the host's answer in double.
Matmul MakeMatmul(int64_t batch, int64_t m, int64_t k, int64_t n, bool epilogue) {
  Shape xs = batch == 1 ? Shape{m, k} : Shape{batch, m, k}, ws = batch == 1 ? Shape{k, n} : Shape{batch, k, n};
  Tensor x_t = Tensor::rand(xs).realize(), w_t = Tensor::rand(ws).realize(), bias = Tensor::rand({n}).realize();
  Tensor out = epilogue ? (x_t.matmul(w_t) + bias - 4).relu() : x_t.matmul(w_t);
  Matmul mm{x_t, w_t, bias, out, {}};
  std::vector<float> x = x_t.to_vector<float>(), w = w_t.to_vector<float>(), b = bias.to_vector<float>();
  for (int64_t bi = 0; bi < batch; ++bi)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double s = 0;
        for (int64_t q = 0; q < k; ++q) s += double(x[(bi * m + i) * k + q]) * w[(bi * k + q) * n + j];
        mm.want.push_back(epilogue ? std::max(0.0, s + b[j] - 4) : s);
      }
  return mm;
}

UOpRef OnlyKernelAst(const Tensor& t) {
  Schedule s = CreateSchedule({t.uop()}, {t.device()});
  EXPECT_EQ(s.items.size(), 1u);
  return s.items.at(0).ast;
}

// Runs |ast| with |opts| on the matmul's buffers (output first, then inputs in parameter order).
std::vector<float> RunWith(const UOpRef& ast, const std::vector<Opt>& opts, const std::vector<Tensor>& inputs,
                           size_t outputs, std::string* source) {
  runtime::Device& device = SuiteDevice();
  GeneratedKernel k = GenerateKernel(ast, TargetOf(device), opts);
  *source = k.source.source;
  auto program = device.GetProgram(k.source);
  EXPECT_TRUE(program.ok()) << program.status() << "\n" << k.source.source;
  if (!program.ok()) return {};
  auto out = runtime::Buffer::Create(device, outputs * sizeof(float));
  std::vector<runtime::KernelArg> args{runtime::KernelArg::Buf(out.get())};
  std::vector<std::vector<float>> host;
  std::vector<std::shared_ptr<runtime::Buffer>> keep;
  for (const Tensor& t : inputs) {
    host.push_back(t.to_vector<float>());
    keep.push_back(runtime::Buffer::Create(device, host.back().size() * sizeof(float)));
    EXPECT_TRUE(keep.back()->CopyIn(host.back().data(), host.back().size() * sizeof(float)).ok());
    args.push_back(runtime::KernelArg::Buf(keep.back().get()));
  }
  EXPECT_TRUE(device.Launch(**program, k.dims, args, nullptr).ok());
  std::vector<float> got(outputs);
  EXPECT_TRUE(out->CopyOut(got.data(), got.size() * sizeof(float)).ok());
  return got;
}

class TensorCoreEmulation : public ::testing::Test {
 protected:
  void SetUp() override {
    if (TargetOf(SuiteDevice()).tensor_cores.empty())
      GTEST_SKIP() << "device " << SuiteDevice().info().name << " emulates no tensor core (TC_EMULATE="
                   << (std::getenv("TC_EMULATE") ? std::getenv("TC_EMULATE") : "") << ")";
  }
  const TensorCore& tc() { return TargetOf(SuiteDevice()).tensor_cores.front(); }

  void ExpectNear(const std::vector<float>& got, const std::vector<double>& want, const std::string& what) {
    ASSERT_EQ(got.size(), want.size()) << what;
    for (size_t i = 0; i < got.size(); ++i)
      ASSERT_NEAR(got[i], want[i], 1e-4 * std::max(1.0, std::abs(want[i]))) << what << " at " << i;
  }
};

// The heuristic's choice (TC, then LOCAL warps) on matmuls of one tile, many, a batch, an epilogue and
// a long reduce: realized through the whole stack.
TEST_F(TensorCoreEmulation, TheHeuristicsMatmulsMatchTheHost) {
  for (auto [batch, m, k, n, epilogue] : std::vector<std::tuple<int, int, int, int, bool>>{
           {1, 16, 16, 16, false}, {1, 64, 96, 48, false}, {3, 32, 64, 16, false}, {1, 64, 96, 48, true},
           {1, 16, 512, 32, false}}) {
    Matmul mm = MakeMatmul(batch, m, k, n, epilogue);
    std::string what = std::to_string(batch) + "x" + std::to_string(m) + "x" + std::to_string(k) + "x" + std::to_string(n);
    Kernel kernel = StartKernel(OnlyKernelAst(mm.out), TargetOf(SuiteDevice()));
    ApplyHeuristic(kernel, TargetOf(SuiteDevice()));
    ASSERT_NE(kernel.tensor_core(), nullptr) << what << " " << kernel.AxesString();
    std::vector<float> got = mm.out.to_vector<float>();
    std::vector<double> want = mm.want;
    ExpectNear(got, want, what);
  }
}

// Opts after TC: more tiles a work item (UPCAST of either output axis) and more warps a group (LOCAL).
TEST_F(TensorCoreEmulation, UpcastAndLocalAfterTcMatchTheHost) {
  Matmul mm = MakeMatmul(1, 64, 64, 64, false);
  UOpRef ast = OnlyKernelAst(mm.out);
  for (const std::vector<Opt>& opts : std::vector<std::vector<Opt>>{
           {{OptOp::kTc, 2, 0}},
           {{OptOp::kTc, 2, 0}, {OptOp::kUpcast, 0, 2}},
           {{OptOp::kTc, 2, 0}, {OptOp::kUpcast, 1, 2}, {OptOp::kLocal, 0, 2}},
           {{OptOp::kTc, 2, 0}, {OptOp::kLocal, 1, 2}, {OptOp::kLocal, 0, 2}}}) {
    std::string source;
    std::vector<float> got = RunWith(ast, opts, {mm.x, mm.w}, mm.want.size(), &source);
    EXPECT_THAT(source, ::testing::HasSubstr("tg_" + tc().name + "(")) << source;
    std::string what;
    for (const Opt& o : opts) what += o.str() + " ";
    ExpectNear(got, mm.want, what);
  }
}

}  // namespace
}  // namespace tg::compiler
