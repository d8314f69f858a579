// The headless-browser check that the VIZ, PROFILE and bench pages are tested with: it must see a clean
// page as clean and catch each way a page can be broken, or the page tests built on it prove nothing.
#include <cstdlib>
#include <fstream>
#include <string>

#include "gtest/gtest.h"
#include "tools/browser/page_check.h"

namespace {

std::string WritePage(const std::string& name, const std::string& body) {
  std::string path = std::string(std::getenv("TEST_TMPDIR")) + "/" + name;
  std::ofstream(path) << "<!doctype html><html><head><title>t</title></head><body>" << body
                      << "</body></html>";
  return path;
}

class BrowserCheck : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto reason = tg::browser::NoBrowserReason()) GTEST_SKIP() << *reason;
  }
};

TEST_F(BrowserCheck, CleanPageHasNoErrorsAndReportsWhatItDrew) {
  std::string page = WritePage("clean.html",
                               "<svg width='600' height='400'><rect x='20' y='20' width='400' height='300' "
                               "fill='#2a6'/></svg><script>document.body.dataset.tgRendered='1';</script>");
  std::string png = std::string(std::getenv("TEST_TMPDIR")) + "/clean.png";
  tg::browser::PageReport report = tg::browser::CheckPage(page, png, 800, 600);
  EXPECT_TRUE(report.errors.empty()) << report.errors.front();
  EXPECT_TRUE(report.external_refs.empty());
  ASSERT_TRUE(report.rendered.has_value());
  EXPECT_EQ(*report.rendered, "1");
  // 400x300 of 800x600 is a quarter of the screen.
  EXPECT_GT(report.inked_fraction, 0.15);
  EXPECT_LT(report.inked_fraction, 0.40);
}

// One page broken every way at once (each browser start costs seconds): an exception, console.error, a
// missing file, and a script from the network.
TEST_F(BrowserCheck, CatchesExceptionsConsoleErrorsMissingFilesAndTheNetwork) {
  std::string page = WritePage("broken.html",
                               "<img src='missing.png'><script src='https://cdn.example.org/d3.js'></script>"
                               "<script>console.error('drawing failed');undefinedFunction();</script>");
  tg::browser::PageReport report = tg::browser::CheckPage(page);
  std::string all;
  for (const std::string& e : report.errors) all += e + "\n";
  EXPECT_NE(all.find("drawing failed"), std::string::npos) << all;
  EXPECT_NE(all.find("undefinedFunction"), std::string::npos) << all;
  EXPECT_NE(all.find("missing.png"), std::string::npos) << all;
  EXPECT_FALSE(report.rendered.has_value());
  ASSERT_EQ(report.external_refs.size(), 1u);
  EXPECT_EQ(report.external_refs[0], "https://cdn.example.org/d3.js");
}

TEST_F(BrowserCheck, BlankPageInksNothing) {
  std::string page = WritePage("blank.html", "");
  std::string png = std::string(std::getenv("TEST_TMPDIR")) + "/blank.png";
  EXPECT_LT(tg::browser::CheckPage(page, png, 640, 480).inked_fraction, 0.001);
}

}  // namespace
