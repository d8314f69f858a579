// hiprtc_arch_probe.cc: a test kernel compiled in a child process, once per arch, the verdict kept.
#include "plugins/hip/hiprtc_arch_probe.h"

#include <string.h>

#include <csignal>
#include <map>
#include <memory>
#include <mutex>

#include "plugins/hip/child_call.h"
#include "plugins/hip/hiprtc_program.h"

namespace tg_hip {
namespace {

// Small, but it uses what every generated kernel does: an extern "C" entry, a pointer, the thread
// index, float arithmetic.
constexpr char kTestKernel[] =
    "extern \"C\" __global__ void tg_arch_probe(float* x) { x[threadIdx.x] = x[threadIdx.x] * 2.0f + 1.0f; }";

// A hiprtc compile takes well under a second; the limit only stops a child that hangs (it started
// as a copy of a moment when another thread held a lock it needs) from stalling the host forever.
constexpr std::chrono::seconds kProbeTimeout(60);

// The message of |e| without the plugin's prefix, which the caller's own error will add again.
std::string TakeMessage(tg_error* e) {
  std::string m = tg_kit::ErrorMessage(e);
  tg_kit::DestroyError(e);
  const size_t prefix = strlen(tg_kit::kErrorPrefix);
  return m.compare(0, prefix, tg_kit::kErrorPrefix) == 0 ? m.substr(prefix) : m;
}

// Runs in the child: "" when the test kernel compiled.
std::string CompileTestKernel(const std::string& arch) {
  std::string code;
  tg_error* e = CompileHiprtcProgram(kTestKernel, arch, nullptr, &code);
  return e == nullptr ? "" : TakeMessage(e);
}

std::string Printed(const std::string& output) {
  size_t end = output.find_last_not_of(" \n\r\t");
  return end == std::string::npos ? "" : " (it printed: " + output.substr(0, end + 1) + ")";
}

// What happened, for an error message that stands on its own: "hiprtc 5.2 (libamdhip64.so.5)
// aborted (signal 6: Aborted) compiling a test kernel for gfx1100 in a child process ...".
std::string Explain(const std::string& arch, const ChildCallResult& r) {
  using End = ChildCallResult::End;
  const std::string hiprtc = HiprtcDescription(), test = " a test kernel for " + arch;
  const std::string refused = "; hip-c programs for " + arch + " are refused";
  switch (r.end) {
    case End::kSucceeded:
      return "";
    case End::kFailed:
      return hiprtc + " cannot compile" + test + " (tried in a child process)" + refused + ":\n" + r.message;
    case End::kSignaled:
      return hiprtc + (r.status == SIGABRT ? " aborted" : " crashed") + " (signal " + std::to_string(r.status) + ": " +
             strsignal(r.status) + ") compiling" + test + " in a child process" + Printed(r.output) + refused +
             ", as it would take this process down";
    case End::kExited:
      return hiprtc + " ended its process (exit status " + std::to_string(r.status) + ") compiling" + test +
             " in a child process" + Printed(r.output) + refused;
    case End::kTimedOut:
      return hiprtc + " did not finish compiling" + test + " in a child process within " +
             std::to_string(kProbeTimeout.count()) + " s" + Printed(r.output) + refused;
    case End::kNotRun:
      break;
  }
  return "could not start a child process to try " + hiprtc + " on" + test + " (" + r.message + ")" + refused +
         " rather than risk hiprtc aborting this process";
}

ArchProbe RunProbe(const std::string& arch) {
  ChildCallResult r = CallInChild([&arch] { return CompileTestKernel(arch); },
                                  std::chrono::duration_cast<std::chrono::milliseconds>(kProbeTimeout),
                                  &HiprtcForkLock());
  ArchProbe p;
  p.compiles = r.end == ChildCallResult::End::kSucceeded;
  p.why = Explain(arch, r);
  return p;
}

struct Entry {
  std::once_flag once;
  ArchProbe probe;
};

}  // namespace

const ArchProbe& ProbeArch(const std::string& arch) {
  static std::mutex mu;
  static auto* entries = new std::map<std::string, std::unique_ptr<Entry>>;  // never destroyed: verdicts outlive every caller, even at exit
  Entry* e = nullptr;
  {
    std::lock_guard<std::mutex> lock(mu);
    std::unique_ptr<Entry>& slot = (*entries)[arch];
    if (slot == nullptr) slot = std::make_unique<Entry>();
    e = slot.get();
  }
  // Outside |mu|: a probe takes up to a second, and other archs need not wait for it.
  std::call_once(e->once, [e, &arch] { e->probe = RunProbe(arch); });
  return e->probe;
}

}  // namespace tg_hip
