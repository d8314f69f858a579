// The `tg profile --html` timeline of a real PROFILE=1 training step, loaded in headless chromium: it loads
// without errors, references nothing outside itself, draws the trace's events, and the screenshot (the one in
// docs/profile.md and README.md) is well above blank.
#include <cstdlib>
#include <fstream>
#include <string>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "runtime/trace_recorder.h"
#include "tests/tools/profiled_training.h"
#include "tools/browser/page_check.h"
#include "tools/profile_timeline.h"

namespace tg {
namespace {

TEST(ProfileTimelinePage, DrawsATrainingStepInABrowser) {
  if (auto reason = browser::NoBrowserReason()) GTEST_SKIP() << *reason;
  runtime::SetProfilingForTesting(true);
  testing_profile::RunProfiledTrainingSteps();
  nlohmann::json trace = nlohmann::json::parse(runtime::TraceRecorder::Global().Json());
  size_t complete = 0;
  for (const nlohmann::json& e : trace["traceEvents"]) complete += e["ph"] == "X";
  ASSERT_GT(complete, 10u);

  std::string page = std::string(std::getenv("TEST_TMPDIR")) + "/timeline.html";
  std::ofstream(page) << tools::TimelineHtml(trace, "training_step.json");
  const char* outputs = std::getenv("TEST_UNDECLARED_OUTPUTS_DIR");
  std::string png = std::string(outputs != nullptr ? outputs : std::getenv("TEST_TMPDIR")) + "/profile.png";
  browser::PageReport report = browser::CheckPage(page, png, 1280, 360);
  EXPECT_TRUE(report.errors.empty()) << report.errors.front();
  EXPECT_TRUE(report.external_refs.empty()) << report.external_refs.front();
  ASSERT_TRUE(report.rendered.has_value()) << "the page never said it drew";
  EXPECT_EQ(std::stoul(*report.rendered), complete);  // the whole trace is in view at first
  EXPECT_GT(report.inked_fraction, 0.05);
}

}  // namespace
}  // namespace tg
