// hiprtc_program.h: one hiprtc compile in this process, with no question asked about the arch, and
// the description of the hiprtc in use. The arch probe (hiprtc_arch_probe.h) runs this in a child
// process; everything else reaches it through HiprtcCompile (hiprtc_compiler.h), after the probe.
#ifndef TG_PLUGINS_HIP_HIPRTC_PROGRAM_H_
#define TG_PLUGINS_HIP_HIPRTC_PROGRAM_H_

#include <shared_mutex>
#include <string>

#include "plugins/hip/hip_error.h"

namespace tg_hip {

// Compiles |source| with --offload-arch=|arch| (plus |extra_options|, whitespace-separated, may be
// NULL). UNAVAILABLE without hiprtc; INVALID_ARGUMENT with the full log when compilation fails.
// hiprtc may abort the process for an arch it does not support: callers in the host process go
// through HiprtcCompile, which asks the probe first.
tg_error* CompileHiprtcProgram(const std::string& source, const std::string& arch, const char* extra_options,
                               std::string* out_code_object);

// Taken shared around every hiprtc compile in the host process and exclusively across the probe's
// fork(), so no probe process starts as a copy of a moment when another thread was inside hiprtc
// holding one of its locks (the copy would wait for that lock forever).
std::shared_mutex& HiprtcForkLock();

// "hiprtc 5.2 (libamdhip64.so.5)", "hiprtc 6.2 (libhiprtc.so.6)", or "" without hiprtc. Part of
// the compile fingerprint.
std::string HiprtcDescription();

}  // namespace tg_hip

#endif  // TG_PLUGINS_HIP_HIPRTC_PROGRAM_H_
