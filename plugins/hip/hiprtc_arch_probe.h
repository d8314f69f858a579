// hiprtc_arch_probe.h: whether this process's hiprtc can compile for an arch, found out by compiling
// a test kernel for it in a child process. hiprtc has no query for the architectures it supports,
// and the hiprtc in libamdhip64 5.2 does not fail for one it predates (gfx942, gfx1100): it
// corrupts its heap and aborts, which would take the host process down.
#ifndef TG_PLUGINS_HIP_HIPRTC_ARCH_PROBE_H_
#define TG_PLUGINS_HIP_HIPRTC_ARCH_PROBE_H_

#include <string>

namespace tg_hip {

struct ArchProbe {
  bool compiles = false;  // the test kernel compiled: hiprtc may be called for this arch in-process
  std::string why;        // when not: the arch, the hiprtc, and what happened in the child
};

// The probe's verdict on |arch| (the bare name, "gfx90a"): the child process runs once per arch per
// process, and every later call returns the first verdict (the same object, alive for the
// process). Call only with hiprtc present (Hip().has_hiprtc). Thread-safe; calls for one arch wait
// for its probe, other archs do not.
const ArchProbe& ProbeArch(const std::string& arch);

}  // namespace tg_hip

#endif  // TG_PLUGINS_HIP_HIPRTC_ARCH_PROBE_H_
