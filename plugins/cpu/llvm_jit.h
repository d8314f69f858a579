// llvm_jit.h: the CPU plugin's in-process compiler for the "llvm-ir" dialect: LLVM 15, -O2 pipeline,
// host CPU and features, emitted as an ELF object and linked into the process by ORC LLJIT. Sits
// under program_compile beside c_compiler.h; plugin-internal.
//
// Compiling and loading are two steps so the object can be cached: program_binary hands the host the
// object bytes, and a later process loads them (program_load) without parsing or optimizing anything.
// Compiles run concurrently (each has its own LLVM context and target machine); only linking into the
// process's one JIT is serialized.
//
// LLVM is loaded LAZILY: libLLVM-15.so.1 is dlopen()ed on the first llvm-ir compile or load, through
// LLVM's C API (llvm-c/*.h declarations only; the plugin is not linked against LLVM). Why: a process
// that never uses llvm-ir (CUDA users, `tg devices`) never maps LLVM, pays no start-up for it, and
// cannot collide with another LLVM in the process (NVRTC embeds its own; see tests/plugins llvm
// coexistence). PoCL and hiprtc link the same libLLVM-15.so.1, so they share one copy with us.
#ifndef TG_PLUGINS_CPU_LLVM_JIT_H_
#define TG_PLUGINS_CPU_LLVM_JIT_H_

#include <string>
#include <string_view>

#include "plugins/abi/tg_plugin.h"
#include "plugins/cpu/cpu_error.h"

namespace tg_cpu {

// Machine code for one kernel, not yet in the process.
struct JitObject {
  std::string target;  // the CPU and features it was generated for (JitHostTarget() of the compiler)
  std::string symbol;  // the kernel's symbol in |object|: the entry name made unique by the IR's hash
  std::string object;  // an x86-64 ELF relocatable object
};

// One kernel linked into the process; its machine code lives until JitRelease.
struct JitKernel {
  tg_c_kernel_fn fn = nullptr;
  std::string symbol;  // empty when nothing is linked
};

// Parses |ir|, runs LLVM's default<O2> pipeline for the host CPU and emits the object code of
// |entry|. Errors: UNAVAILABLE (libLLVM-15 cannot be loaded, with dlerror), INVALID_ARGUMENT (the IR
// does not parse or verify; the message holds LLVM's diagnostic), NOT_FOUND (no |entry|), INTERNAL
// (pass pipeline or code generation failed, a fatal error inside LLVM included: "Cannot select" comes
// back as an error, never an exit; llvm_fatal_guard.h). Thread-safe, and concurrent calls run in parallel.
tg_error* JitCompile(std::string_view ir, const std::string& entry, JitObject* out);
// Links |object| into the process and resolves its symbol. FAILED_PRECONDITION when it was generated
// for another CPU (target differs from JitHostTarget()) or LLVM refuses it. One object loaded twice
// (two devices, or a compile and a load of the same kernel) shares one copy of the code.
tg_error* JitLoad(const JitObject& object, JitKernel* out);
// Drops |kernel|'s share of its code (freed with the last share); no launch of it may be running.
void JitRelease(JitKernel* kernel);
// The host CPU name and features LLVM generates code for, "" when LLVM cannot be loaded.
const std::string& JitHostTarget();

}  // namespace tg_cpu

#endif  // TG_PLUGINS_CPU_LLVM_JIT_H_
