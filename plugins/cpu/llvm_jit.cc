// llvm_jit.cc: "llvm-ir" kernels compiled in-process by LLVM 15 into object code, linked by ORC LLJIT.
#include "plugins/cpu/llvm_jit.h"

#include <dlfcn.h>
#include <elf.h>
#include <string.h>

#include <functional>
#include <map>
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
#include "plugins/cpu/llvm_exit_gate.h"
#include "plugins/cpu/disk_cache.h"
#include "plugins/cpu/llvm_fatal_guard.h"

namespace tg_cpu {
namespace {

// Every LLVM C function the JIT calls, resolved with dlsym (the declarations give the types only).
#define TG_LLVM_FUNCTIONS(X)                                                                         \
  X(LLVMInitializeX86TargetInfo) X(LLVMInitializeX86Target) X(LLVMInitializeX86TargetMC)             \
  X(LLVMInitializeX86AsmPrinter) X(LLVMGetDefaultTargetTriple) X(LLVMGetHostCPUName)                 \
  X(LLVMGetHostCPUFeatures) X(LLVMGetTargetFromTriple) X(LLVMCreateTargetMachine)                    \
  X(LLVMDisposeTargetMachine) X(LLVMCreateTargetDataLayout) X(LLVMDisposeTargetData)                 \
  X(LLVMSetModuleDataLayout) X(LLVMSetTarget) X(LLVMDisposeMessage) X(LLVMContextCreate)             \
  X(LLVMContextDispose) X(LLVMCreateMemoryBufferWithMemoryRangeCopy) X(LLVMParseIRInContext)         \
  X(LLVMVerifyModule) X(LLVMGetNamedFunction) X(LLVMSetValueName2) X(LLVMDisposeModule)              \
  X(LLVMCreatePassBuilderOptions) X(LLVMDisposePassBuilderOptions) X(LLVMRunPasses)                  \
  X(LLVMTargetMachineEmitToMemoryBuffer) X(LLVMGetBufferStart) X(LLVMGetBufferSize)                  \
  X(LLVMDisposeMemoryBuffer) X(LLVMGetErrorMessage) X(LLVMDisposeErrorMessage)                       \
  X(LLVMOrcJITTargetMachineBuilderCreateFromTargetMachine) X(LLVMOrcCreateLLJITBuilder)               \
  X(LLVMOrcLLJITBuilderSetJITTargetMachineBuilder) X(LLVMOrcCreateLLJIT) X(LLVMOrcLLJITGetMainJITDylib) \
  X(LLVMOrcLLJITGetGlobalPrefix) X(LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess)             \
  X(LLVMOrcJITDylibAddGenerator) X(LLVMOrcJITDylibCreateResourceTracker)                             \
  X(LLVMOrcLLJITAddObjectFileWithRT) X(LLVMOrcLLJITLookup) X(LLVMOrcResourceTrackerRemove)            \
  X(LLVMOrcReleaseResourceTracker) X(LLVMInstallFatalErrorHandler)

struct Llvm {
#define TG_DECLARE(f) decltype(&::f) f = nullptr;
  TG_LLVM_FUNCTIONS(TG_DECLARE)
#undef TG_DECLARE
  std::string triple, cpu, features;  // the host, as LLVM names it
  std::string target;                 // cpu + features: what every object here is generated for
  LLVMTargetRef llvm_target = nullptr;
  LLVMOrcLLJITRef jit = nullptr;
  std::string error;  // why LLVM is unusable; empty when it works
};

std::string TakeMessage(const Llvm& l, LLVMErrorRef e) {
  char* m = l.LLVMGetErrorMessage(e);
  std::string s = m ? m : "unknown LLVM error";
  l.LLVMDisposeErrorMessage(m);
  return s;
}

std::string TakeString(const Llvm& l, char* s) {
  std::string out = s ? s : "";
  l.LLVMDisposeMessage(s);
  return out;
}

// A target machine for the host (CPU name + every feature, AVX-512 included). One per compile:
// a target machine is not safe to share between threads generating code. The JIT's code model, so
// objects link like the IR the JIT compiled itself would have.
LLVMTargetMachineRef HostMachine(const Llvm& l) {
  return l.LLVMCreateTargetMachine(l.llvm_target, l.triple.c_str(), l.cpu.c_str(), l.features.c_str(),
                                   LLVMCodeGenLevelDefault, LLVMRelocDefault, LLVMCodeModelJITDefault);
}

void CreateJit(Llvm& l) {
  l.LLVMInitializeX86TargetInfo();
  l.LLVMInitializeX86Target();
  l.LLVMInitializeX86TargetMC();
  l.LLVMInitializeX86AsmPrinter();
  l.triple = TakeString(l, l.LLVMGetDefaultTargetTriple());
  l.cpu = TakeString(l, l.LLVMGetHostCPUName());
  l.features = TakeString(l, l.LLVMGetHostCPUFeatures());
  l.target = l.triple + " " + l.cpu + " " + l.features;
  char* err = nullptr;
  if (l.LLVMGetTargetFromTriple(l.triple.c_str(), &l.llvm_target, &err) != 0) {
    l.error = "no LLVM target for the host: " + TakeString(l, err);
    return;
  }
  LLVMTargetMachineRef jit_tm = HostMachine(l);  // LLJIT takes ownership
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

// Parses and verifies |ir| into a module of |ctx|, or returns the diagnostic in |why|.
LLVMModuleRef Parse(const Llvm& l, LLVMContextRef ctx, std::string_view ir, std::string* why) {
  LLVMMemoryBufferRef buf = l.LLVMCreateMemoryBufferWithMemoryRangeCopy(ir.data(), ir.size(), "kernel.ll");
  LLVMModuleRef mod = nullptr;
  char* msg = nullptr;
  if (l.LLVMParseIRInContext(ctx, buf, &mod, &msg) != 0) {  // takes |buf|
    *why = "LLVM IR does not parse: " + TakeString(l, msg);
    return nullptr;
  }
  if (l.LLVMVerifyModule(mod, LLVMReturnStatusAction, &msg) != 0) {
    *why = "LLVM IR does not verify: " + TakeString(l, msg);
    l.LLVMDisposeModule(mod);
    return nullptr;
  }
  l.LLVMDisposeMessage(msg);
  return mod;
}

// Runs |step| with LLVM's fatal errors returned in |fatal| (false) instead of exiting the process.
bool Guarded(const Llvm& l, const std::function<void()>& step, std::string* fatal) {
  return RunWithLlvmFatalGuard(l.LLVMInstallFatalErrorHandler, step, fatal);
}

// -O2 for the host, then object code into |out|. |mod| stays the caller's, unless LLVM failed fatally
// inside (|*lost|): then the module, its context and the target machine are abandoned, never freed.
tg_error* OptimizeAndEmit(const Llvm& l, LLVMModuleRef mod, std::string* out, bool* lost) {
  LLVMTargetMachineRef tm = HostMachine(l);
  l.LLVMSetTarget(mod, l.triple.c_str());
  LLVMTargetDataRef layout = l.LLVMCreateTargetDataLayout(tm);
  l.LLVMSetModuleDataLayout(mod, layout);
  l.LLVMDisposeTargetData(layout);
  LLVMPassBuilderOptionsRef opts = l.LLVMCreatePassBuilderOptions();
  LLVMErrorRef perr = nullptr;
  std::string fatal;
  if (!Guarded(l, [&] { perr = l.LLVMRunPasses(mod, "default<O2>", tm, opts); }, &fatal)) {
    *lost = true;
    return MakeError(TG_CODE_INTERNAL, "llvm-ir -O2 pipeline: LLVM failed: " + fatal);
  }
  l.LLVMDisposePassBuilderOptions(opts);
  tg_error* result = nullptr;
  char* msg = nullptr;
  LLVMMemoryBufferRef buf = nullptr;
  LLVMBool emit_failed = 0;
  if (perr != nullptr) {
    result = MakeError(TG_CODE_INTERNAL, "llvm-ir -O2 pipeline: " + TakeMessage(l, perr));
  } else if (!Guarded(
                 l, [&] { emit_failed = l.LLVMTargetMachineEmitToMemoryBuffer(tm, mod, LLVMObjectFile, &msg, &buf); },
                 &fatal)) {
    *lost = true;
    return MakeError(TG_CODE_INTERNAL, "llvm-ir code generation: LLVM failed: " + fatal);
  } else if (emit_failed != 0) {
    result = MakeError(TG_CODE_INTERNAL, "llvm-ir code generation: " + TakeString(l, msg));
  } else {
    out->assign(l.LLVMGetBufferStart(buf), l.LLVMGetBufferSize(buf));
    l.LLVMDisposeMemoryBuffer(buf);
  }
  l.LLVMDisposeTargetMachine(tm);
  return result;
}

// Whether |bytes| is what JitCompile emits: a 64-bit little-endian x86-64 ELF relocatable object.
bool IsX86Object(std::string_view bytes) {
  if (bytes.size() < sizeof(Elf64_Ehdr)) return false;
  Elf64_Ehdr h;
  memcpy(&h, bytes.data(), sizeof h);
  return memcmp(h.e_ident, ELFMAG, SELFMAG) == 0 && h.e_ident[EI_CLASS] == ELFCLASS64 &&
         h.e_ident[EI_DATA] == ELFDATA2LSB && h.e_type == ET_REL && h.e_machine == EM_X86_64;
}

// Code in the JIT by symbol, shared by every program that loaded the same object.
struct Linked {
  LLVMOrcResourceTrackerRef tracker = nullptr;
  tg_c_kernel_fn fn = nullptr;
  int users = 0;
};
std::mutex g_link_mu;  // LLJIT links one object at a time; guards g_linked
std::map<std::string, Linked>& LinkedCode() {
  static auto* linked = new std::map<std::string, Linked>;
  return *linked;
}

}  // namespace

const std::string& JitHostTarget() {
  const Llvm& l = GetLlvm();
  static const std::string* none = new std::string();  // leaked: compiles may run while the process exits
  return l.error.empty() ? l.target : *none;
}

// A kernel in the shape the llvm-ir renderer writes (loops, i32-indexed vectors of several widths, an
// intrinsic): compiling it once constructs the function-local statics of LLVM's passes and instruction
// selection, which register their destructors with exit as they are first made.
constexpr char kWarmUpIr[] = R"(
define void @tg_warm_up(ptr noalias %a, ptr noalias %b, i32 %n) nounwind {
entry:
  br label %loop
loop:
  %i = phi i32 [0, %entry], [%i.next, %loop]
  %pa = getelementptr inbounds float, ptr %a, i32 %i
  %va = load <16 x float>, ptr %pa, align 4
  %pb = getelementptr inbounds float, ptr %b, i32 %i
  %vb = load <8 x float>, ptr %pb, align 4
  %vc = load <3 x double>, ptr %pb, align 8
  %m = fmul contract <16 x float> %va, %va
  %e = call <8 x float> @llvm.exp2.v8f32(<8 x float> %vb)
  %lt = fcmp olt <8 x float> %e, %vb
  %s = select <8 x i1> %lt, <8 x float> %vb, <8 x float> %e
  %d = fadd <3 x double> %vc, %vc
  store <16 x float> %m, ptr %pa, align 4
  store <8 x float> %s, ptr %pb, align 4
  store <3 x double> %d, ptr %pb, align 8
  %i.next = add nsw i32 %i, 16
  %c = icmp slt i32 %i.next, %n
  br i1 %c, label %loop, label %exit
exit:
  ret void
}
declare <8 x float> @llvm.exp2.v8f32(<8 x float>)
)";

// Once per process, before the first compile: the warm-up kernel, then the exit gate's handler, which
// exit therefore runs before the destructors of what the warm-up made.
void WarmUpThenGuardExit(const Llvm& l) {
  static std::once_flag once;
  std::call_once(once, [&l] {
    LLVMContextRef ctx = l.LLVMContextCreate();
    std::string why, object;
    bool lost = false;
    if (LLVMModuleRef mod = Parse(l, ctx, kWarmUpIr, &why)) {
      if (tg_error* e = OptimizeAndEmit(l, mod, &object, &lost)) tg_kit::DestroyError(e);
      if (!lost) l.LLVMDisposeModule(mod);
    }
    if (!lost) l.LLVMContextDispose(ctx);
    LlvmExitGate::Get().CloseAtExit();
  });
}

tg_error* JitCompile(std::string_view ir, const std::string& entry, JitObject* out) {
  Llvm& l = GetLlvm();
  if (!l.error.empty()) return MakeError(TG_CODE_UNAVAILABLE, "llvm-ir: " + l.error);
  WarmUpThenGuardExit(l);
  LlvmExitGateEntry inside;
  if (!inside.ok()) return MakeError(TG_CODE_UNAVAILABLE, "llvm-ir: the process is exiting");
  LLVMContextRef ctx = l.LLVMContextCreate();
  std::string why;
  LLVMModuleRef mod = Parse(l, ctx, ir, &why);
  if (mod == nullptr) {
    l.LLVMContextDispose(ctx);
    return MakeError(TG_CODE_INVALID_ARGUMENT, "program_compile: " + why);
  }
  LLVMValueRef fn = l.LLVMGetNamedFunction(mod, entry.c_str());
  if (fn == nullptr) {
    l.LLVMDisposeModule(mod);
    l.LLVMContextDispose(ctx);
    return MakeError(TG_CODE_NOT_FOUND, "entry point '" + entry + "' not defined in the llvm-ir source");
  }
  // Programs share one JITDylib; a name from the source keeps two kernels both called "E_16" apart
  // and gives a cached object the same name in every process.
  out->symbol = entry + ".tg" + HashHex({ir});
  l.LLVMSetValueName2(fn, out->symbol.data(), out->symbol.size());
  out->target = l.target;
  bool lost = false;
  tg_error* e = OptimizeAndEmit(l, mod, &out->object, &lost);
  if (!lost) {
    l.LLVMDisposeModule(mod);
    l.LLVMContextDispose(ctx);
  }
  return e;
}

tg_error* JitLoad(const JitObject& object, JitKernel* out) {
  Llvm& l = GetLlvm();
  if (!l.error.empty()) return MakeError(TG_CODE_UNAVAILABLE, "llvm-ir: " + l.error);
  LlvmExitGateEntry inside;
  if (!inside.ok()) return MakeError(TG_CODE_UNAVAILABLE, "llvm-ir: the process is exiting");
  if (object.target != l.target) {
    return MakeError(TG_CODE_FAILED_PRECONDITION, "llvm-ir object was generated for '" + object.target +
                                                      "', this host is '" + l.target + "'");
  }
  if (!IsX86Object(object.object)) {
    return MakeError(TG_CODE_FAILED_PRECONDITION, "llvm-ir object is not an x86-64 ELF relocatable object");
  }
  std::lock_guard<std::mutex> lock(g_link_mu);
  Linked& linked = LinkedCode()[object.symbol];
  if (linked.fn == nullptr) {
    LLVMOrcResourceTrackerRef rt = l.LLVMOrcJITDylibCreateResourceTracker(l.LLVMOrcLLJITGetMainJITDylib(l.jit));
    LLVMMemoryBufferRef buf = l.LLVMCreateMemoryBufferWithMemoryRangeCopy(object.object.data(), object.object.size(),
                                                                          object.symbol.c_str());
    LLVMOrcExecutorAddress addr = 0;
    LLVMErrorRef err = l.LLVMOrcLLJITAddObjectFileWithRT(l.jit, rt, buf);  // takes |buf|
    std::string fatal;
    if (err == nullptr &&
        !Guarded(l, [&] { err = l.LLVMOrcLLJITLookup(l.jit, &addr, object.symbol.c_str()); }, &fatal)) {
      LinkedCode().erase(object.symbol);  // |rt| is lost with LLVM's abandoned frames
      return MakeError(TG_CODE_INTERNAL, "llvm-ir object linking: LLVM failed: " + fatal);
    }
    if (err != nullptr) {
      std::string msg = TakeMessage(l, err);
      if (LLVMErrorRef e = l.LLVMOrcResourceTrackerRemove(rt)) TakeMessage(l, e);
      l.LLVMOrcReleaseResourceTracker(rt);
      LinkedCode().erase(object.symbol);
      return MakeError(TG_CODE_FAILED_PRECONDITION, "llvm-ir object does not link: " + msg);
    }
    linked.tracker = rt;
    linked.fn = reinterpret_cast<tg_c_kernel_fn>(static_cast<uintptr_t>(addr));
  }
  ++linked.users;
  out->fn = linked.fn;
  out->symbol = object.symbol;
  return nullptr;
}

void JitRelease(JitKernel* kernel) {
  if (kernel == nullptr || kernel->symbol.empty()) return;
  LlvmExitGateEntry inside;
  if (!inside.ok()) return;  // exiting: the code goes with the process
  Llvm& l = GetLlvm();
  std::lock_guard<std::mutex> lock(g_link_mu);
  auto it = LinkedCode().find(kernel->symbol);
  if (it != LinkedCode().end() && --it->second.users == 0) {
    if (LLVMErrorRef e = l.LLVMOrcResourceTrackerRemove(it->second.tracker)) TakeMessage(l, e);
    l.LLVMOrcReleaseResourceTracker(it->second.tracker);
    LinkedCode().erase(it);
  }
  kernel->symbol.clear();
  kernel->fn = nullptr;
}

}  // namespace tg_cpu
