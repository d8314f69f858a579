// The benchmark report: JSON round trip, direction-aware comparison, tg bench's argument parsing and
// exit status. Figures here are made up: tests never time anything.
#include <cstdio>
#include <filesystem>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "ir/error.h"
#include "tools/bench/report.h"
#include "tools/bench_command.h"

namespace tg::bench {
namespace {

Report MakeReport(double gflops, double ms) {
  Report r;
  r.context["build"] = "opt";
  r.records.push_back({"W1_matmul_1024", "CPU", "median", gflops, "GFLOP/s"});
  r.records.push_back({"W6_transformer_fb", "CPU", "median", ms, "ms/iter"});
  return r;
}

TEST(BenchReport, JsonRoundTripKeepsEveryField) {
  Report back = FromJson(ToJson(MakeReport(12.5, 300)), "test");
  ASSERT_EQ(back.records.size(), 2u);
  EXPECT_EQ(back.records[0].name, "W1_matmul_1024");
  EXPECT_EQ(back.records[0].device, "CPU");
  EXPECT_EQ(back.records[0].metric, "median");
  EXPECT_DOUBLE_EQ(back.records[0].value, 12.5);
  EXPECT_EQ(back.records[1].unit, "ms/iter");
  EXPECT_EQ(back.context.at("build"), "opt");
}

TEST(BenchReport, RejectsTextThatIsNotAReport) {
  EXPECT_THROW(FromJson("not json", "x.json"), Error);
  EXPECT_THROW(FromJson("{\"rows\": {}}", "x.json"), Error);
  EXPECT_THROW(FromJson("{\"results\": [{\"name\": \"a\"}]}", "x.json"), Error);
  EXPECT_THROW(FromJson("{\"results\": [{\"name\": \"a\", \"skipped\": 1}]}", "x.json"), Error);
}

TEST(BenchReport, UnitsSayWhichDirectionIsBetter) {
  for (const char* u : {"ms", "ms/iter", "us/op", "s"}) EXPECT_TRUE(LowerIsBetter(u)) << u;
  for (const char* u : {"GFLOP/s", "GB/s", "steps/s"}) EXPECT_FALSE(LowerIsBetter(u)) << u;
}

TEST(BenchReport, RatioAboveOneMeansBetterForRatesAndTimes) {
  // Current: twice the GFLOP/s and half the ms of the baseline: both ratios are 2.
  CompareResult r = Compare(MakeReport(20, 150), MakeReport(10, 300), {0.9});
  ASSERT_EQ(r.rows.size(), 2u);
  EXPECT_DOUBLE_EQ(r.rows[0].ratio, 2.0);
  EXPECT_DOUBLE_EQ(r.rows[1].ratio, 2.0);
  EXPECT_FALSE(r.any_regressed);
}

TEST(BenchReport, SlowerTimeBelowThresholdRegresses) {
  CompareResult r = Compare(MakeReport(10, 400), MakeReport(10, 300), {0.9});  // ms went up: 0.75
  EXPECT_TRUE(r.any_regressed);
  EXPECT_FALSE(r.rows[0].regressed);
  EXPECT_TRUE(r.rows[1].regressed);
  EXPECT_DOUBLE_EQ(r.rows[1].ratio, 0.75);
  std::ostringstream out;
  PrintComparison(r, {0.9}, out);
  EXPECT_NE(out.str().find("REGRESSED"), std::string::npos);
  EXPECT_NE(out.str().find("FAIL"), std::string::npos);
}

TEST(BenchReport, UnmatchedRecordsAreListedNotFailed) {
  Report current = MakeReport(10, 300);
  current.records.push_back({"W7_dispatch", "CPU", "median", 3, "us/op"});
  Report baseline = MakeReport(10, 300);
  baseline.records.push_back({"W1_matmul_1024", "OPENCL", "median", 100, "GFLOP/s"});
  CompareResult r = Compare(current, baseline, {0.9});
  EXPECT_EQ(r.rows.size(), 2u);
  ASSERT_EQ(r.only_current.size(), 1u);
  EXPECT_EQ(r.only_current[0].name, "W7_dispatch");
  ASSERT_EQ(r.only_baseline.size(), 1u);
  EXPECT_EQ(r.only_baseline[0].device, "OPENCL");
  EXPECT_FALSE(r.any_regressed);
}

TEST(BenchReport, FailedRunCountsAsRegression) {
  CompareResult r = Compare(MakeReport(0, 300), MakeReport(10, 300), {0.9});
  EXPECT_DOUBLE_EQ(r.rows[0].ratio, 0.0);
  EXPECT_TRUE(r.any_regressed);
}

TEST(BenchReport, SkippedRecordKeepsItsReasonAndHasNoValue) {
  Report r;
  r.records.push_back({"W11_ocr_det", "CPU", "median", 0, "ms", "model absent: run tools/setup.sh"});
  std::string json = ToJson(r);
  EXPECT_EQ(json.find("\"value\""), std::string::npos) << json;  // a skip is never a figure
  Report back = FromJson(json, "test");
  ASSERT_EQ(back.records.size(), 1u);
  EXPECT_EQ(back.records[0].skipped, "model absent: run tools/setup.sh");
  EXPECT_EQ(back.records[0].unit, "ms");
}

TEST(BenchReport, SkippedRecordsAreListedNotCompared) {
  Report current = MakeReport(10, 300), baseline = MakeReport(10, 300);
  current.records[1].skipped = "no model";
  baseline.records[0].skipped = "no peer";
  CompareResult r = Compare(current, baseline, {0.9});
  EXPECT_TRUE(r.rows.empty());
  ASSERT_EQ(r.skipped.size(), 1u);
  EXPECT_EQ(r.skipped[0].name, "W6_transformer_fb");
  ASSERT_EQ(r.only_current.size(), 1u);  // measured now, skipped in the baseline: nothing to compare
  EXPECT_EQ(r.only_current[0].name, "W1_matmul_1024");
  EXPECT_TRUE(r.only_baseline.empty());
  EXPECT_FALSE(r.any_regressed);
  std::ostringstream out;
  PrintComparison(r, {0.9}, out);
  EXPECT_NE(out.str().find("skipped (no model)"), std::string::npos) << out.str();
}

// The peers as tools/bench/peer_report.py writes them: the thread setting is part of the device.
Report MakePeers() {
  Report p;
  p.records.push_back({"W1_matmul_1024", "torch", "median", 100, "GFLOP/s"});
  p.records.push_back({"W1_matmul_1024", "torch 2T", "median", 400, "GFLOP/s"});
  p.records.push_back({"W6_transformer_fb", "torch", "median", 600, "ms/iter"});
  p.records.push_back({"W3b_softmax_4096", "torch", "median", 3.5, "GB/s"});  // we did not run it
  p.records.push_back({"W11_ocr_det", "ort 1T", "median", 0, "ms", "onnxruntime-node not installed"});
  return p;
}

// The Markdown line of |workload|, or "" when the table has none.
std::string TableRow(const std::string& table, const std::string& workload) {
  size_t at = table.find("| " + workload + " |");
  return at == std::string::npos ? "" : table.substr(at, table.find('\n', at) - at);
}

TEST(BenchPeerTable, OneRowPerWorkloadOneColumnPerPeerWithDirectionAwareRatios) {
  Report ours = MakeReport(200, 300);
  ours.records.push_back({"W1_matmul_1024", "CPU", "first", 79, "ms"});
  ours.records.push_back({"W11_ocr_det", "CPU", "median", 250, "ms"});
  std::ostringstream out;
  PrintPeerTable(ours, MakePeers(), out);
  std::string t = out.str();
  EXPECT_NE(t.find("| workload | device | unit | ours | first run (ms) | torch | torch 2T | ort 1T |"), std::string::npos)
      << t;
  // 200 GFLOP/s against 100 and 400; 300 ms against 600 ms is better too: ratio 2.
  EXPECT_EQ(TableRow(t, "W1_matmul_1024"), "| W1_matmul_1024 | CPU | GFLOP/s | 200.0 | 79.00 | 100.0 (2.00x) | 400.0 (0.50x) |  |");
  EXPECT_EQ(TableRow(t, "W6_transformer_fb"), "| W6_transformer_fb | CPU | ms/iter | 300.0 |  | 600.0 (2.00x) |  |  |");
  EXPECT_EQ(TableRow(t, "W3b_softmax_4096"), "| W3b_softmax_4096 |  | GB/s | not run |  | 3.500 |  |  |");
  // A skipped peer is never a figure: "skipped" in its cell, the reason under the table.
  EXPECT_EQ(TableRow(t, "W11_ocr_det"), "| W11_ocr_det | CPU | ms | 250.0 |  |  |  | skipped |");
  EXPECT_NE(t.find("- skipped: W11_ocr_det (ort 1T): onnxruntime-node not installed"), std::string::npos) << t;
}

TEST(BenchPeerTable, OurSkippedWorkloadHasNoRatio) {
  Report ours;
  ours.records.push_back({"W11_ocr_det", "CPU", "median", 0, "ms", "model absent"});
  Report peers;
  peers.records.push_back({"W11_ocr_det", "ort 1T", "median", 20, "ms"});
  peers.records.push_back({"*", "torch", "median", 0, "", "python3-torch is not importable"});
  std::ostringstream out;
  PrintPeerTable(ours, peers, out);
  std::string t = out.str();
  EXPECT_EQ(TableRow(t, "W11_ocr_det"), "| W11_ocr_det | CPU | ms | skipped |  | 20.00 |");
  EXPECT_NE(t.find("- skipped: W11_ocr_det (ours on CPU): model absent"), std::string::npos) << t;
  EXPECT_NE(t.find("- skipped: every workload (torch): python3-torch is not importable"), std::string::npos) << t;
}

class TgBenchCompare : public ::testing::Test {
 protected:
  std::string Write(const Report& r, const std::string& name) {
    std::string path = (std::filesystem::path(::testing::TempDir()) / name).string();
    WriteReportFile(r, path);
    return path;
  }
};

TEST_F(TgBenchCompare, ExitStatusFollowsThreshold) {
  std::string base = Write(MakeReport(10, 300), "base.json");
  std::string worse = Write(MakeReport(8, 300), "worse.json");  // 0.8x
  std::ostringstream out, err;
  EXPECT_EQ(tools::CompareReports(worse, base, {0.9}, out, err), 1);
  EXPECT_EQ(tools::CompareReports(worse, base, {0.75}, out, err), 0);
  EXPECT_EQ(tools::CompareReports(base, base, {1.0}, out, err), 0);
  EXPECT_EQ(tools::CompareReports(base, base + ".missing", {0.9}, out, err), 2);
}

TEST_F(TgBenchCompare, PeerTableReadsEveryPeerFile) {
  std::string ours = Write(MakeReport(200, 300), "ours.json");
  Report torch = MakePeers(), ort;
  ort.records.push_back({"W6_transformer_fb", "ort 1T", "median", 150, "ms/iter"});
  std::string torch_path = Write(torch, "torch.json"), ort_path = Write(ort, "ort.json");
  std::ostringstream out, err;
  EXPECT_EQ(tools::PeerTable(ours, {torch_path, ort_path}, out, err), 0) << err.str();
  EXPECT_NE(out.str().find("| 600.0 (2.00x) |  | 150.0 (0.50x) |"), std::string::npos) << out.str();
  EXPECT_EQ(tools::PeerTable(ours, {torch_path + ".missing"}, out, err), 2);
}

TEST(TgBenchArgs, PeersTakeAListAndAnExistingReport) {
  tools::BenchOptions o;
  std::string error;
  ASSERT_TRUE(tools::ParseBenchArgs({"--results", "tg.json", "--peers=torch.json,ort.json"}, &o, &error)) << error;
  EXPECT_EQ(o.results, "tg.json");
  EXPECT_EQ(o.peers, (std::vector<std::string>{"torch.json", "ort.json"}));
  EXPECT_TRUE(o.compare.empty());
}

TEST(TgBenchArgs, ParsesBothFlagForms) {
  tools::BenchOptions o;
  std::string error;
  ASSERT_TRUE(tools::ParseBenchArgs({"--device", "CPU,OPENCL", "--filter=W1", "--json", "o.json", "--compare=b.json",
                                     "--threshold", "0.8", "--reps=3"},
                                    &o, &error))
      << error;
  EXPECT_EQ(o.devices, (std::vector<std::string>{"CPU", "OPENCL"}));
  EXPECT_EQ(o.filter, "W1");
  EXPECT_EQ(o.json, "o.json");
  EXPECT_EQ(o.compare, "b.json");
  EXPECT_DOUBLE_EQ(o.gate.threshold, 0.8);
  EXPECT_EQ(o.reps, 3);
}

TEST(TgBenchArgs, RejectsBadArguments) {
  for (std::vector<std::string> bad : std::vector<std::vector<std::string>>{
           {"--bogus"}, {"--json"}, {"--threshold", "abc"}, {"--threshold=-1"}, {"--results", "r.json"}}) {
    tools::BenchOptions o;
    std::string error;
    EXPECT_FALSE(tools::ParseBenchArgs(bad, &o, &error)) << bad[0];
    EXPECT_FALSE(error.empty());
  }
}

}  // namespace
}  // namespace tg::bench
