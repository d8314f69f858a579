// manifest_entry.h: one rendered kernel as an entry of the host corpus's manifest.json, the file the
// CTS reads (plugins/cts/host_corpus.h parses it; docs/plugins.md describes its fields).
#ifndef TG_TOOLS_CTS_CORPUS_MANIFEST_ENTRY_H_
#define TG_TOOLS_CTS_CORPUS_MANIFEST_ENTRY_H_

#include <string>

#include "compiler/codegen/codegen.h"
#include "compiler/schedule/schedule_item.h"
#include "nlohmann/json.hpp"
#include "tools/cts_corpus/host_kernels.h"

namespace tg::cts_corpus {

// |file| is the kernel's source, relative to the manifest; |gpu| says the dialect is a GPU one
// (compiler::Target::gpu), where float16 needs the device's TG_CAP_FP16. Arguments follow |item|'s parameter
// order: its buffers (the output first), then its variables. tg::Error when the kernel reads a
// buffer or variable that |kernel| gives no data for.
nlohmann::ordered_json ManifestEntry(const std::string& dialect, bool gpu, const std::string& file, const HostKernel& kernel,
                                     const compiler::ScheduleItem& item, const compiler::GeneratedKernel& generated);

}  // namespace tg::cts_corpus

#endif  // TG_TOOLS_CTS_CORPUS_MANIFEST_ENTRY_H_
