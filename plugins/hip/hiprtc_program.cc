// hiprtc_program.cc: one hiprtc program per compile, its log on failure.
#include "plugins/hip/hiprtc_program.h"

#include <sstream>
#include <vector>

#include "plugins/hip/hip_api.h"

namespace tg_hip {
namespace {

std::string ProgramLog(hiprtcProgram prog) {
  size_t n = 0;
  if (Hip().hiprtcGetProgramLogSize(prog, &n) != HIPRTC_SUCCESS || n == 0) return "";
  std::string log(n, '\0');
  if (Hip().hiprtcGetProgramLog(prog, log.data()) != HIPRTC_SUCCESS) return "";
  while (!log.empty() && log.back() == '\0') log.pop_back();
  return log;
}

tg_error* TakeCode(hiprtcProgram prog, std::string* out) {
  size_t n = 0;
  if (Hip().hiprtcGetCodeSize(prog, &n) != HIPRTC_SUCCESS || n == 0) {
    return MakeError(TG_CODE_INTERNAL, "hiprtc produced no code object");
  }
  out->assign(n, '\0');
  hiprtcResult r = Hip().hiprtcGetCode(prog, out->data());
  return r == HIPRTC_SUCCESS ? nullptr : MakeError(TG_CODE_INTERNAL, Hip().hiprtcGetErrorString(r));
}

}  // namespace

tg_error* CompileHiprtcProgram(const std::string& source, const std::string& arch, const char* extra_options,
                               std::string* out_code_object) {
  const HipApi& h = Hip();
  if (!h.has_hiprtc) return MakeError(TG_CODE_UNAVAILABLE, "hiprtc unavailable: " + h.hiprtc_why);
  std::vector<std::string> opts = {"--offload-arch=" + arch};
  if (extra_options != nullptr) {
    std::istringstream in(extra_options);
    for (std::string o; in >> o;) opts.push_back(o);
  }
  std::vector<const char*> argv;
  for (const std::string& o : opts) argv.push_back(o.c_str());
  hiprtcProgram prog = nullptr;
  hiprtcResult r = h.hiprtcCreateProgram(&prog, source.c_str(), "tg_kernel.hip", 0, nullptr, nullptr);
  if (r != HIPRTC_SUCCESS) return MakeError(TG_CODE_INTERNAL, std::string("hiprtcCreateProgram: ") + h.hiprtcGetErrorString(r));
  r = h.hiprtcCompileProgram(prog, int(argv.size()), argv.data());
  tg_error* err = nullptr;
  if (r != HIPRTC_SUCCESS) {
    err = MakeError(TG_CODE_INVALID_ARGUMENT, std::string("hiprtc compile failed (") + h.hiprtcGetErrorString(r) +
                                                  ") for " + arch + "\nlog:\n" + ProgramLog(prog));
  } else {
    err = TakeCode(prog, out_code_object);
  }
  h.hiprtcDestroyProgram(&prog);
  return err;
}

std::shared_mutex& HiprtcForkLock() {
  static std::shared_mutex lock;
  return lock;
}

std::string HiprtcDescription() {
  const HipApi& h = Hip();
  if (!h.has_hiprtc) return "";
  int major = 0, minor = 0;
  h.hiprtcVersion(&major, &minor);
  return "hiprtc " + std::to_string(major) + "." + std::to_string(minor) + " (" + h.hiprtc_library + ")";
}

}  // namespace tg_hip
