// dialect_targets.h: the devices the CTS's host corpus is rendered for, one per dialect the host emits.
// Each is a runtime::DeviceInfo made up by hand (no plugin is asked), with limits every real device of
// that dialect meets, so a kernel rendered for it runs on any conforming plugin that declares the dialect.
#ifndef TG_TOOLS_CTS_CORPUS_DIALECT_TARGETS_H_
#define TG_TOOLS_CTS_CORPUS_DIALECT_TARGETS_H_

#include <string>
#include <vector>

#include "runtime/device_info.h"

namespace tg::cts_corpus {

struct DialectTarget {
  std::string dialect;  // "c", "llvm-ir", "opencl-c", "cuda-c", "hip-c", "ptx", "tg-uops"
  std::string ext;      // the kernel files' extension: ".c", ".ll", ".cl", ".cu", ".hip", ".ptx", ".uops"
  runtime::DeviceInfo device;
};

// Every dialect the host's renderers emit for a plugin (wgsl has no plugin in the ABI's list yet).
std::vector<DialectTarget> DialectTargets();

}  // namespace tg::cts_corpus

#endif  // TG_TOOLS_CTS_CORPUS_DIALECT_TARGETS_H_
