// Checks a generated HTML page in a real headless browser from a C++ test (tools/browser/headless_browser.py
// does the work). A test calls NoBrowserReason() first and GTEST_SKIPs with it, so a machine without
// chromium counts a visible skip rather than a pass.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace tg::browser {

struct PageReport {
  std::vector<std::string> errors;         // uncaught exceptions, console.error/warn, failed loads
  std::vector<std::string> external_refs;  // src/href leaving the page: a self-contained page has none
  std::optional<std::string> rendered;     // <body data-tg-rendered="...">, set by the page once it drew
  double inked_fraction = 0;               // of the screenshot, when one was asked for
};

// Why no page can be checked here (no browser, no python3), or nullopt when one can.
std::optional<std::string> NoBrowserReason();

// Loads |html_path|; with a non-empty |screenshot_png| also writes a |width| x |height| screenshot there.
// Throws std::runtime_error when the browser itself fails.
PageReport CheckPage(const std::string& html_path, const std::string& screenshot_png = "",
                     int width = 1280, int height = 900);

}  // namespace tg::browser
