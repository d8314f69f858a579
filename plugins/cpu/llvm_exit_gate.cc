#include "plugins/cpu/llvm_exit_gate.h"

#include <cstdlib>

namespace tg_cpu {

LlvmExitGate& LlvmExitGate::Get() {
  static auto* gate = new LlvmExitGate();
  return *gate;
}

void LlvmExitGate::CloseAtExit() {
  std::atexit([] { Get().CloseAndWait(); });
}

bool LlvmExitGate::Enter() {
  std::lock_guard<std::mutex> lock(mu_);
  if (closed_) return false;
  ++inside_;
  return true;
}

void LlvmExitGate::Leave() {
  std::lock_guard<std::mutex> lock(mu_);
  if (--inside_ == 0) idle_.notify_all();
}

void LlvmExitGate::CloseAndWait() {
  std::unique_lock<std::mutex> lock(mu_);
  closed_ = true;
  idle_.wait(lock, [this] { return inside_ == 0; });
}

}  // namespace tg_cpu
