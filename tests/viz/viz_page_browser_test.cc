// The VIZ page of one small training step (matmul, relu, sum, backward) in a real headless browser: it loads
// without errors, fetches nothing, draws the tensor graph (data-tg-rendered), and its screenshot has ink. A
// second load opens a rewrite pass by its view name and must draw that pass's graph. The screenshots go to
// $TEST_UNDECLARED_OUTPUTS_DIR (tools/browser/update_screenshots.sh copies viz.png into docs/images).
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "compiler/viz/viz_page.h"
#include "compiler/viz/viz_record.h"
#include "frontend/tg.h"
#include "gtest/gtest.h"
#include "ir/rewrite_trace.h"
#include "tools/browser/page_check.h"

namespace tg::viz {
namespace {

std::string OutputDir() {
  const char* dir = std::getenv("TEST_UNDECLARED_OUTPUTS_DIR");
  return dir != nullptr ? dir : std::getenv("TEST_TMPDIR");
}

std::string Write(const std::string& name, const std::string& html) {
  std::string path = std::string(std::getenv("TEST_TMPDIR")) + "/" + name;
  std::ofstream(path, std::ios::binary) << html;
  return path;
}

std::vector<float> Values(size_t n, float scale) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = scale * (static_cast<float>((i * 7) % 11) - 5.0f);
  return v;
}

VizSnapshot RecordTrainingStep() {
  SetVizForTesting(true);
  ClearRecords();
  Tensor x = Tensor::from_vector<float>(Values(8 * 6, 0.5f), Shape{8, 6});
  Tensor w = Tensor::from_vector<float>(Values(6 * 4, 0.25f), Shape{6, 4});
  w.requires_grad(true);
  Tensor loss = x.matmul(w).relu().sum();
  loss.backward();
  Tensor::realize_all({loss, w.grad()});
  VizSnapshot s = Snapshot();
  SetVizForTesting(false);
  return s;
}

// Recorded once: kernels and schedules are cached process-wide, so a second step would record no passes.
const VizSnapshot& TrainingStep() {
  static const VizSnapshot* snapshot = new VizSnapshot(RecordTrainingStep());
  return *snapshot;
}

void ExpectClean(const browser::PageReport& report) {
  for (const std::string& e : report.errors) ADD_FAILURE() << "page error: " << e;
  for (const std::string& r : report.external_refs) ADD_FAILURE() << "page leaves itself: " << r;
}

class VizPageInBrowser : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto reason = browser::NoBrowserReason()) GTEST_SKIP() << *reason;
  }
};

TEST_F(VizPageInBrowser, TrainingStepPageDrawsTheTensorGraph) {
  const VizSnapshot& s = TrainingStep();
  ASSERT_FALSE(s.graphs.empty());
  std::string page = Write("viz.html", VizPageHtml(s));
  browser::PageReport report = browser::CheckPage(page, OutputDir() + "/viz.png", 1280, 800);
  ExpectClean(report);
  ASSERT_TRUE(report.rendered.has_value()) << "the page never drew a graph";
  EXPECT_EQ(std::stoul(*report.rendered), s.graphs[0].graph.nodes.size()) << "it opens on the first tensor graph";
  // A blank page inks under 0.001 (tests/tools/browser_check_test.cc); a sidebar and a drawn graph, far more.
  EXPECT_GT(report.inked_fraction, 0.15);
}

TEST_F(VizPageInBrowser, ViewNameOpensARewritePass) {
  const VizSnapshot& s = TrainingStep();
  size_t pass = s.passes.size();
  for (size_t i = 0; i < s.passes.size() && pass == s.passes.size(); ++i)
    if (s.passes[i].pass == "rangeify" && s.passes[i].rules_fired > 0) pass = i;
  ASSERT_LT(pass, s.passes.size());
  std::string page = Write("viz_pass.html", VizPageHtml(s, "pass=" + std::to_string(pass) + "&side=after"));
  browser::PageReport report = browser::CheckPage(page, OutputDir() + "/viz_pass.png", 1280, 800);
  ExpectClean(report);
  ASSERT_TRUE(report.rendered.has_value());
  EXPECT_EQ(std::stoul(*report.rendered), s.passes[pass].after.nodes.size());
  EXPECT_GT(report.inked_fraction, 0.15);
}

TEST_F(VizPageInBrowser, ScheduleAndKernelViewsLoadCleanly) {
  const VizSnapshot& s = TrainingStep();
  ASSERT_FALSE(s.schedules.empty());
  ASSERT_FALSE(s.kernels.empty());
  for (const std::string view : {"schedule=0", "kernel=0"}) {
    browser::PageReport report = browser::CheckPage(Write("viz_" + view.substr(0, 6) + ".html", VizPageHtml(s, view)),
                                                    OutputDir() + "/viz_" + view.substr(0, 6) + ".png", 1280, 800);
    SCOPED_TRACE(view);
    ExpectClean(report);
    EXPECT_GT(report.inked_fraction, 0.05);
  }
}

}  // namespace
}  // namespace tg::viz
