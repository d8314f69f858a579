// llvm_jit.cc: "llvm-ir" kernels compiled in-process by LLVM 15 ORC LLJIT, loaded with dlopen.
#include "plugins/cpu/llvm_jit.h"

#include <dlfcn.h>

#include <atomic>
#include <functional>
#include <mutex>
#include <string>

#include "llvm-c/Analysis.h"
#include "llvm-c/Core.h"
#include "llvm-c/Error.h"
#include "llvm-c/ErrorHandling.h"
#include "llvm-c/IRReader.h"
#include "llvm-c/LLJIT.h"
#include "llvm-c/Orc.h"
#include "llvm-c/Target.h"
#include "llvm-c/TargetMachine.h"
#include "llvm-c/Transforms/PassBuilder.h"
#include "plugins/cpu/llvm_fatal_guard.h"

namespace tg_cpu {
namespace {

// Every LLVM C function the JIT calls, resolved with dlsym (the declarations give the types only).
#define TG_LLVM_FUNCTIONS(X)                                                                         \
  X(LLVMInitializeX86TargetInfo) X(LLVMInitializeX86Target) X(LLVMInitializeX86TargetMC)             \
  X(LLVMInitializeX86AsmPrinter) X(LLVMGetDefaultTargetTriple) X(LLVMGetHostCPUName)                 \
  X(LLVMGetHostCPUFeatures) X(LLVMGetTargetFromTriple) X(LLVMCreateTargetMachine)                    \
  X(LLVMCreateTargetDataLayout) X(LLVMSetModuleDataLayout) X(LLVMSetTarget) X(LLVMDisposeMessage)     \
  X(LLVMCreateMemoryBufferWithMemoryRangeCopy) X(LLVMParseIRInContext) X(LLVMVerifyModule)           \
  X(LLVMGetNamedFunction) X(LLVMSetValueName2) X(LLVMDisposeModule) X(LLVMCreatePassBuilderOptions)  \
  X(LLVMDisposePassBuilderOptions) X(LLVMRunPasses) X(LLVMGetErrorMessage) X(LLVMDisposeErrorMessage) \
  X(LLVMOrcJITTargetMachineBuilderCreateFromTargetMachine) X(LLVMOrcCreateLLJITBuilder)               \
  X(LLVMOrcLLJITBuilderSetJITTargetMachineBuilder) X(LLVMOrcCreateLLJIT) X(LLVMOrcLLJITGetMainJITDylib) \
  X(LLVMOrcLLJITGetGlobalPrefix) X(LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess)             \
  X(LLVMOrcJITDylibAddGenerator) X(LLVMOrcCreateNewThreadSafeContext)                                \
  X(LLVMOrcThreadSafeContextGetContext) X(LLVMOrcDisposeThreadSafeContext)                           \
  X(LLVMOrcCreateNewThreadSafeModule) X(LLVMOrcJITDylibCreateResourceTracker)                        \
  X(LLVMOrcLLJITAddLLVMIRModuleWithRT) X(LLVMOrcLLJITLookup) X(LLVMOrcResourceTrackerRemove)          \
  X(LLVMOrcReleaseResourceTracker) X(LLVMInstallFatalErrorHandler) X(LLVMResetFatalErrorHandler)

struct Llvm {
#define TG_DECLARE(f) decltype(&::f) f = nullptr;
  TG_LLVM_FUNCTIONS(TG_DECLARE)
#undef TG_DECLARE
  LLVMTargetMachineRef passes_tm = nullptr;  // the host machine the -O2 pipeline tunes for
  LLVMOrcLLJITRef jit = nullptr;
  std::string error;  // why LLVM is unusable; empty when it works
};

std::string TakeMessage(const Llvm& l, LLVMErrorRef e) {
  char* m = l.LLVMGetErrorMessage(e);
  std::string s = m ? m : "unknown LLVM error";
  l.LLVMDisposeErrorMessage(m);
  return s;
}

// Two target machines for the host (CPU name + every feature, AVX-512 included): one tunes the pass
// pipeline, the other is handed to LLJIT for code generation (it takes ownership).
LLVMTargetMachineRef HostMachine(const Llvm& l, std::string* why) {
  char* triple = l.LLVMGetDefaultTargetTriple();
  char *cpu = l.LLVMGetHostCPUName(), *features = l.LLVMGetHostCPUFeatures(), *err = nullptr;
  LLVMTargetRef target = nullptr;
  LLVMTargetMachineRef tm = nullptr;
  if (l.LLVMGetTargetFromTriple(triple, &target, &err) != 0) {
    *why = std::string("no LLVM target for the host: ") + (err ? err : "");
    l.LLVMDisposeMessage(err);
  } else {
    tm = l.LLVMCreateTargetMachine(target, triple, cpu, features, LLVMCodeGenLevelDefault, LLVMRelocDefault,
                                   LLVMCodeModelJITDefault);
  }
  l.LLVMDisposeMessage(triple);
  l.LLVMDisposeMessage(cpu);
  l.LLVMDisposeMessage(features);
  return tm;
}

void CreateJit(Llvm& l) {
  l.LLVMInitializeX86TargetInfo();
  l.LLVMInitializeX86Target();
  l.LLVMInitializeX86TargetMC();
  l.LLVMInitializeX86AsmPrinter();
  l.passes_tm = HostMachine(l, &l.error);
  LLVMTargetMachineRef jit_tm = l.passes_tm ? HostMachine(l, &l.error) : nullptr;
  if (jit_tm == nullptr) return;
  LLVMOrcLLJITBuilderRef builder = l.LLVMOrcCreateLLJITBuilder();
  l.LLVMOrcLLJITBuilderSetJITTargetMachineBuilder(builder, l.LLVMOrcJITTargetMachineBuilderCreateFromTargetMachine(jit_tm));
  if (LLVMErrorRef e = l.LLVMOrcCreateLLJIT(&l.jit, builder)) {
    l.error = "LLJIT: " + TakeMessage(l, e);
    return;
  }
  // Kernels call libm (exp2f, sinf, ...): resolve undefined symbols in the process.
  LLVMOrcDefinitionGeneratorRef gen = nullptr;
  if (LLVMErrorRef e = l.LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess(
          &gen, l.LLVMOrcLLJITGetGlobalPrefix(l.jit), nullptr, nullptr)) {
    l.error = "LLJIT process symbols: " + TakeMessage(l, e);
    return;
  }
  l.LLVMOrcJITDylibAddGenerator(l.LLVMOrcLLJITGetMainJITDylib(l.jit), gen);
}

// The process's LLVM, loaded and set up on first use; never unloaded (LLVM keeps global state).
Llvm& GetLlvm() {
  static Llvm* llvm = [] {
    auto* l = new Llvm;
    void* lib = nullptr;
    for (const char* name : {"libLLVM-15.so.1", "libLLVM-15.so"})
      if ((lib = dlopen(name, RTLD_NOW | RTLD_LOCAL)) != nullptr) break;
    if (lib == nullptr) {
      const char* why = dlerror();
      l->error = std::string("cannot load LLVM 15 (install llvm-15): ") + (why ? why : "libLLVM-15.so.1 not found");
      return l;
    }
#define TG_RESOLVE(f)                                                          \
  l->f = reinterpret_cast<decltype(&::f)>(dlsym(lib, #f));                     \
  if (l->f == nullptr && l->error.empty()) l->error = "libLLVM-15 lacks " #f;
    TG_LLVM_FUNCTIONS(TG_RESOLVE)
#undef TG_RESOLVE
    if (l->error.empty()) CreateJit(*l);
    return l;
  }();
  return *llvm;
}

std::mutex g_compile_mu;
std::atomic<uint64_t> g_next_id{0};

// Parses and verifies |ir| into a module of |ctx|, or returns the diagnostic in |why|.
LLVMModuleRef Parse(const Llvm& l, LLVMContextRef ctx, std::string_view ir, std::string* why) {
  LLVMMemoryBufferRef buf = l.LLVMCreateMemoryBufferWithMemoryRangeCopy(ir.data(), ir.size(), "kernel.ll");
  LLVMModuleRef mod = nullptr;
  char* msg = nullptr;
  if (l.LLVMParseIRInContext(ctx, buf, &mod, &msg) != 0) {  // takes |buf|
    *why = std::string("LLVM IR does not parse: ") + (msg ? msg : "");
    l.LLVMDisposeMessage(msg);
    return nullptr;
  }
  if (l.LLVMVerifyModule(mod, LLVMReturnStatusAction, &msg) != 0) {
    *why = std::string("LLVM IR does not verify: ") + (msg ? msg : "");
    l.LLVMDisposeMessage(msg);
    l.LLVMDisposeModule(mod);
    return nullptr;
  }
  l.LLVMDisposeMessage(msg);
  return mod;
}

// Runs |step| with LLVM's fatal errors returned in |fatal| (false) instead of exiting the process.
bool Guarded(const Llvm& l, const std::function<void()>& step, std::string* fatal) {
  return RunWithLlvmFatalGuard(l.LLVMInstallFatalErrorHandler, l.LLVMResetFatalErrorHandler, step, fatal);
}

}  // namespace

tg_error* JitCompile(std::string_view ir, const std::string& entry, JitKernel* out) {
  Llvm& l = GetLlvm();
  if (!l.error.empty()) return MakeError(TG_CODE_UNAVAILABLE, "llvm-ir: " + l.error);
  std::lock_guard<std::mutex> lock(g_compile_mu);
  LLVMOrcThreadSafeContextRef tsc = l.LLVMOrcCreateNewThreadSafeContext();
  std::string why;
  LLVMModuleRef mod = Parse(l, l.LLVMOrcThreadSafeContextGetContext(tsc), ir, &why);
  if (mod == nullptr) {
    l.LLVMOrcDisposeThreadSafeContext(tsc);
    return MakeError(TG_CODE_INVALID_ARGUMENT, "program_compile: " + why);
  }
  LLVMValueRef fn = l.LLVMGetNamedFunction(mod, entry.c_str());
  if (fn == nullptr) {
    l.LLVMDisposeModule(mod);
    l.LLVMOrcDisposeThreadSafeContext(tsc);
    return MakeError(TG_CODE_NOT_FOUND, "entry point '" + entry + "' not defined in the llvm-ir source");
  }
  // Programs share one JITDylib; a unique name keeps two kernels both called "E_16" apart.
  std::string unique = entry + ".tg" + std::to_string(g_next_id++);
  l.LLVMSetValueName2(fn, unique.data(), unique.size());
  char* dl = l.LLVMGetDefaultTargetTriple();
  l.LLVMSetTarget(mod, dl);
  l.LLVMDisposeMessage(dl);
  l.LLVMSetModuleDataLayout(mod, l.LLVMCreateTargetDataLayout(l.passes_tm));
  LLVMPassBuilderOptionsRef opts = l.LLVMCreatePassBuilderOptions();
  LLVMErrorRef perr = nullptr;
  std::string fatal;
  if (!Guarded(l, [&] { perr = l.LLVMRunPasses(mod, "default<O2>", l.passes_tm, opts); }, &fatal))
    return MakeError(TG_CODE_INTERNAL, "llvm-ir -O2 pipeline: LLVM failed: " + fatal);  // |mod| is lost
  l.LLVMDisposePassBuilderOptions(opts);
  if (perr != nullptr) {
    l.LLVMDisposeModule(mod);
    l.LLVMOrcDisposeThreadSafeContext(tsc);
    return MakeError(TG_CODE_INTERNAL, "llvm-ir -O2 pipeline: " + TakeMessage(l, perr));
  }
  LLVMOrcThreadSafeModuleRef tsm = l.LLVMOrcCreateNewThreadSafeModule(mod, tsc);
  l.LLVMOrcDisposeThreadSafeContext(tsc);  // the module holds its own reference
  LLVMOrcResourceTrackerRef rt = l.LLVMOrcJITDylibCreateResourceTracker(l.LLVMOrcLLJITGetMainJITDylib(l.jit));
  LLVMOrcExecutorAddress addr = 0;
  LLVMErrorRef err = l.LLVMOrcLLJITAddLLVMIRModuleWithRT(l.jit, rt, tsm);
  if (err == nullptr &&
      !Guarded(l, [&] { err = l.LLVMOrcLLJITLookup(l.jit, &addr, unique.c_str()); }, &fatal))  // code generation
    return MakeError(TG_CODE_INTERNAL, "llvm-ir code generation: LLVM failed: " + fatal);  // |rt| is lost
  if (err != nullptr) {
    std::string msg = TakeMessage(l, err);
    if (LLVMErrorRef e = l.LLVMOrcResourceTrackerRemove(rt)) TakeMessage(l, e);
    l.LLVMOrcReleaseResourceTracker(rt);
    return MakeError(TG_CODE_INTERNAL, "llvm-ir code generation: " + msg);
  }
  out->fn = reinterpret_cast<tg_c_kernel_fn>(static_cast<uintptr_t>(addr));
  out->tracker = rt;
  return nullptr;
}

void JitRelease(JitKernel* kernel) {
  if (kernel == nullptr || kernel->tracker == nullptr) return;
  Llvm& l = GetLlvm();
  std::lock_guard<std::mutex> lock(g_compile_mu);
  auto rt = static_cast<LLVMOrcResourceTrackerRef>(kernel->tracker);
  if (LLVMErrorRef e = l.LLVMOrcResourceTrackerRemove(rt)) TakeMessage(l, e);
  l.LLVMOrcReleaseResourceTracker(rt);
  kernel->tracker = nullptr;
  kernel->fn = nullptr;
}

}  // namespace tg_cpu
