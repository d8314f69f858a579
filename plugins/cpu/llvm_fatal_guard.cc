// llvm_fatal_guard.cc: LLVM's fatal-error handler turned into a jump back to the guarded step.
#include "plugins/cpu/llvm_fatal_guard.h"

#include <setjmp.h>
#include <unistd.h>

#include <cstring>

namespace tg_cpu {
namespace {

struct Guard {
  sigjmp_buf jump;
  std::string reason;
};

thread_local Guard* active_guard = nullptr;

void OnLlvmFatalError(const char* reason) {
  if (Guard* g = active_guard) {
    g->reason = reason ? reason : "unknown LLVM fatal error";
    siglongjmp(g->jump, 1);
  }
  // Another thread's LLVM (PoCL shares libLLVM) failed while our handler was installed: say what LLVM
  // would have said before it exits.
  static const char kPrefix[] = "LLVM ERROR: ";
  ssize_t ignored = write(STDERR_FILENO, kPrefix, sizeof(kPrefix) - 1);
  if (reason) ignored = write(STDERR_FILENO, reason, std::strlen(reason));
  ignored = write(STDERR_FILENO, "\n", 1);
  (void)ignored;
}

}  // namespace

bool RunWithLlvmFatalGuard(LlvmInstallFatalHandlerFn install, const std::function<void()>& step,
                           std::string* reason) {
  Guard guard;
  install(&OnLlvmFatalError);
  active_guard = &guard;
  // sigsetjmp's caller must not have changed locals between the jump and their use: only |guard|
  // (read after the jump) and the arguments live across it.
  if (sigsetjmp(guard.jump, 0) == 0) {
    step();
    active_guard = nullptr;
    return true;
  }
  active_guard = nullptr;
  *reason = guard.reason;
  return false;
}

}  // namespace tg_cpu
