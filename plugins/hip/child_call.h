// child_call.h: runs a function in a forked copy of this process, so that whatever it does to its
// process (abort, a crash, corrupting the heap) happens to the copy, and reports how it ended.
// For calls into vendor code that may take the process down: hiprtc aborts for some architectures.
#ifndef TG_PLUGINS_HIP_CHILD_CALL_H_
#define TG_PLUGINS_HIP_CHILD_CALL_H_

#include <chrono>
#include <functional>
#include <shared_mutex>
#include <string>

namespace tg_hip {

struct ChildCallResult {
  enum class End {
    kSucceeded,  // |body| returned ""
    kFailed,     // |body| returned a message (in |message|) or threw
    kSignaled,   // the child was killed by signal |status| before |body| returned
    kExited,     // the child exited with status |status| (-1: unknown) before |body| returned
    kTimedOut,   // |body| had not returned by the deadline; the child was killed
    kNotRun,     // no child was started: |message| says why (pipe, fork)
  };
  End end = End::kNotRun;
  std::string message;
  int status = 0;
  std::string output;  // the last few KiB the child wrote to its stdout and stderr
};

// Forks; the child resets the crash signals to their defaults (a host's crash handler must not turn
// a crash into an ordinary exit), sends its stdout and stderr to the parent, runs |body| and
// _exit()s without running this process's exit handlers. |body| returns "" for success, else what
// went wrong. The child is a copy of the calling thread alone: a lock another thread held at fork()
// stays held there for good. |fork_lock| (when not NULL) is held exclusively across fork(), so a
// thread that holds it shared while it calls what |body| calls is never copied mid-call; a child that
// waits on a lock anyway is killed after |timeout|.
// Whatever the child does, the result says so; only the parent's own allocations can throw.
ChildCallResult CallInChild(const std::function<std::string()>& body, std::chrono::milliseconds timeout,
                            std::shared_mutex* fork_lock);

}  // namespace tg_hip

#endif  // TG_PLUGINS_HIP_CHILD_CALL_H_
