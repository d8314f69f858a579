// llvm_jit.h: the CPU plugin's in-process compiler for the "llvm-ir" dialect: LLVM 15 ORC LLJIT,
// -O2 pipeline, host CPU and features. Sits under program_compile beside c_compiler.h; plugin-internal.
//
// LLVM is loaded LAZILY: libLLVM-15.so.1 is dlopen()ed on the first llvm-ir compile, through LLVM's
// C API (llvm-c/*.h declarations only; the plugin is not linked against LLVM). Why: a process that never
// compiles llvm-ir (CUDA users, `tg devices`) never maps LLVM, pays no start-up for it, and cannot
// collide with another LLVM in the process (NVRTC embeds its own; see tests/plugins llvm coexistence).
// PoCL and hiprtc link the same libLLVM-15.so.1, so they share one copy with us.
#ifndef TG_PLUGINS_CPU_LLVM_JIT_H_
#define TG_PLUGINS_CPU_LLVM_JIT_H_

#include <string>
#include <string_view>

#include "plugins/abi/tg_plugin.h"
#include "plugins/cpu/cpu_error.h"

namespace tg_cpu {

// One compiled kernel; its machine code lives until JitRelease.
struct JitKernel {
  tg_c_kernel_fn fn = nullptr;
  void* tracker = nullptr;  // the LLVMOrcResourceTrackerRef owning the code
};

// Parses |ir|, runs LLVM's default<O2> pipeline for the host CPU, JIT-compiles it and resolves
// |entry| into |out|. Errors: UNAVAILABLE (libLLVM-15 cannot be loaded, with dlerror), INVALID_ARGUMENT
// (the IR does not parse or verify; the message holds LLVM's diagnostic), NOT_FOUND (no |entry|),
// INTERNAL (pass pipeline or code generation failed, a fatal error inside LLVM included: "Cannot
// select" comes back as an error, never an exit; llvm_fatal_guard.h). Thread-safe (compiles are serialized).
tg_error* JitCompile(std::string_view ir, const std::string& entry, JitKernel* out);
// Frees the machine code of |kernel|; no launch of it may be running.
void JitRelease(JitKernel* kernel);

}  // namespace tg_cpu

#endif  // TG_PLUGINS_CPU_LLVM_JIT_H_
