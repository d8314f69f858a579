// llvm_fatal_guard.h: runs one step of the in-process LLVM compile so that an LLVM fatal error inside
// it ("Cannot select: ...", report_fatal_error anywhere in the pass pipeline or code generator) comes
// back as a message instead of ending the user's process. Plugin-internal, beside llvm_jit.h.
#ifndef TG_PLUGINS_CPU_LLVM_FATAL_GUARD_H_
#define TG_PLUGINS_CPU_LLVM_FATAL_GUARD_H_

#include <functional>
#include <string>

namespace tg_cpu {

// libLLVM's LLVMInstallFatalErrorHandler (llvm-c/ErrorHandling.h), as resolved from the dlopen()ed library.
using LlvmInstallFatalHandlerFn = void (*)(void (*)(const char* reason));

// Runs |step|. Returns true when it finished; false when LLVM reported a fatal error inside it, with
// LLVM's reason in |*reason|. LLVM calls exit() once a fatal-error handler returns, so the handler
// jumps back here instead (as LLVM's own CrashRecoveryContext does): the frames of LLVM between are
// abandoned, with what they allocated. The caller must therefore treat every LLVM object the step was
// working on as lost (leak it; do not free or reuse it). The handler is process-wide and stays installed
// (installing it again is idempotent), while the jump target is per thread, so guarded steps may run on
// several threads at once. A fatal error on a thread with no guarded step running (PoCL shares
// libLLVM) is printed as LLVM prints it and then ends the process, as without the guard.
bool RunWithLlvmFatalGuard(LlvmInstallFatalHandlerFn install, const std::function<void()>& step,
                           std::string* reason);

}  // namespace tg_cpu

#endif  // TG_PLUGINS_CPU_LLVM_FATAL_GUARD_H_
