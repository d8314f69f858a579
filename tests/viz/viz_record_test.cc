// What VIZ records: a realize's tensor graph, each named pass's graph before and after with the rules that
// fired, the schedule with its memory plan, and each kernel's opts and source; with VIZ off, nothing.
// Kernels and schedules are cached process-wide, so each test uses shapes no other test here uses.
#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "compiler/viz/viz_page.h"
#include "compiler/viz/viz_record.h"
#include "frontend/tg.h"
#include "gtest/gtest.h"
#include "ir/rewrite_trace.h"

namespace tg::viz {
namespace {

std::vector<float> Ramp(size_t n) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<float>(i % 7) - 3.0f;
  return v;
}

std::set<std::string> PassNames(const VizSnapshot& s) {
  std::set<std::string> names;
  for (const PassStep& p : s.passes) names.insert(p.pass);
  return names;
}

std::vector<std::string> Ops(const TracedGraph& g) {
  std::vector<std::string> ops;
  for (const TracedNode& n : g.nodes) ops.push_back(n.op);
  return ops;
}

class VizRecord : public ::testing::Test {
 protected:
  void SetUp() override {
    SetVizForTesting(true);
    ClearRecords();
  }
  void TearDown() override {
    SetVizForTesting(false);
    ClearRecords();
  }
};

TEST_F(VizRecord, OffRecordsNothing) {
  SetVizForTesting(false);
  Tensor x = Tensor::from_vector<float>(Ramp(35), Shape{7, 5});
  ((x * 3 + 1).relu().sum({1})).realize();
  VizSnapshot s = Snapshot();
  EXPECT_TRUE(s.graphs.empty());
  EXPECT_TRUE(s.passes.empty());
  EXPECT_TRUE(s.schedules.empty());
  EXPECT_TRUE(s.kernels.empty());
}

TEST_F(VizRecord, NotRecordedScopeRecordsNothing) {
  Tensor x = Tensor::from_vector<float>(Ramp(33), Shape{11, 3});
  {
    NotRecorded quiet;
    (x.exp() * 2).sum({0}).realize();
  }
  VizSnapshot s = Snapshot();
  EXPECT_TRUE(s.graphs.empty());
  EXPECT_TRUE(s.passes.empty());
  EXPECT_TRUE(s.kernels.empty());
}

TEST_F(VizRecord, RecordsTheTensorGraphEachPassTheScheduleAndEachKernel) {
  Tensor a = Tensor::from_vector<float>(Ramp(13 * 6), Shape{13, 6});
  Tensor b = Tensor::from_vector<float>(Ramp(6 * 5), Shape{6, 5});
  Tensor c = a.matmul(b).relu().sum();
  c.realize();
  VizSnapshot s = Snapshot();

  ASSERT_EQ(s.graphs.size(), 1u);
  EXPECT_EQ(s.graphs[0].realize, 1);
  EXPECT_EQ(s.graphs[0].graph.nodes.back().op, "SINK");
  std::vector<std::string> tensor_ops = Ops(s.graphs[0].graph);
  EXPECT_NE(std::find(tensor_ops.begin(), tensor_ops.end(), "REDUCE"), tensor_ops.end())
      << "the matmul's reduce is in the tensor graph";

  std::set<std::string> names = PassNames(s);
  for (const char* want : {"rangeify", "split large reduces", "simplify", "decompose bfloat16", "transcendentals",
                           "expand upcast/unroll", "launch dims"})
    EXPECT_TRUE(names.contains(want)) << want;

  // Rangeify rewrites movement ops into index math: rules fire and the graph changes.
  bool rangeify_seen = false;
  for (const PassStep& p : s.passes) {
    EXPECT_EQ(p.realize, 1);
    if (p.pass != "rangeify") continue;
    rangeify_seen = true;
    EXPECT_EQ(p.group, "schedule");
    EXPECT_GT(p.rules_fired, 0);
    EXPECT_NE(Ops(p.before), Ops(p.after));
    EXPECT_TRUE(std::any_of(p.after.nodes.begin(), p.after.nodes.end(), [](const TracedNode& n) { return n.changed; }));
    EXPECT_TRUE(std::none_of(p.before.nodes.begin(), p.before.nodes.end(), [](const TracedNode& n) { return n.changed; }));
  }
  EXPECT_TRUE(rangeify_seen);

  ASSERT_EQ(s.schedules.size(), 1u);
  const ScheduleRecord& schedule = s.schedules[0];
  ASSERT_FALSE(schedule.items.empty());
  ASSERT_EQ(s.kernels.size(), schedule.items.size()) << "every item is a kernel here, each generated once";
  for (size_t i = 0; i < schedule.items.size(); ++i) {
    const ItemRecord& item = schedule.items[i];
    EXPECT_EQ(item.kind, "kernel");
    EXPECT_EQ(item.name, s.kernels[i].name);
    ASSERT_FALSE(item.buffers.empty());
    for (int b : item.buffers) {
      ASSERT_LT(static_cast<size_t>(b), schedule.buffers.size());
      EXPECT_LE(schedule.buffers[b].first_use, static_cast<int>(i));
      EXPECT_GE(schedule.buffers[b].last_use, static_cast<int>(i));
    }
  }
  for (const KernelRecord& k : s.kernels) {
    EXPECT_EQ(k.device, c.device());
    EXPECT_NE(k.source.find(k.name), std::string::npos) << k.source;
    // Each kernel's codegen passes are grouped under its name.
    EXPECT_TRUE(std::any_of(s.passes.begin(), s.passes.end(),
                            [&](const PassStep& p) { return p.group == k.name && p.pass == "launch dims"; }));
  }
}

TEST_F(VizRecord, RecordsTheOptsEachKernelWasGeneratedWith) {
  Tensor a = Tensor::from_vector<float>(Ramp(64 * 48), Shape{64, 48});
  Tensor b = Tensor::from_vector<float>(Ramp(48 * 40), Shape{48, 40});
  a.matmul(b).realize();
  VizSnapshot s = Snapshot();
  ASSERT_EQ(s.kernels.size(), 1u);
  // A 64x40 output with a 48-long reduce is worth upcasting on every device the heuristic knows.
  EXPECT_FALSE(s.kernels[0].opts.empty());
  EXPECT_TRUE(PassNames(s).contains("opts (heuristic)"));
}

TEST_F(VizRecord, MemoryPlanShowsBuffersThatShareMemory) {
  Tensor x = Tensor::from_vector<float>(Ramp(1031), Shape{1031});
  Tensor y = x;
  for (int i = 0; i < 5; ++i) y = (y * 2 + 1).contiguous();  // materialized intermediates, used in turn
  y.realize();
  VizSnapshot s = Snapshot();
  ASSERT_EQ(s.schedules.size(), 1u);
  const std::vector<BufferRecord>& buffers = s.schedules[0].buffers;
  int shared = 0;
  for (const BufferRecord& b : buffers) {
    shared += b.shared;
    EXPECT_EQ(b.bytes, 1031 * 4);
    for (const BufferRecord& other : buffers) {
      if (&other == &b || other.block != b.block) continue;
      // One block, lifetimes apart.
      EXPECT_TRUE(other.last_use < b.first_use || b.last_use < other.first_use) << b.id << " " << other.id;
    }
  }
  EXPECT_GE(shared, 2);
}

TEST_F(VizRecord, EachRealizeIsNumbered) {
  Tensor x = Tensor::from_vector<float>(Ramp(17), Shape{17});
  (x + 1).realize();
  (x * 5).realize();
  VizSnapshot s = Snapshot();
  ASSERT_EQ(s.graphs.size(), 2u);
  EXPECT_EQ(s.graphs[0].realize, 1);
  EXPECT_EQ(s.graphs[1].realize, 2);
  ASSERT_EQ(s.kernels.size(), 2u);
  EXPECT_EQ(s.kernels[1].realize, 2);
  EXPECT_LT(s.graphs[1].seq, s.kernels[1].seq);
}

TEST(VizPage, KernelSourceCannotEndTheDataScript) {
  VizSnapshot s;
  KernelRecord k;
  k.name = "E_1";
  k.source = "/* </script><script>alert(1)</script> */";
  s.kernels.push_back(k);
  std::string html = VizPageHtml(s, "kernel=0");
  size_t count = 0;
  for (size_t at = html.find("</script>"); at != std::string::npos; at = html.find("</script>", at + 1)) ++count;
  EXPECT_EQ(count, 2u) << "only the data's and the script's own end tags";
  EXPECT_NE(html.find("data-tg-view=\"kernel=0\""), std::string::npos);
  EXPECT_EQ(html.find("http://"), html.find("http://www.w3.org/2000/svg")) << "nothing but the SVG namespace";
}

TEST(VizPage, WritesTheFileTgVizOutNames) {
  std::string path = std::string(std::getenv("TEST_TMPDIR")) + "/named.html";
  setenv("TG_VIZ_OUT", path.c_str(), 1);
  EXPECT_EQ(WriteVizPage(), path);
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str().rfind("<!doctype html>", 0), 0u);
  unsetenv("TG_VIZ_OUT");
  EXPECT_EQ(VizOutputPath(), "tg_viz.html");
}

}  // namespace
}  // namespace tg::viz
