// `tg bench --html`: the drawn report. What the page says is checked as text; that it draws is checked in
// a headless browser (a counted skip where none is installed). Figures are made up.
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "tools/bench/html_report.h"
#include "tools/bench/report.h"
#include "tools/bench_command.h"
#include "tools/browser/page_check.h"

namespace tg::bench {
namespace {

Report Ours() {
  Report r;
  r.context["build"] = "opt";
  Record w1{"W1_matmul_1024", "CPU", "median", 180, "GFLOP/s"};
  w1.samples = {175, 178, 180, 182, 185};
  Record w6{"W6_transformer_fb", "CPU", "median", 120, "ms/iter"};
  w6.samples = {118, 119, 120, 121, 122};
  r.records = {w1, {"W1_matmul_1024", "CPU", "first", 114, "ms"}, w6,
               {"W11_ocr_det", "CPU", "median", 0, "ms", "the PP-OCR models are not installed <here>"}};
  return r;
}

Report Baseline() {
  Report r;
  Record w1{"W1_matmul_1024", "CPU", "median", 178, "GFLOP/s"};
  w1.samples = {174, 176, 178, 181, 183};
  Record w6{"W6_transformer_fb", "CPU", "median", 98, "ms/iter"};
  w6.samples = {97, 97.5, 98, 98.5, 99};
  r.records = {w1, w6};
  return r;
}

Report Peers() {
  Report r;
  r.records = {{"W1_matmul_1024", "torch 2T", "median", 288.9, "GFLOP/s"},
               {"W6_transformer_fb", "torch 2T", "median", 40.4, "ms/iter"},
               {"W6_transformer_fb", "torch 1T", "median", 84.4, "ms/iter"}};
  return r;
}

std::string Page() {
  Report ours = Ours(), base = Baseline(), peers = Peers();
  HtmlInputs in;
  in.ours = &ours;
  in.baseline = &base;
  in.peers = &peers;
  return BenchHtml(in);
}

TEST(BenchHtml, DrawsEveryWorkloadWithDirectionAwareRatios) {
  std::string page = Page();
  EXPECT_NE(page.find("W1_matmul_1024"), std::string::npos);
  EXPECT_NE(page.find("higher is better"), std::string::npos);
  EXPECT_NE(page.find("lower is better"), std::string::npos);
  // 180 / 288.9 GFLOP/s and 40.4 / 120 ms: both below 1, both ours worse.
  EXPECT_NE(page.find("ours 0.62x"), std::string::npos);
  EXPECT_NE(page.find("ours 0.34x"), std::string::npos);
  // W6 went from 98 to 120 ms with tight samples: a significant regression, said on the bar.
  EXPECT_NE(page.find("0.82x vs baseline, p="), std::string::npos);
  EXPECT_NE(page.find("verdict alarm\">regressed: below the threshold and significant"), std::string::npos);
  // W1 moved by 1%: no verdict at all.
  EXPECT_EQ(page.find("noise:"), std::string::npos);
  // ours, baseline, torch 2T for W1; ours, baseline, torch 2T, torch 1T for W6; W11 is skipped.
  EXPECT_NE(page.find("tgRendered='7'"), std::string::npos);
}

TEST(BenchHtml, SkippedRecordsShowTheirReasonEscaped) {
  std::string page = Page();
  EXPECT_NE(page.find("skipped: the PP-OCR models are not installed &lt;here&gt;"), std::string::npos);
  EXPECT_EQ(page.find("<here>"), std::string::npos);
}

TEST(BenchHtml, IsSelfContained) {
  std::string page = Page();
  EXPECT_EQ(page.find("http://"), std::string::npos);
  EXPECT_EQ(page.find("https://"), std::string::npos);
  EXPECT_EQ(page.find("<link"), std::string::npos);
}

TEST(BenchHtml, TgBenchWritesItFromReportFiles) {
  std::string dir = std::getenv("TEST_TMPDIR");
  WriteReportFile(Ours(), dir + "/ours.json");
  WriteReportFile(Baseline(), dir + "/base.json");
  tools::BenchOptions o;
  std::string error;
  ASSERT_TRUE(tools::ParseBenchArgs({"--results", dir + "/ours.json", "--html", dir + "/r.html"}, &o, &error))
      << error;
  std::ostringstream err;
  EXPECT_EQ(tools::HtmlReport(dir + "/ours.json", o, err), 0) << err.str();
  std::ifstream in(dir + "/r.html");
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_NE(text.str().find("W6_transformer_fb"), std::string::npos);
  o.compare = dir + "/missing.json";
  EXPECT_EQ(tools::HtmlReport(dir + "/ours.json", o, err), 2);
  EXPECT_NE(err.str().find("missing.json"), std::string::npos);
}

TEST(BenchHtml, RendersInAHeadlessBrowser) {
  if (auto reason = browser::NoBrowserReason()) GTEST_SKIP() << *reason;
  std::string dir = std::getenv("TEST_TMPDIR");
  std::string html = dir + "/bench.html";
  std::ofstream(html) << Page();
  const char* outputs = std::getenv("TEST_UNDECLARED_OUTPUTS_DIR");
  std::string png = std::string(outputs != nullptr ? outputs : dir.c_str()) + "/bench_report.png";
  browser::PageReport report = browser::CheckPage(html, png, 1100, 520);
  EXPECT_TRUE(report.errors.empty()) << report.errors.front();
  EXPECT_TRUE(report.external_refs.empty());
  ASSERT_TRUE(report.rendered.has_value());
  EXPECT_EQ(*report.rendered, "7");
  EXPECT_GT(report.inked_fraction, 0.02);
}

}  // namespace
}  // namespace tg::bench
