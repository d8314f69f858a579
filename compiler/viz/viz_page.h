// The VIZ page: one self-contained HTML file (data as JSON, script and style inline, nothing fetched) that
// browses what compiler/viz/viz_record.h and ir/rewrite_trace.h recorded (docs/viz.md).
#ifndef TG_COMPILER_VIZ_VIZ_PAGE_H_
#define TG_COMPILER_VIZ_VIZ_PAGE_H_

#include <string>
#include <string_view>

#include "compiler/viz/viz_record.h"

namespace tg::viz {

// The data the page embeds, as JSON (tests read it).
std::string VizPageJson(const VizSnapshot& snapshot);
// The page. |initial_view| is what a URL hash would say ("pass=3", "kernel=0&side=before"); the hash wins.
std::string VizPageHtml(const VizSnapshot& snapshot, std::string_view initial_view = "");

// $TG_VIZ_OUT, or tg_viz.html; a relative path is relative to the working directory (under `bazel run`,
// the directory it was started in).
std::string VizOutputPath();
// Writes the page of everything recorded so far to VizOutputPath() and says where on stderr (once per
// path). Returns the path, or "" when the file cannot be written (said on stderr too).
std::string WriteVizPage();

}  // namespace tg::viz

#endif  // TG_COMPILER_VIZ_VIZ_PAGE_H_
