// `tg profile` on a synthetic trace whose answer is known: which kernel is on top, and how its 100 us of host,
// compile, device and copy time split once nested events are taken out of their parents.
#include "tools/profile_command.h"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tools/profile_summary.h"
#include "tools/profile_timeline.h"

namespace tg::tools {
namespace {

nlohmann::json Event(const char* cat, const char* name, int pid, int tid, double ts, double dur,
                     nlohmann::json args = nlohmann::json::object()) {
  return {{"ph", "X"}, {"cat", cat}, {"name", name}, {"pid", pid}, {"tid", tid},
          {"ts", ts},  {"dur", dur}, {"args", std::move(args)}};
}

// Main thread (tid 1): a 60 us Jit replay holding a 10 us schedule, a 5 us codegen and, on the device lane,
// the kernels it waited for (r_big 20 + 10 us, E_small 5 us), a 4 us copy and a 2 us wait for a compile; a
// worker (tid 2) compiles for 30 us beside it. Host self time: 60 - 10 - 5 - 35 - 4 - 2 = 4, plus schedule
// 10 and codegen 5 = 19.
nlohmann::json SyntheticTrace() {
  nlohmann::json host_thread = {{"host_thread", 1}};
  nlohmann::json events = nlohmann::json::array({
      {{"ph", "M"}, {"name", "process_name"}, {"pid", 0}, {"tid", 0}, {"args", {{"name", "host"}}}},
      {{"ph", "M"}, {"name", "process_name"}, {"pid", 1}, {"tid", 0}, {"args", {{"name", "CPU"}}}},
      Event("jit", "Jit replay", 0, 1, 0, 60),
      Event("schedule", "schedule", 0, 1, 1, 10),
      Event("codegen", "r_big", 0, 1, 11, 5),
      Event("kernel", "r_big", 1, 0, 20, 20, host_thread),
      Event("kernel", "E_small", 1, 0, 41, 5, host_thread),
      Event("kernel", "r_big", 1, 0, 47, 10, host_thread),
      Event("copy", "copy out (device to host)", 1, 0, 57.5, 2.5, host_thread),
      Event("copy", "copy in (host to device)", 1, 0, 16.5, 1.5, host_thread),
      Event("compile", "r_big", 0, 2, 5, 30),
      Event("wait", "wait for r_big", 0, 1, 18, 2),
  });
  return {{"traceEvents", events}, {"displayTimeUnit", "ms"}};
}

TEST(ProfileSummary, TopKernelAndTheSplitAreKnown) {
  ProfileSummary s = Summarize(SyntheticTrace());
  EXPECT_EQ(s.events, 10u);
  EXPECT_DOUBLE_EQ(s.wall_us, 60);
  ASSERT_EQ(s.kernels.size(), 2u);
  EXPECT_EQ(s.kernels[0].name, "r_big");
  EXPECT_EQ(s.kernels[0].count, 2);
  EXPECT_DOUBLE_EQ(s.kernels[0].total_us, 30);
  EXPECT_EQ(s.kernels[1].name, "E_small");
  EXPECT_DOUBLE_EQ(s.device_us, 35);
  EXPECT_DOUBLE_EQ(s.copy_us, 4);
  EXPECT_DOUBLE_EQ(s.compile_us, 30);
  EXPECT_DOUBLE_EQ(s.host_us, 19);
  EXPECT_DOUBLE_EQ(s.wait_us, 2);
  EXPECT_EQ(s.lanes, (std::vector<std::string>{"host", "CPU"}));
}

TEST(ProfileSummary, PrintsTheSplitAndTheKernelTable) {
  std::string text = FormatSummary(Summarize(SyntheticTrace()), 10);
  EXPECT_NE(text.find("10 events over 60.00 us; lanes: host, CPU"), std::string::npos) << text;
  EXPECT_NE(text.find("device       35.00 us   39.8%"), std::string::npos) << text;  // 35 of 88
  EXPECT_NE(text.find("host         19.00 us   21.6%"), std::string::npos) << text;
  EXPECT_NE(text.find("waited 2.00 us for compiles"), std::string::npos) << text;
  // r_big: 2 runs, 30 us, 15 us each, 30 of the 35 device microseconds.
  EXPECT_NE(text.find("r_big"), std::string::npos);
  EXPECT_NE(text.find("2     30.00 us     15.00 us  85.7%"), std::string::npos) << text;
  EXPECT_LT(text.find("r_big"), text.find("E_small"));
  EXPECT_EQ(FormatSummary(Summarize(SyntheticTrace()), 1).find("E_small"), std::string::npos);
}

TEST(ProfileSummary, MalformedEventsAreNamed) {
  nlohmann::json bad = {{"traceEvents", {{{"ph", "X"}, {"name", "k"}, {"ts", 1}}}}};
  try {
    Summarize(bad);
    FAIL() << "an event without dur was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("event 0 (ph \"X\") has no numeric \"dur\""), std::string::npos) << e.what();
  }
  EXPECT_THROW(Summarize(nlohmann::json{{"events", 1}}), std::runtime_error);
}

std::string Tmp(const std::string& name) { return std::string(std::getenv("TEST_TMPDIR")) + "/" + name; }

TEST(ProfileCommand, ReadsTheFileAndWritesTheTimeline) {
  std::ofstream(Tmp("trace.json")) << SyntheticTrace().dump();
  ProfileOptions options;
  std::string error;
  ASSERT_TRUE(ParseProfileArgs({Tmp("trace.json"), "--html", Tmp("t.html"), "--top", "3"}, &options, &error))
      << error;
  EXPECT_EQ(options.top, 3u);
  std::ostringstream out, err;
  ASSERT_EQ(ProfileCommand(options, out, err), 0) << err.str();
  EXPECT_NE(out.str().find("r_big"), std::string::npos);
  std::stringstream page;
  page << std::ifstream(Tmp("t.html")).rdbuf();
  EXPECT_NE(page.str().find("tgRendered"), std::string::npos);
  EXPECT_NE(page.str().find("\"Jit replay\""), std::string::npos);
}

TEST(ProfileCommand, BadArgumentsAndFilesSayWhat) {
  ProfileOptions options;
  std::string error;
  EXPECT_FALSE(ParseProfileArgs({}, &options, &error));
  EXPECT_EQ(error, "no trace file given");
  EXPECT_FALSE(ParseProfileArgs({"a.json", "--top", "zero"}, &options, &error));
  EXPECT_NE(error.find("--top takes a positive whole number"), std::string::npos);
  std::ofstream(Tmp("junk.json")) << "{not json";
  std::ostringstream out, err;
  EXPECT_EQ(ProfileCommand({Tmp("junk.json"), "", 10}, out, err), 1);
  EXPECT_NE(err.str().find("is not a readable trace"), std::string::npos) << err.str();
  EXPECT_EQ(ProfileCommand({Tmp("missing.json"), "", 10}, out, err), 1);
  EXPECT_NE(err.str().find("cannot read"), std::string::npos);
}

TEST(ProfileTimeline, EventTextCannotCloseTheScript) {
  nlohmann::json trace = {{"traceEvents", {Event("kernel", "</script><b>x", 1, 0, 0, 1)}}};
  std::string page = TimelineHtml(trace, "a<b>.json");
  EXPECT_EQ(page.find("</script><b>"), std::string::npos);
  EXPECT_NE(page.find("a&lt;b&gt;.json"), std::string::npos);
}

}  // namespace
}  // namespace tg::tools
