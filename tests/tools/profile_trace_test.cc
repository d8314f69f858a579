// PROFILE=1 end to end: a small training step leaves a trace with every kind of event the docs promise
// (scheduling, codegen, compiles, kernels timed by the device, copies, allocations, Jit capture and replay),
// `tg profile`'s summary of it adds up, and with PROFILE unset the same step records nothing.
#include <map>
#include <set>
#include <string>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "runtime/trace_recorder.h"
#include "tests/tools/profiled_training.h"
#include "tools/profile_summary.h"

namespace tg {
namespace {

using runtime::TraceRecorder;

TEST(ProfileOn, TrainingStepTraceHasEveryKindOfEvent) {
  ASSERT_TRUE(runtime::Profiling()) << "this test runs with PROFILE=1 (its BUILD env)";
  std::vector<float> losses = testing_profile::RunProfiledTrainingSteps();
  EXPECT_LT(losses.back(), losses.front());
  nlohmann::json trace = nlohmann::json::parse(TraceRecorder::Global().Json());
  std::map<int, std::string> lanes;
  std::set<std::string> categories, jit_events;
  int timed_kernels = 0;
  for (const nlohmann::json& e : trace["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "process_name") lanes[e["pid"].get<int>()] = e["args"]["name"];
    if (e["ph"] != "X") continue;
    categories.insert(e["cat"].get<std::string>());
    if (e["cat"] == "jit") jit_events.insert(e["name"].get<std::string>());
    if (e["cat"] == "kernel") {
      EXPECT_NE(e["pid"], TraceRecorder::kHostLane) << e.dump();
      EXPECT_TRUE(e["args"].contains("global") && e["args"].contains("local") && e["args"].contains("bytes"))
          << e.dump();
      timed_kernels += e["dur"].get<double>() > 0;
    }
    if (e["cat"] == "copy" || e["cat"] == "alloc") {
      EXPECT_NE(e["pid"], TraceRecorder::kHostLane) << e.dump();
    }
  }
  for (const char* cat : {"schedule", "codegen", "compile", "kernel", "copy", "alloc", "jit", "realize"})
    EXPECT_TRUE(categories.count(cat)) << "no " << cat << " event";
  EXPECT_TRUE(jit_events.count("Jit capture"));
  EXPECT_TRUE(jit_events.count("Jit replay"));
  EXPECT_GT(timed_kernels, 0);
  EXPECT_EQ(lanes[TraceRecorder::kHostLane], "host");
  EXPECT_GE(lanes.size(), 2u) << "no device lane";

  tools::ProfileSummary summary = tools::Summarize(trace);
  EXPECT_GT(summary.device_us, 0);
  EXPECT_GT(summary.compile_us, 0);
  EXPECT_GT(summary.host_us, 0);
  ASSERT_FALSE(summary.kernels.empty());
  double kernel_total = 0;
  for (const auto& k : summary.kernels) kernel_total += k.total_us;
  EXPECT_NEAR(kernel_total, summary.device_us, 1e-6 * kernel_total + 1e-3);
}

TEST(ProfileOff, TrainingStepRecordsNothing) {
  ASSERT_FALSE(runtime::Profiling()) << "this test runs with PROFILE unset";
  testing_profile::RunProfiledTrainingSteps();
  EXPECT_TRUE(TraceRecorder::Global().Events().empty());
}

}  // namespace
}  // namespace tg
