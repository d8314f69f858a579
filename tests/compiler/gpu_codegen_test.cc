// Every kernel of an end-to-end corpus, rendered as cuda-c and hip-c, must compile with the
// vendor's run-time compiler (NVRTC -> PTX for sm_90, checked again by ptxas; hiprtc -> a gfx90a
// code object), group reduces through shared memory and 16-byte vector accesses included; and half
// and bfloat16 matmuls must compile onto each matrix instruction (tensor cores) for each architecture
// that has one. No GPU needed: the plugins' "tg.compile_only" extensions do it, and clang's AMDGPU
// backend for the architectures the machine's hiprtc predates. Skipped, with the reason, where a
// compiler is absent.
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <functional>

#include "compiler/codegen/codegen.h"
#include "compiler/schedule/schedule.h"
#include "compiler/target.h"
#include "frontend/tg.h"
#include "gtest/gtest.h"
#include "plugins/cuda/cuda_compile_only.h"
#include "plugins/hip/hip_compile_only.h"
#include "tests/compiler/amdgpu_clang.h"
#include "tests/plugins/plugin_test_util.h"

namespace tg::compiler {
namespace {

// Both extensions share this shape (see cuda_compile_only.h / hip_compile_only.h).
struct CompileOnly {
  const tg_plugin_api* api;
  tg_error* (*compile)(const char*, uint64_t, const char*, const char*, char**, uint64_t*);
  void (*free_code)(char*);
};

CompileOnly Load(const char* path, const char* name) {
  const tg_plugin_api* api = testing::LoadPluginApi(path);
  const tg_ext* ext = api ? testing::FindExtension(api, name) : nullptr;
  if (ext == nullptr) return {api, nullptr, nullptr};
  auto* cuda = reinterpret_cast<const tg_cuda_compile_only_ext*>(ext);
  return {api, cuda->compile, cuda->free_code};
}

// The tensors whose kernels make up the corpus: each op family the front end lowers.
std::vector<Tensor> Corpus() {
  Tensor a = Tensor::rand({16, 32}), b = Tensor::rand({32}), m = Tensor::rand({32, 24});
  Tensor i = Tensor::from_vector<int32_t>({3, -7, 12, 5}), d = Tensor::rand({8}).cast(dtypes::float64);
  Tensor e = (a - a.max({1}, true)).exp();
  Tensor pos = Variable("pos", 0, 31).tensor();  // unbound: these kernels are generated, never launched
  return {
      (a * pos.cast(dtypes::float32)).sum({1}), (Tensor::arange(32).cast(dtypes::int32) <= pos).where(b, 0.0f).sum(),
      a.shrink_to(1, pos + 1).softmax(1).sum({1}),  // reduces that loop to a symbolic length
      ((a * b + 1).relu() - b.sqrt()) / (a * a + 1),
      (a.exp() + a.log() + a.sin()).maximum(a),
      (a > 0.5f).where(a, b * 2),
      a.sum({1}), a.max({0}), a.mean(), e / e.sum({1}, true),
      a.matmul(m), (a.matmul(m) + 1).relu().sum({0}),
      a.pad({{1, 2}, {0, 3}}).flip({0}).shrink({{1, 10}, {2, 30}}).permute({1, 0}),
      (i * 3 + 1) / 2, i.cast(dtypes::float32) * 0.5f, (i < 4).cast(dtypes::int32).sum(),
      d * 2.5 + d.exp(), i.cast(dtypes::int64) * int64_t{1} << 0,
      Tensor::rand({4096}) * 2 + 1, Tensor::rand({4096}).cast(dtypes::float16).realize() * 3,
  };
}

class GpuCodegen : public ::testing::TestWithParam<std::string> {};

TEST_P(GpuCodegen, EveryCorpusKernelCompiles) {
  bool cuda = GetParam() == "cuda-c";
  // PoCL, NVRTC and hiprtc each embed an LLVM; two in one process abort. Keep the others out.
  setenv("TG_DISABLE_PLUGINS", cuda ? "OPENCL,HIP" : "OPENCL,CUDA", 1);
  CompileOnly c = cuda ? Load("./plugins/cuda/libtg_cuda.so", TG_CUDA_COMPILE_ONLY_NAME)
                       : Load("./plugins/hip/libtg_hip.so", TG_HIP_COMPILE_ONLY_NAME);
  ASSERT_NE(c.compile, nullptr) << "no tg.compile_only extension";
  runtime::DeviceInfo target;
  target.name = cuda ? "CUDA(compile-only)" : "HIP(compile-only)";
  target.source_dialects = {GetParam()};
  target.max_group_threads = 1024;
  target.local_mem_bytes = 48 << 10;
  int kernels = 0, grouped = 0, wide = 0, variables = 0;
  for (const Tensor& t : Corpus()) {
    for (const ScheduleItem& item : CreateSchedule({t.uop()}, {t.device()}).items) {
      if (item.kind != ScheduleItem::Kind::kKernel) continue;
      GeneratedKernel k = GenerateKernel(item.ast, target);
      char* code = nullptr;
      uint64_t len = 0;
      tg_error* err = c.compile(k.source.source.data(), k.source.source.size(), cuda ? "sm_90" : "gfx90a",
                                cuda ? "ptx" : "hsaco", &code, &len);
      if (err != nullptr && c.api->error_code(err) == TG_CODE_UNAVAILABLE) {
        std::string why = c.api->error_message(err);
        c.api->error_destroy(err);
        GTEST_SKIP() << "no run-time compiler for " << GetParam() << ": " << why;
      }
      ASSERT_EQ(err, nullptr) << k.name << ":\n" << (err ? c.api->error_message(err) : "") << "\n" << k.source.source;
      EXPECT_GT(len, 0u);
      c.free_code(code);
      ++kernels;
      grouped += k.source.source.find("__syncthreads()") != std::string::npos;
      wide += k.source.source.find("(*(tg_vec<") != std::string::npos;
      variables += k.source.source.find("const int var0") != std::string::npos;
    }
  }
  EXPECT_GE(variables, 3);  // the kernels reading a variable take it as an int parameter
  EXPECT_GE(kernels, 15);
  EXPECT_GE(grouped, 3);  // the full reductions and the row reductions share their reduce in a group
  EXPECT_GE(wide, 2);     // float4 and half8 loads and stores of the elementwise kernels
}

// A device with a matrix instruction: its dialect, architecture, and what the kernel calls.
struct MatrixDevice {
  const char* dialect;
  const char* arch;
  const char* call;         // in the source: the helper the renderer writes for the instruction
  const char* instruction;  // in PTX (CUDA only): the instruction itself
};

class TensorCoreCodegen : public ::testing::TestWithParam<MatrixDevice> {};

// The matmuls a tensor core takes: one tile, many tiles, a batch, an epilogue (bias and relu), a reduce
// longer than a tile, and bfloat16 where the instruction takes it.
std::vector<Tensor> MatmulCorpus(bool bfloat16) {
  auto half = [](Shape s) { return Tensor::rand(s).cast(dtypes::float16).realize(); };
  Tensor a = half({64, 96}), b = half({96, 48});
  std::vector<Tensor> out = {
      half({16, 16}).matmul(half({16, 16})),
      a.matmul(b),
      half({3, 32, 64}).matmul(half({3, 64, 16})),
      (a.matmul(b) + half({48})).relu(),
      half({16, 512}).matmul(half({512, 32})).cast(dtypes::float32),
  };
  if (bfloat16) {
    Tensor x = Tensor::rand({32, 64}).cast(dtypes::bfloat16).realize(), y = Tensor::rand({64, 32}).cast(dtypes::bfloat16).realize();
    out.push_back(x.matmul(y));
  }
  return out;
}

// The corpus's kernels for |arch| that call |call|, the renderer's helper for the matrix instruction.
std::vector<GeneratedKernel> MatrixKernels(const std::string& dialect, const std::string& arch, const std::string& call) {
  runtime::DeviceInfo target;
  target.name = arch + "(compile-only)";
  target.source_dialects = {dialect};
  target.arch = arch;
  target.max_group_threads = 1024;
  target.local_mem_bytes = 48 << 10;
  target.caps = TG_CAP_FP16;
  EXPECT_FALSE(Target::For(target).tensor_cores.empty()) << arch;
  std::vector<GeneratedKernel> kernels;
  for (const Tensor& t : MatmulCorpus(dialect == "cuda-c"))
    for (const ScheduleItem& item : CreateSchedule({t.uop()}, {t.device()}).items) {
      if (item.kind != ScheduleItem::Kind::kKernel) continue;
      GeneratedKernel k = GenerateKernel(item.ast, target);
      if (k.source.source.find(call) != std::string::npos) kernels.push_back(std::move(k));  // not a cast or bias
    }
  return kernels;
}

TEST_P(TensorCoreCodegen, HalfMatmulsCompileOntoTheMatrixInstruction) {
  const MatrixDevice& d = GetParam();
  bool cuda = std::string(d.dialect) == "cuda-c";
  setenv("TG_DISABLE_PLUGINS", cuda ? "OPENCL,HIP" : "OPENCL,CUDA", 1);
  CompileOnly c = cuda ? Load("./plugins/cuda/libtg_cuda.so", TG_CUDA_COMPILE_ONLY_NAME)
                       : Load("./plugins/hip/libtg_hip.so", TG_HIP_COMPILE_ONLY_NAME);
  ASSERT_NE(c.compile, nullptr) << "no tg.compile_only extension";
  std::vector<GeneratedKernel> kernels = MatrixKernels(d.dialect, d.arch, d.call);
  for (const GeneratedKernel& k : kernels) {
    char* code = nullptr;
    uint64_t len = 0;
    tg_error* err = c.compile(k.source.source.data(), k.source.source.size(), d.arch, cuda ? "ptx" : "hsaco", &code, &len);
    // UNIMPLEMENTED: this machine's compiler predates the architecture (hiprtc 5.2 and gfx942, gfx1100;
    // HipMatrixIsa assembles those with clang instead).
    if (err != nullptr && (c.api->error_code(err) == TG_CODE_UNAVAILABLE || c.api->error_code(err) == TG_CODE_UNIMPLEMENTED)) {
      std::string why = c.api->error_message(err);
      c.api->error_destroy(err);
      GTEST_SKIP() << "no run-time compiler for " << d.dialect << " on " << d.arch << ": " << why;
    }
    ASSERT_EQ(err, nullptr) << k.name << ":\n" << (err ? c.api->error_message(err) : "") << "\n" << k.source.source;
    if (cuda) {
      EXPECT_NE(std::string(code, len).find(d.instruction), std::string::npos) << k.name;
    }
    c.free_code(code);
  }
  EXPECT_GE(kernels.size(), cuda ? 6u : 5u);
}

struct AmdMatrixIsa {
  const char* arch;
  const char* call;         // in the source: the helper the renderer writes for the instruction
  const char* instruction;  // in the ISA clang writes
};

class HipMatrixIsa : public ::testing::TestWithParam<AmdMatrixIsa> {};

// The same hip-c source through clang's AMDGPU backend, whatever hiprtc the machine has: the kernels
// must assemble, and onto the matrix instruction itself (a helper that fell back to scalar code would
// compile too).
TEST_P(HipMatrixIsa, HalfMatmulsAssembleOntoTheMatrixInstruction) {
  const AmdMatrixIsa& d = GetParam();
  std::vector<GeneratedKernel> kernels = MatrixKernels("hip-c", d.arch, d.call);
  for (const GeneratedKernel& k : kernels) {
    testing::AmdgpuAssembly a = testing::AssembleHip(k.source.source, d.arch);
    if (!a.skip_reason.empty()) GTEST_SKIP() << a.skip_reason;
    ASSERT_TRUE(a.errors.empty()) << k.name << " for " << a.compiled_for << ":\n" << a.errors << "\n" << k.source.source;
    EXPECT_NE(a.assembly.find(d.instruction), std::string::npos) << k.name << " for " << a.compiled_for;
    RecordProperty("compiled_for", a.compiled_for);
  }
  EXPECT_GE(kernels.size(), 5u);
}

INSTANTIATE_TEST_SUITE_P(Amdgpu, HipMatrixIsa,
                         ::testing::Values(AmdMatrixIsa{"gfx90a", "tg_mfma_f32_16x16x16_f16", "v_mfma_f32_16x16x16f16"},
                                           AmdMatrixIsa{"gfx942", "tg_mfma_f32_16x16x16_f16", "v_mfma_f32_16x16x16_f16"},
                                           AmdMatrixIsa{"gfx1100", "tg_wmma_f32_16x16x16_f16_w32", "v_wmma_f32_16x16x16_f16"}));

INSTANTIATE_TEST_SUITE_P(Cuda, TensorCoreCodegen,
                         ::testing::Values(MatrixDevice{"cuda-c", "sm_80", "tg_mma_m16n8k16", "mma.sync.aligned.m16n8k16"},
                                           MatrixDevice{"cuda-c", "sm_90", "tg_mma_m16n8k16", "mma.sync.aligned.m16n8k16"}));
INSTANTIATE_TEST_SUITE_P(Hip, TensorCoreCodegen,
                         ::testing::Values(MatrixDevice{"hip-c", "gfx90a", "tg_mfma_f32_16x16x16_f16", ""},
                                           MatrixDevice{"hip-c", "gfx942", "tg_mfma_f32_16x16x16_f16", ""},
                                           MatrixDevice{"hip-c", "gfx1100", "tg_wmma_f32_16x16x16_f16_w32", ""}));

INSTANTIATE_TEST_SUITE_P(Dialects, GpuCodegen, ::testing::Values("cuda-c", "hip-c"));

}  // namespace
}  // namespace tg::compiler
