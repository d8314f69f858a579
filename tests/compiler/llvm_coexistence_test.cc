// Whether the CPU plugin's LLVM JIT (libLLVM-15, dlopen()ed on the first llvm-ir compile) lives in one
// process with the other LLVMs a host may load: PoCL (OpenCL; links the same libLLVM-15.so.1), NVRTC
// (embeds its own LLVM) and hiprtc (through comgr, libLLVM-15.so.1 again). Each case runs in a forked
// child, since plugins stay loaded for a process's life. A case whose vendor library is absent skips.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <functional>

#include "frontend/tg.h"
#include "gtest/gtest.h"
#include "plugins/cuda/cuda_compile_only.h"
#include "plugins/hip/hip_compile_only.h"
#include "runtime/device_registry.h"
#include "tests/plugins/plugin_test_util.h"

namespace tg {
namespace {

constexpr int kSkip = 77;

// Runs |body| in a child; its exit code: 0 pass, kSkip skip, anything else (or a signal) failure.
int InChild(const std::function<int()>& body) {
  pid_t pid = fork();
  if (pid == 0) {
    int rc = 1;
    try {
      rc = body();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "child: %s\n", e.what());
    }
    std::fflush(stderr);
    _exit(rc);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// A kernel JIT-compiled from llvm-ir on CPU; returns its first element.
float JitSomething(float k) {
  Tensor x = Tensor::from_vector<float>({1, 2, 3, 4}).to("CPU");
  return ((x * k + 1).exp2()).to_vector<float>()[0];
}

TEST(LlvmCoexistence, OpenClAndTheJitInOneProcess) {
  int rc = InChild([] {
    setenv("TG_CPU_DIALECT", "llvm-ir", 1);
    setenv("TG_DISABLE_PLUGINS", "CUDA,HIP", 1);
    if (!runtime::DeviceRegistry::Global().GetDevice("OPENCL").ok()) return kSkip;
    float before = JitSomething(2);
    Tensor x = Tensor::from_vector<float>({1, 2, 3, 4}).to("OPENCL");
    float cl = ((x * 2 + 1).exp2()).to_vector<float>()[0];
    float after = JitSomething(3);  // the JIT still works after PoCL compiled
    return before == 8.0f && cl == 8.0f && after == 16.0f ? 0 : 2;
  });
  if (rc == kSkip) GTEST_SKIP() << "no OPENCL device here";
  EXPECT_EQ(rc, 0);
}

// The vendor's compile-only extension (cuda and hip share its shape) after and before a JIT compile.
int VendorCompileAroundJit(const char* plugin, const char* ext_name, const char* arch, const char* format,
                           const char* disabled) {
  setenv("TG_CPU_DIALECT", "llvm-ir", 1);
  setenv("TG_DISABLE_PLUGINS", disabled, 1);
  if (JitSomething(2) != 8.0f) return 2;
  const tg_plugin_api* api = testing::LoadPluginApi(plugin);
  const tg_ext* ext = api ? testing::FindExtension(api, ext_name) : nullptr;
  if (ext == nullptr) return 3;
  auto* c = reinterpret_cast<const tg_cuda_compile_only_ext*>(ext);
  const char src[] = "extern \"C\" __global__ void k(float* a) { a[threadIdx.x] *= 2.0f; }";
  char* code = nullptr;
  uint64_t len = 0;
  tg_error* err = c->compile(src, sizeof src - 1, arch, format, &code, &len);
  if (err != nullptr) {
    bool unavailable = api->error_code(err) == TG_CODE_UNAVAILABLE;
    std::fprintf(stderr, "compile: %s\n", api->error_message(err));
    api->error_destroy(err);
    return unavailable ? kSkip : 4;
  }
  c->free_code(code);
  return JitSomething(3) == 16.0f ? 0 : 5;
}

TEST(LlvmCoexistence, NvrtcAndTheJitInOneProcess) {
  int rc = InChild([] {
    return VendorCompileAroundJit("./plugins/cuda/libtg_cuda.so", TG_CUDA_COMPILE_ONLY_NAME, "sm_90", "ptx",
                                  "OPENCL,HIP");
  });
  if (rc == kSkip) GTEST_SKIP() << "no NVRTC here";
  EXPECT_EQ(rc, 0) << "the child failed or crashed (128+signal): see stderr";
}

TEST(LlvmCoexistence, HiprtcAndTheJitInOneProcess) {
  int rc = InChild([] {
    return VendorCompileAroundJit("./plugins/hip/libtg_hip.so", TG_HIP_COMPILE_ONLY_NAME, "gfx90a", "hsaco",
                                  "OPENCL,CUDA");
  });
  if (rc == kSkip) GTEST_SKIP() << "no hiprtc here";
  EXPECT_EQ(rc, 0) << "the child failed or crashed (128+signal): see stderr";
}

}  // namespace
}  // namespace tg
