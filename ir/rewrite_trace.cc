#include "ir/rewrite_trace.h"

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "ir/env.h"

namespace tg::viz {
namespace internal {

bool viz_override_set = false;
bool viz_override = false;

bool ReadVizFlag() { return GetEnvInt("VIZ", 0) > 0; }

}  // namespace internal

void SetVizForTesting(bool on) {
  internal::viz_override = on;
  internal::viz_override_set = true;
}

bool VizFromEnvironment() { return !internal::viz_override_set && VizEnabled(); }

namespace {

thread_local std::string current_group;
thread_local int not_recorded = 0;
thread_local std::vector<int64_t>* running_passes = nullptr;  // rules fired per nested pass, innermost last

std::vector<int64_t>& RunningPasses() {
  static thread_local std::vector<int64_t> passes;
  running_passes = &passes;
  return passes;
}

// The graph's nodes sources first, cut to the kMaxTracedNodes nearest the root.
std::vector<UOpRef> KeptNodes(const UOpRef& root, int64_t* dropped) {
  std::vector<UOpRef> topo = root->toposort();
  *dropped = 0;
  if (topo.size() <= kMaxTracedNodes) return topo;
  *dropped = static_cast<int64_t>(topo.size() - kMaxTracedNodes);
  return std::vector<UOpRef>(topo.end() - kMaxTracedNodes, topo.end());
}

}  // namespace

TracedGraph TraceGraph(const UOpRef& root, const UOpRef& before) {
  TracedGraph graph;
  if (root == nullptr) return graph;
  absl::flat_hash_set<const UOp*> old;
  if (before != nullptr)
    for (const UOpRef& u : before->toposort()) old.insert(u.get());
  absl::flat_hash_map<const UOp*, int> index;
  for (const UOpRef& u : KeptNodes(root, &graph.dropped)) {
    TracedNode n;
    n.op = std::string(OpName(u->op()));
    n.dtype = u->dtype().name();
    if (!std::holds_alternative<std::monostate>(u->arg())) n.arg = ArgString(u->arg());  // not "None"
    if (!u->shape().empty()) n.shape = ShapeString(u->shape());
    for (const UOpRef& s : u->src())
      if (auto it = index.find(s.get()); it != index.end()) n.src.push_back(it->second);
    n.changed = before != nullptr && !old.contains(u.get());
    index[u.get()] = static_cast<int>(graph.nodes.size());
    graph.nodes.push_back(std::move(n));
  }
  return graph;
}

RewriteTrace& RewriteTrace::Global() {
  static RewriteTrace* trace = new RewriteTrace();  // never destroyed: the page is written at exit
  return *trace;
}

void RewriteTrace::AddStep(PassStep step) {
  std::lock_guard<std::mutex> lock(mu_);
  if (steps_.size() >= kMaxSteps) {
    ++dropped_;
    return;
  }
  steps_.push_back(std::move(step));
}

std::vector<PassStep> RewriteTrace::Steps() const {
  std::lock_guard<std::mutex> lock(mu_);
  return steps_;
}

void RewriteTrace::Clear() {
  std::lock_guard<std::mutex> lock(mu_);
  steps_.clear();
  realize_ = 0;
  dropped_ = 0;
  seq_ = 0;
}

int RewriteTrace::BeginRealize() {
  std::lock_guard<std::mutex> lock(mu_);
  return ++realize_;
}

int RewriteTrace::CurrentRealize() const {
  std::lock_guard<std::mutex> lock(mu_);
  return realize_;
}

int64_t RewriteTrace::NextSeq() {
  std::lock_guard<std::mutex> lock(mu_);
  return ++seq_;
}

int64_t RewriteTrace::DroppedSteps() const {
  std::lock_guard<std::mutex> lock(mu_);
  return dropped_;
}

TraceGroup::TraceGroup(std::string name) : active_(VizEnabled()) {
  if (!active_) return;
  previous_ = std::move(current_group);
  current_group = std::move(name);
}

TraceGroup::~TraceGroup() {
  if (active_) current_group = std::move(previous_);
}

NotRecorded::NotRecorded() { ++not_recorded; }
NotRecorded::~NotRecorded() { --not_recorded; }
bool Recording() { return VizEnabled() && not_recorded == 0; }

namespace internal {

void CountRulesFired(int64_t n) {
  if (running_passes != nullptr && !running_passes->empty()) running_passes->back() += n;
}

UOpRef RecordPass(std::string_view name, const UOpRef& before, const std::function<UOpRef()>& run) {
  std::vector<int64_t>& passes = RunningPasses();
  passes.push_back(0);
  UOpRef after;
  try {
    after = run();
  } catch (...) {
    passes.pop_back();
    throw;
  }
  int64_t fired = passes.back();
  passes.pop_back();
  PassStep step;
  step.seq = RewriteTrace::Global().NextSeq();
  step.realize = RewriteTrace::Global().CurrentRealize();
  step.group = current_group;
  step.pass = std::string(name);
  step.before = TraceGraph(before);
  step.after = TraceGraph(after, before);
  step.rules_fired = fired;
  RewriteTrace::Global().AddStep(std::move(step));
  return after;
}

}  // namespace internal
}  // namespace tg::viz
