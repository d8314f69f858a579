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
  // Worked out once so that a hit only allocates and binds: the memory plan of the outputs, and
  // each item's buffers and each realized view as slots (inputs, then outputs) of the bound nodes.
  OutputPlan plan;
  std::vector<std::vector<uint32_t>> item_slots;
  std::vector<int64_t> realized_slot;  // a realized view that is a placeholder itself, else -1
};

class Cache {
 public:
  static Cache& Global() {
    static Cache* cache = new Cache();
    return *cache;
  }

  Schedule Get(const std::vector<UOpRef>& roots, const std::vector<std::string>& devices) {
    GraphWalk walk(roots, devices);
    std::lock_guard<std::mutex> lock(mu_);
    auto it = entries_.find(walk);
    std::vector<UOpRef> buffers = walk.TakeBuffers();
    if (it == entries_.end()) {
      if (entries_.size() >= kMaxEntries) entries_.clear();  // a crude bound; shapes rarely vary this much
      it = entries_.emplace(GraphShape(walk), Build(roots, devices, buffers)).first;
    }
    const Entry& entry = it->second;
    std::vector<UOpRef> outputs = ApplyOutputPlan(entry.plan, entry.outputs);
    buffers.reserve(buffers.size() + outputs.size());
    for (UOpRef& o : outputs) buffers.push_back(std::move(o));  // now the slots: inputs, then outputs
    return Bind(entry, buffers);
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
    entry.plan = PlanOutputMemory(entry.schedule, entry.outputs);
    absl::flat_hash_map<const UOp*, uint32_t> slot;
    for (const UOpRef& p : entry.inputs) slot.emplace(p.get(), static_cast<uint32_t>(slot.size()));
    for (const UOpRef& p : entry.outputs) slot.emplace(p.get(), static_cast<uint32_t>(slot.size()));
    for (const ScheduleItem& item : entry.schedule.items) {
      std::vector<uint32_t>& slots = entry.item_slots.emplace_back();
      for (const UOpRef& b : item.buffers) slots.push_back(slot.at(b.get()));
    }
    for (const UOpRef& view : entry.schedule.realized) {
      auto s = slot.find(view.get());
      entry.realized_slot.push_back(s == slot.end() ? int64_t{-1} : int64_t{s->second});
    }
    return entry;
  }

  static Schedule Bind(const Entry& entry, const std::vector<UOpRef>& slots) {
    const Schedule& cached = entry.schedule;
    Schedule out;
    out.items.reserve(cached.items.size());
    for (size_t i = 0; i < cached.items.size(); ++i) {
      ScheduleItem bound = cached.items[i];
      for (size_t k = 0; k < bound.buffers.size(); ++k) bound.buffers[k] = slots[entry.item_slots[i][k]];
      out.items.push_back(std::move(bound));
    }
    NodeMap bind;  // only for realized views over placeholders (a reshape of an output, say)
    for (size_t r = 0; r < cached.realized.size(); ++r) {
      if (entry.realized_slot[r] >= 0) {
        out.realized.push_back(slots[entry.realized_slot[r]]);
        continue;
      }
      if (bind.empty()) {
        for (size_t i = 0; i < entry.inputs.size(); ++i) bind[entry.inputs[i].get()] = slots[i];
        for (size_t j = 0; j < entry.outputs.size(); ++j) bind[entry.outputs[j].get()] = slots[entry.inputs.size() + j];
      }
      out.realized.push_back(Substitute(cached.realized[r], bind));
    }
    return out;
  }

  std::mutex mu_;  // not absl::Mutex, which TSan cannot see (ir/uop.cc)
  absl::flat_hash_map<GraphShape, Entry, GraphShapeHash, GraphShapeEq> entries_;
};

}  // namespace

Schedule CachedSchedule(const std::vector<UOpRef>& roots, const std::vector<std::string>& devices) {
  return Cache::Global().Get(roots, devices);
}

}  // namespace tg::compiler
