#include "compiler/schedule/schedule_cache.h"

#include <mutex>

#include "absl/container/flat_hash_map.h"
#include "compiler/errors.h"
#include "compiler/schedule/buffer_node.h"
#include "compiler/schedule/graph_shape.h"
#include "compiler/schedule/memory_planner.h"
#include "ir/rewrite_trace.h"
#include "ir/substitute.h"

namespace tg::compiler {
namespace {

// Placeholder ids are negative (real buffers count up from 1): inputs -1, -2, ...; outputs from
// kFirstOutput down.
constexpr int64_t kFirstOutput = -(int64_t{1} << 40);

UOpRef Placeholder(int64_t id, const std::string& device, DType dtype, int64_t size) {
  return UOp::Make(Ops::kBuffer, dtype, {}, BufferArg{id, device, size, nullptr});
}

struct Entry {
  Schedule schedule;                  // over placeholders
  std::vector<UOpRef> inputs;         // the input placeholders, by buffer number (GraphShape)
  std::vector<UOpRef> outputs;        // the output placeholders, to be bound to fresh buffers
};

class Cache {
 public:
  static Cache& Global() {
    static Cache* cache = new Cache();
    return *cache;
  }

  Schedule Get(const std::vector<UOpRef>& roots, const std::vector<std::string>& devices) {
    std::vector<UOpRef> buffers;
    GraphShape shape(roots, devices, &buffers);
    std::lock_guard<std::mutex> lock(mu_);
    auto it = entries_.find(shape);
    if (it == entries_.end()) {
      if (entries_.size() >= kMaxEntries) entries_.clear();  // a crude bound; shapes rarely vary this much
      it = entries_.emplace(std::move(shape), Build(roots, devices, buffers)).first;
    }
    const Entry& entry = it->second;
    NodeMap bind;
    for (size_t i = 0; i < buffers.size(); ++i) bind[entry.inputs[i].get()] = std::move(buffers[i]);
    for (auto& [placeholder, node] : PlanOutputs(entry.schedule, entry.outputs)) bind[placeholder] = node;
    return Bind(entry.schedule, bind);
  }

 private:
  static constexpr size_t kMaxEntries = 4096;

  // Schedules the graph with each of its |buffers| replaced by a placeholder numbered like it.
  static Entry Build(const std::vector<UOpRef>& roots, const std::vector<std::string>& devices,
                     const std::vector<UOpRef>& buffers) {
    viz::TraceGroup group("schedule");
    Entry entry;
    NodeMap to_placeholder;
    for (size_t i = 0; i < buffers.size(); ++i) {
      const auto& a = buffers[i]->arg_as<BufferArg>();
      entry.inputs.push_back(Placeholder(-static_cast<int64_t>(i) - 1, a.device, buffers[i]->dtype(), a.size));
      to_placeholder[buffers[i].get()] = entry.inputs.back();
    }
    UOpRef graph = Substitute(UOp::Sink(roots), to_placeholder);
    int64_t next = kFirstOutput;
    auto make_output = [&](const std::string& device, DType dtype, int64_t numel) {
      UOpRef p = Placeholder(next--, device, dtype, numel);
      entry.outputs.push_back(p);
      return p;
    };
    entry.schedule = CreateSchedule(graph->src(), devices, make_output);
    for (ScheduleItem& item : entry.schedule.items) item.runs_on = &DeviceNamed(item.device);
    return entry;
  }

  static Schedule Bind(const Schedule& cached, const NodeMap& bind) {
    Schedule out;
    for (const ScheduleItem& item : cached.items) {
      ScheduleItem bound = item;
      for (UOpRef& b : bound.buffers) b = bind.at(b.get());
      out.items.push_back(std::move(bound));
    }
    for (const UOpRef& view : cached.realized) out.realized.push_back(Substitute(view, bind));
    return out;
  }

  std::mutex mu_;  // not absl::Mutex, which TSan cannot see (ir/uop.cc)
  absl::flat_hash_map<GraphShape, Entry> entries_;
};

}  // namespace

Schedule CachedSchedule(const std::vector<UOpRef>& roots, const std::vector<std::string>& devices) {
  return Cache::Global().Get(roots, devices);
}

}  // namespace tg::compiler
