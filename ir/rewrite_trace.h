// The VIZ recorder's graph half: with VIZ=1 each named compiler pass records its UOp graph before and after
// and how many rules fired in the graph_rewrite calls it made; compiler/viz draws them (docs/viz.md).
// With VIZ unset every entry point costs one cached bool.
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ir/uop.h"

namespace tg::viz {

namespace internal {
bool ReadVizFlag();
extern bool viz_override_set;
extern bool viz_override;
}  // namespace internal

// VIZ=1 (any integer > 0), read once.
inline bool VizEnabled() {
  static const bool from_env = internal::ReadVizFlag();
  return internal::viz_override_set ? internal::viz_override : from_env;
}
// Tests turn recording on and off without touching the environment.
void SetVizForTesting(bool on);
// VIZ=1 came from the environment, not from a test: the run wants its page written at exit.
bool VizFromEnvironment();

// One node of a recorded graph; |src| indexes the graph's |nodes|, which come sources first.
struct TracedNode {
  std::string op, dtype, arg, shape;
  std::vector<int> src;
  bool changed = false;  // in an "after" graph: a node the "before" graph did not have
};
struct TracedGraph {
  std::vector<TracedNode> nodes;  // the root last
  int64_t dropped = 0;            // nodes left out of a graph larger than kMaxTracedNodes
};
constexpr size_t kMaxTracedNodes = 1500;

// The graph under |root|, largest first cut at kMaxTracedNodes (those nearest the root are kept).
// |before|, when given, marks each node it lacks as changed.
TracedGraph TraceGraph(const UOpRef& root, const UOpRef& before = nullptr);

struct PassStep {
  int64_t seq = 0;      // order among everything VIZ records (RewriteTrace::NextSeq)
  int realize = 0;      // the realize it ran in (0: outside any realize)
  std::string group;    // "schedule" or the kernel's name
  std::string pass;
  TracedGraph before, after;
  int64_t rules_fired = 0;
};

// What was recorded, in the order it happened. Thread-safe.
class RewriteTrace {
 public:
  static RewriteTrace& Global();
  void AddStep(PassStep step);
  std::vector<PassStep> Steps() const;
  void Clear();
  // Each realize numbers the steps after it; kMaxSteps bounds what a long run keeps.
  int BeginRealize();
  int CurrentRealize() const;
  int64_t DroppedSteps() const;
  int64_t NextSeq();
  static constexpr size_t kMaxSteps = 3000;

 private:
  mutable std::mutex mu_;
  std::vector<PassStep> steps_;
  int realize_ = 0;
  int64_t dropped_ = 0;
  int64_t seq_ = 0;
};

// Names what graph_rewrite does on this thread while it lives ("schedule", a kernel's name).
class TraceGroup {
 public:
  explicit TraceGroup(std::string name);
  ~TraceGroup();
  TraceGroup(const TraceGroup&) = delete;
  TraceGroup& operator=(const TraceGroup&) = delete;

 private:
  std::string previous_;
  bool active_;
};

// Nothing is recorded on this thread while it lives (BEAM's candidate kernels are not what ran).
class NotRecorded {
 public:
  NotRecorded();
  ~NotRecorded();
  NotRecorded(const NotRecorded&) = delete;
  NotRecorded& operator=(const NotRecorded&) = delete;
};
// VIZ is on and no NotRecorded is alive on this thread.
bool Recording();

namespace internal {
// Counts rules fired into the innermost running pass of this thread (graph_rewrite calls it).
void CountRulesFired(int64_t n);
UOpRef RecordPass(std::string_view name, const UOpRef& before, const std::function<UOpRef()>& run);
}  // namespace internal

// Runs |run| (UOpRef()) as the pass |name| on |before|: with VIZ on, records its input, its output and
// the rules fired by graph_rewrite inside it; with VIZ off, just runs it. Passes nest: an inner pass is
// recorded on its own and its rules count in it only.
template <class Run>
UOpRef TracePass(std::string_view name, const UOpRef& before, Run&& run) {
  if (!VizEnabled() || !Recording()) return run();
  return internal::RecordPass(name, before, std::function<UOpRef()>(std::forward<Run>(run)));
}

}  // namespace tg::viz
