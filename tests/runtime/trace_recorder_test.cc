// The PROFILE=1 recorder on its own: the JSON is a trace Perfetto accepts (complete events, lanes named by
// metadata), appends from several threads all land, and with profiling off nothing is recorded at all.
#include "runtime/trace_recorder.h"

#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace tg::runtime {
namespace {

class TraceRecorderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    SetProfilingForTesting(true);
    TraceRecorder::Global().Clear();
  }
  void TearDown() override { SetProfilingForTesting(false); }

  static nlohmann::json Parsed() { return nlohmann::json::parse(TraceRecorder::Global().Json()); }
};

TEST_F(TraceRecorderTest, SpansBecomeCompleteEventsOnTheirLanes) {
  {
    TraceSpan span("schedule", "schedule \"3 items\"");
    ASSERT_TRUE(span.active());
    span.Arg(TraceArg::Num("items", 3));
  }
  {
    TraceSpan kernel("kernel", "E_4", std::string("TESTDEV:1"));
    kernel.Arg(TraceArg::Str("global", "4,1,1"));
    kernel.SetDeviceDuration(0);
  }
  nlohmann::json trace = Parsed();
  EXPECT_EQ(trace["displayTimeUnit"], "ms");
  std::map<int, std::string> lanes;
  std::vector<nlohmann::json> complete;
  for (const nlohmann::json& e : trace["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "process_name") lanes[e["pid"].get<int>()] = e["args"]["name"];
    if (e["ph"] == "X") complete.push_back(e);
  }
  EXPECT_EQ(lanes[TraceRecorder::kHostLane], "host");
  ASSERT_EQ(complete.size(), 2u);
  const nlohmann::json& schedule = complete[0];
  EXPECT_EQ(schedule["name"], "schedule \"3 items\"");  // escaped on the way out, intact on the way in
  EXPECT_EQ(schedule["cat"], "schedule");
  EXPECT_EQ(schedule["pid"], TraceRecorder::kHostLane);
  EXPECT_EQ(schedule["tid"], TraceRecorder::ThreadId());
  EXPECT_EQ(schedule["args"]["items"], 3);
  EXPECT_GE(schedule["dur"].get<double>(), 0.0);
  const nlohmann::json& kernel = complete[1];
  EXPECT_EQ(lanes[kernel["pid"].get<int>()], "TESTDEV:1");
  EXPECT_EQ(kernel["tid"], 0);
  EXPECT_EQ(kernel["args"]["host_thread"], TraceRecorder::ThreadId());
  EXPECT_EQ(kernel["args"]["global"], "4,1,1");
  EXPECT_EQ(kernel["dur"].get<double>(), 0.0);  // the device's duration, not the host's wait
  EXPECT_GE(kernel["ts"].get<double>(), schedule["ts"].get<double>() + schedule["dur"].get<double>());
}

TEST_F(TraceRecorderTest, EachDeviceGetsOneLane) {
  int a = TraceRecorder::Global().DeviceLane("LANE_A");
  int b = TraceRecorder::Global().DeviceLane("LANE_B");
  EXPECT_NE(a, TraceRecorder::kHostLane);
  EXPECT_NE(a, b);
  EXPECT_EQ(TraceRecorder::Global().DeviceLane("LANE_A"), a);
}

TEST_F(TraceRecorderTest, ThreadsRecordSideBySideOnRowsOfTheirOwn) {
  constexpr int kThreads = 4, kSpans = 200;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([t] {
      TraceRecorder::NameThread("worker " + std::to_string(t));
      for (int i = 0; i < kSpans; ++i) TraceSpan span("compile", "k" + std::to_string(i));
    });
  }
  for (std::thread& t : threads) t.join();
  nlohmann::json trace = Parsed();
  std::set<int> rows;
  std::set<std::string> names;
  size_t complete = 0;
  for (const nlohmann::json& e : trace["traceEvents"]) {
    if (e["ph"] == "X") ++complete, rows.insert(e["tid"].get<int>());
    if (e["ph"] == "M" && e["name"] == "thread_name") names.insert(e["args"]["name"].get<std::string>());
  }
  EXPECT_EQ(complete, static_cast<size_t>(kThreads * kSpans));
  EXPECT_EQ(rows.size(), static_cast<size_t>(kThreads));
  for (int t = 0; t < kThreads; ++t) EXPECT_TRUE(names.count("worker " + std::to_string(t))) << t;
}

TEST_F(TraceRecorderTest, NothingIsRecordedWithProfilingOff) {
  SetProfilingForTesting(false);
  {
    TraceSpan span("schedule", "unseen");
    EXPECT_FALSE(span.active());
  }
  EXPECT_TRUE(TraceRecorder::Global().Events().empty());
}

TEST_F(TraceRecorderTest, WritesTheFileItWasAskedFor) {
  { TraceSpan span("jit", "Jit replay"); }
  std::string path = std::string(std::getenv("TEST_TMPDIR")) + "/trace.json";
  ASSERT_TRUE(TraceRecorder::Global().WriteTo(path));
  std::stringstream text;
  text << std::ifstream(path).rdbuf();
  EXPECT_EQ(nlohmann::json::parse(text.str()), Parsed());
  EXPECT_FALSE(TraceRecorder::Global().WriteTo("/nonexistent-dir/trace.json"));
}

}  // namespace
}  // namespace tg::runtime
