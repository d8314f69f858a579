#include "compiler/schedule/memory_planner.h"

#include <map>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "compiler/schedule/buffer_node.h"

namespace tg::compiler {
namespace {

struct Lifetime {
  size_t first = SIZE_MAX, last = 0;
};

uint64_t Bytes(const UOpRef& placeholder) {
  return static_cast<uint64_t>(placeholder->arg_as<BufferArg>().size) * placeholder->dtype().itemsize();
}

// Free memory by device, then size: best fit is the smallest block that is big enough.
class FreeBlocks {
 public:
  std::shared_ptr<void> Take(const std::string& device, uint64_t bytes) {
    auto& by_size = free_[device];
    auto it = by_size.lower_bound(bytes);
    if (it == by_size.end()) return nullptr;
    std::shared_ptr<void> block = it->second;
    by_size.erase(it);
    return block;
  }
  void Give(const std::string& device, uint64_t bytes, std::shared_ptr<void> block) {
    free_[device].emplace(bytes, std::move(block));
  }

 private:
  absl::flat_hash_map<std::string, std::multimap<uint64_t, std::shared_ptr<void>>> free_;
};

}  // namespace

NodeMap PlanOutputs(const Schedule& schedule, const std::vector<UOpRef>& outputs) {
  absl::flat_hash_set<const UOp*> visible;  // buffers a realized root lets the caller see
  for (const UOpRef& view : schedule.realized)
    if (UOpRef b = BufferOfView(view)) visible.insert(b.get());
  absl::flat_hash_map<const UOp*, Lifetime> life;
  for (size_t i = 0; i < schedule.items.size(); ++i)
    for (const UOpRef& b : schedule.items[i].buffers) {
      Lifetime& l = life[b.get()];
      l.first = std::min(l.first, i), l.last = std::max(l.last, i);
    }
  // Walk the items in order: a block returns to the free list after the last item that uses it,
  // so an item never reads and writes one block through two buffers.
  absl::flat_hash_map<size_t, std::vector<const UOp*>> ends_after;
  NodeMap bound;
  absl::flat_hash_map<const UOp*, std::pair<uint64_t, std::shared_ptr<void>>> block_of;
  FreeBlocks free;
  std::vector<const UOp*> by_first;
  for (const UOpRef& out : outputs) {
    const auto& a = out->arg_as<BufferArg>();
    bool intermediate = !visible.contains(out.get()) && life.contains(out.get()) && a.size > 0;
    if (!intermediate) {
      bound[out.get()] = NewBufferNode(a.device, out->dtype(), a.size);
      continue;
    }
    by_first.push_back(out.get());
    ends_after[life[out.get()].last].push_back(out.get());
  }
  std::sort(by_first.begin(), by_first.end(),
            [&](const UOp* x, const UOp* y) { return life[x].first < life[y].first; });
  size_t next = 0;
  for (size_t i = 0; i < schedule.items.size(); ++i) {
    for (; next < by_first.size() && life[by_first[next]].first == i; ++next) {
      const UOp* p = by_first[next];
      const auto& a = p->arg_as<BufferArg>();
      UOpRef ref = p->shared_from_this();
      uint64_t bytes = Bytes(ref);
      std::shared_ptr<void> block = free.Take(a.device, bytes);
      uint64_t block_bytes = bytes;
      UOpRef node = block ? NewBufferNodeSharing(a.device, p->dtype(), a.size, block)
                          : NewBufferNode(a.device, p->dtype(), a.size);
      if (!block) block = node->arg_as<BufferArg>().storage;
      else block_bytes = std::max(block_bytes, RuntimeBuffer(node)->nbytes());
      bound[p] = node;
      block_of[p] = {block_bytes, block};
    }
    for (const UOp* p : ends_after[i]) {
      auto& [bytes, block] = block_of[p];
      free.Give(p->arg_as<BufferArg>().device, bytes, block);
    }
  }
  return bound;
}

}  // namespace tg::compiler
