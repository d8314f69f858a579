// Every kernel of an end-to-end corpus, rendered as cuda-c and hip-c, must compile with the
// vendor's run-time compiler (NVRTC -> PTX for sm_90, checked again by ptxas; hiprtc -> a gfx90a
// code object). No GPU needed: the plugins' "tg.compile_only" extensions do it. Skipped, with
// the reason, where NVRTC or hiprtc is absent.
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <functional>

#include "compiler/codegen/codegen.h"
#include "compiler/schedule/schedule.h"
#include "frontend/tg.h"
#include "gtest/gtest.h"
#include "plugins/cuda/cuda_compile_only.h"
#include "plugins/hip/hip_compile_only.h"
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
  return {
      ((a * b + 1).relu() - b.sqrt()) / (a * a + 1),
      (a.exp() + a.log() + a.sin()).maximum(a),
      (a > 0.5f).where(a, b * 2),
      a.sum({1}), a.max({0}), a.mean(), e / e.sum({1}, true),
      a.matmul(m), (a.matmul(m) + 1).relu().sum({0}),
      a.pad({{1, 2}, {0, 3}}).flip({0}).shrink({{1, 10}, {2, 30}}).permute({1, 0}),
      (i * 3 + 1) / 2, i.cast(dtypes::float32) * 0.5f, (i < 4).cast(dtypes::int32).sum(),
      d * 2.5 + d.exp(), i.cast(dtypes::int64) * int64_t{1} << 0,
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
  int kernels = 0;
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
    }
  }
  EXPECT_GE(kernels, 15);
}

INSTANTIATE_TEST_SUITE_P(Dialects, GpuCodegen, ::testing::Values("cuda-c", "hip-c"));

}  // namespace
}  // namespace tg::compiler
