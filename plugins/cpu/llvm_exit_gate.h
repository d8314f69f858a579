// llvm_exit_gate.h: keeps compiles and links out of LLVM once the process has begun to exit.
//
// libLLVM is dlopen()ed on first use, and its static objects register their destructors with exit as
// it loads. The host compiles kernels on its task pool and need not wait for them (a kernel moved to the
// optimized tier in the background, a realize that threw), so a compile can still be inside LLVM while
// exit destroys its pass registry. The gate's handler, registered with atexit right after the dlopen,
// runs before those destructors: it turns new work away and waits for the work inside.
#ifndef TG_PLUGINS_CPU_LLVM_EXIT_GATE_H_
#define TG_PLUGINS_CPU_LLVM_EXIT_GATE_H_

#include <condition_variable>
#include <mutex>

namespace tg_cpu {

class LlvmExitGate {
 public:
  // The process's gate (leaked: exit must not destroy it while a compile waits on it).
  static LlvmExitGate& Get();
  // Registers CloseAndWait with atexit; call once, right after LLVM is loaded.
  void CloseAtExit();

  // Entry for one compile or link: false once the process is exiting (then do not touch LLVM).
  bool Enter();
  void Leave();

 private:
  void CloseAndWait();

  std::mutex mu_;
  std::condition_variable idle_;
  int inside_ = 0;
  bool closed_ = false;
};

// Enter() ... Leave() for a scope; ok() says whether it got in.
class LlvmExitGateEntry {
 public:
  LlvmExitGateEntry() : ok_(LlvmExitGate::Get().Enter()) {}
  ~LlvmExitGateEntry() {
    if (ok_) LlvmExitGate::Get().Leave();
  }
  LlvmExitGateEntry(const LlvmExitGateEntry&) = delete;
  LlvmExitGateEntry& operator=(const LlvmExitGateEntry&) = delete;
  bool ok() const { return ok_; }

 private:
  bool ok_;
};

}  // namespace tg_cpu

#endif  // TG_PLUGINS_CPU_LLVM_EXIT_GATE_H_
