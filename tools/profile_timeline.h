// profile_timeline.h: `tg profile --html`: a PROFILE=1 trace as one self-contained page (no network, opens
// from disk) for a browser without Perfetto: a row per lane and thread, zoom by wheel or by dragging a range,
// hover for an event's arguments (docs/profile.md).
#ifndef TG_TOOLS_PROFILE_TIMELINE_H_
#define TG_TOOLS_PROFILE_TIMELINE_H_

#include <string>

#include "nlohmann/json.hpp"

namespace tg::tools {

// The page, with |trace|'s events embedded. Once drawn it sets document.body.dataset.tgRendered to the
// number of events it drew. |title| heads the page (the trace's file name).
std::string TimelineHtml(const nlohmann::json& trace, const std::string& title);

}  // namespace tg::tools

#endif  // TG_TOOLS_PROFILE_TIMELINE_H_
