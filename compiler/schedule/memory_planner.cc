#include "compiler/schedule/memory_planner.h"

#include <map>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "compiler/errors.h"
#include "compiler/schedule/buffer_node.h"

namespace tg::compiler {
namespace {

struct Lifetime {
  size_t first = SIZE_MAX, last = 0;
};

uint64_t Bytes(const UOpRef& placeholder) {
  return static_cast<uint64_t>(placeholder->arg_as<BufferArg>().size) * placeholder->dtype().itemsize();
}

// Free memory by device, then size: best fit is the smallest block that is big enough. A block is
// named by the output that made it (its index in the outputs).
class FreeBlocks {
 public:
  int Take(const std::string& device, uint64_t bytes) {
    auto& by_size = free_[device];
    auto it = by_size.lower_bound(bytes);
    if (it == by_size.end()) return -1;
    int block = it->second;
    by_size.erase(it);
    return block;
  }
  void Give(const std::string& device, uint64_t bytes, int block) { free_[device].emplace(bytes, block); }

 private:
  absl::flat_hash_map<std::string, std::multimap<uint64_t, int>> free_;
};

}  // namespace

OutputPlan PlanOutputMemory(const Schedule& schedule, const std::vector<UOpRef>& outputs) {
  absl::flat_hash_set<const UOp*> visible;  // buffers a realized root lets the caller see
  for (const UOpRef& view : schedule.realized)
    if (UOpRef b = BufferOfView(view)) visible.insert(b.get());
  absl::flat_hash_map<const UOp*, Lifetime> life;
  for (size_t i = 0; i < schedule.items.size(); ++i)
    for (const UOpRef& b : schedule.items[i].buffers) {
      Lifetime& l = life[b.get()];
      l.first = std::min(l.first, i), l.last = std::max(l.last, i);
    }
  OutputPlan plan;
  plan.share.assign(outputs.size(), -1);
  for (const UOpRef& out : outputs) plan.device.push_back(&DeviceNamed(out->arg_as<BufferArg>().device));
  // Walk the items in order: a block returns to the free list after the last item that uses it,
  // so an item never reads and writes one block through two buffers.
  absl::flat_hash_map<size_t, std::vector<int>> ends_after;
  std::vector<int> by_first;  // the intermediates, by output index
  for (size_t j = 0; j < outputs.size(); ++j) {
    const UOp* out = outputs[j].get();
    bool intermediate = !visible.contains(out) && life.contains(out) && out->arg_as<BufferArg>().size > 0;
    if (!intermediate) {
      plan.order.push_back(static_cast<int>(j));
      continue;
    }
    by_first.push_back(static_cast<int>(j));
    ends_after[life[out].last].push_back(static_cast<int>(j));
  }
  std::sort(by_first.begin(), by_first.end(),
            [&](int x, int y) { return life[outputs[x].get()].first < life[outputs[y].get()].first; });
  std::vector<int> block_of(outputs.size(), -1);       // per intermediate: the output that made its memory
  std::vector<uint64_t> block_bytes(outputs.size(), 0);  // per block maker: the size of that memory
  FreeBlocks free;
  size_t next = 0;
  for (size_t i = 0; i < schedule.items.size(); ++i) {
    for (; next < by_first.size() && life[outputs[by_first[next]].get()].first == i; ++next) {
      int j = by_first[next];
      const auto& a = outputs[j]->arg_as<BufferArg>();
      uint64_t bytes = Bytes(outputs[j]);
      int block = free.Take(a.device, bytes);
      plan.order.push_back(j);
      plan.share[j] = block;
      if (block < 0) block = j, block_bytes[j] = bytes;
      block_of[j] = block;
    }
    for (int j : ends_after[i]) {
      int block = block_of[j];
      free.Give(outputs[j]->arg_as<BufferArg>().device, block_bytes[block], block);
    }
  }
  return plan;
}

std::vector<UOpRef> ApplyOutputPlan(const OutputPlan& plan, const std::vector<UOpRef>& outputs) {
  std::vector<UOpRef> made(outputs.size());
  for (int j : plan.order) {
    const UOpRef& p = outputs[j];
    const auto& a = p->arg_as<BufferArg>();
    int from = plan.share[j];
    made[j] = from < 0 ? NewBufferNode(*plan.device[j], p->dtype(), a.size)
                       : NewBufferNodeSharing(a.device, p->dtype(), a.size, made[from]->arg_as<BufferArg>().storage);
  }
  return made;
}

}  // namespace tg::compiler
