// hiprtc_compiler.h: HIP C++ -> AMDGPU code object ("hsaco") through hiprtc, limited to the
// architectures hiprtc 5.2 compiles without aborting the process.
#ifndef TG_PLUGINS_HIP_HIPRTC_COMPILER_H_
#define TG_PLUGINS_HIP_HIPRTC_COMPILER_H_

#include <string>

#include "plugins/hip/hip_error.h"

namespace tg_hip {

// "gfx90a, gfx908, gfx1030": hiprtc in libamdhip64 5.2.3 calls abort() for gfx1100 and gfx942
//, which would take the host process down, so nothing else reaches it.
const char* AllowedArchList();
bool ArchAllowed(const std::string& arch);

// Compiles |source| with --offload-arch=|arch| (plus |extra_options|, whitespace-separated, may be
// NULL). UNIMPLEMENTED for an arch outside the allow-list (the message names the list);
// UNAVAILABLE without hiprtc; INVALID_ARGUMENT with the full log when compilation fails.
tg_error* HiprtcCompile(const std::string& source, const std::string& arch, const char* extra_options,
                        std::string* out_code_object);

// "hiprtc 5.2 (libamdhip64.so.5)", "hiprtc 6.2 (libhiprtc.so.6)", or "" without hiprtc. Part of
// the compile fingerprint.
std::string HiprtcDescription();

}  // namespace tg_hip

#endif  // TG_PLUGINS_HIP_HIPRTC_COMPILER_H_
