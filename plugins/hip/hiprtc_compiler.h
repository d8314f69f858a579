// hiprtc_compiler.h: HIP C++ -> AMDGPU code object ("hsaco") through hiprtc, for the architectures
// hiprtc compiles a test kernel for in a child process first (hiprtc_arch_probe.h): hiprtc 5.2
// aborts the process for architectures it predates instead of failing.
#ifndef TG_PLUGINS_HIP_HIPRTC_COMPILER_H_
#define TG_PLUGINS_HIP_HIPRTC_COMPILER_H_

#include <string>

#include "plugins/hip/hip_error.h"

namespace tg_hip {

// Compiles |source| with --offload-arch=|arch| (plus |extra_options|, whitespace-separated, may be
// NULL). UNAVAILABLE without hiprtc; UNIMPLEMENTED for an arch the probe refused (the message names
// the arch, the hiprtc and what happened in the probe); INVALID_ARGUMENT with the full log when
// compilation fails. The first call for an arch waits for its probe.
tg_error* HiprtcCompile(const std::string& source, const std::string& arch, const char* extra_options,
                        std::string* out_code_object);

// False only when hiprtc is present and its probe refused |arch|: the device then has no source
// dialect. Runs the probe for |arch| if it has not run.
bool ArchCompiles(const std::string& arch);

}  // namespace tg_hip

#endif  // TG_PLUGINS_HIP_HIPRTC_COMPILER_H_
