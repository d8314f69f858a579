#include "compiler/schedule/schedule_cache.h"

#include <mutex>

#include "absl/container/flat_hash_map.h"
#include "compiler/errors.h"
#include "compiler/schedule/buffer_node.h"
#include "compiler/schedule/memory_planner.h"
#include "ir/substitute.h"

namespace tg::compiler {
namespace {

// Placeholder ids are negative (real buffers count up from 1): inputs -1, -2, ...; outputs from
// kFirstOutput down.
constexpr int64_t kFirstOutput = -(int64_t{1} << 40);

UOpRef Placeholder(int64_t id, const std::string& device, DType dtype, int64_t size) {
  return UOp::Make(Ops::kBuffer, dtype, {}, BufferArg{id, device, size, nullptr});
}

struct Key {
  UOpRef graph;                       // SINK of the roots over placeholders
  std::vector<std::string> devices;   // where each root goes, then where each input lives
  friend bool operator==(const Key&, const Key&) = default;
  template <class H>
  friend H AbslHashValue(H h, const Key& k) { return H::combine(std::move(h), k.graph.get(), k.devices); }
};

struct Entry {
  Schedule schedule;             // over placeholders
  std::vector<UOpRef> outputs;   // the output placeholders, to be bound to fresh buffers
};

class Cache {
 public:
  static Cache& Global() {
    static Cache* cache = new Cache();
    return *cache;
  }

  Schedule Get(const std::vector<UOpRef>& roots, const std::vector<std::string>& devices) {
    Key key{nullptr, devices};
    NodeMap bind = Normalize(roots, key);
    const Entry* entry;
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = entries_.find(key);
      if (it == entries_.end()) {
        if (entries_.size() >= kMaxEntries) entries_.clear();  // a crude bound; shapes rarely vary this much
        it = entries_.emplace(key, Build(key.graph, devices)).first;
      }
      entry = &it->second;
      for (auto& [placeholder, node] : PlanOutputs(entry->schedule, entry->outputs)) bind[placeholder] = node;
      return Bind(entry->schedule, bind);
    }
  }

 private:
  static constexpr size_t kMaxEntries = 4096;

  // Replaces each BUFFER of the graph with a placeholder numbered in graph order; returns the
  // map from placeholders back to the real buffers and fills |key|.
  static NodeMap Normalize(const std::vector<UOpRef>& roots, Key& key) {
    NodeMap to_placeholder, bind;
    int64_t slot = 0;
    UOpRef sink = UOp::Sink(roots);
    for (const UOpRef& u : sink->toposort()) {
      if (u->op() != Ops::kBuffer) continue;
      const auto& a = u->arg_as<BufferArg>();
      UOpRef p = Placeholder(-(++slot), a.device, u->dtype(), a.size);
      to_placeholder[u.get()] = p;
      bind[p.get()] = u;
      key.devices.push_back(a.device);
    }
    key.graph = Substitute(sink, to_placeholder);
    return bind;
  }

  static Entry Build(const UOpRef& graph, const std::vector<std::string>& devices) {
    Entry entry;
    int64_t next = kFirstOutput;
    auto make_output = [&](const std::string& device, DType dtype, int64_t numel) {
      UOpRef p = Placeholder(next--, device, dtype, numel);
      entry.outputs.push_back(p);
      return p;
    };
    entry.schedule = CreateSchedule(graph->src(), std::vector<std::string>(devices.begin(),
                                    devices.begin() + static_cast<long>(graph->src().size())), make_output);
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
  absl::flat_hash_map<Key, Entry> entries_;
};

}  // namespace

Schedule CachedSchedule(const std::vector<UOpRef>& roots, const std::vector<std::string>& devices) {
  return Cache::Global().Get(roots, devices);
}

}  // namespace tg::compiler
