// hiprtc_compiler.cc: the probe's verdict, then one hiprtc program in this process.
#include "plugins/hip/hiprtc_compiler.h"

#include <mutex>
#include <shared_mutex>

#include "plugins/hip/hip_api.h"
#include "plugins/hip/hiprtc_arch_probe.h"
#include "plugins/hip/hiprtc_program.h"

namespace tg_hip {

tg_error* HiprtcCompile(const std::string& source, const std::string& arch, const char* extra_options,
                        std::string* out_code_object) {
  const HipApi& h = Hip();
  if (!h.has_hiprtc) return MakeError(TG_CODE_UNAVAILABLE, "hiprtc unavailable: " + h.hiprtc_why);
  const ArchProbe& probe = ProbeArch(arch);  // before the lock: the probe takes it exclusively
  if (!probe.compiles) return MakeError(TG_CODE_UNIMPLEMENTED, probe.why);
  std::shared_lock<std::shared_mutex> lock(HiprtcForkLock());
  return CompileHiprtcProgram(source, arch, extra_options, out_code_object);
}

bool ArchCompiles(const std::string& arch) { return !Hip().has_hiprtc || ProbeArch(arch).compiles; }

}  // namespace tg_hip
