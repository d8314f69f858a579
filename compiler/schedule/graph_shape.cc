#include "compiler/schedule/graph_shape.h"

#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "absl/hash/hash.h"

namespace tg::compiler {
namespace {

size_t Mix(size_t h, size_t v) { return absl::HashOf(h, v); }
size_t DTypeHash(DType d) { return static_cast<size_t>(d.scalar()) << 8 | static_cast<size_t>(d.count()); }

constexpr size_t kSmall = 32;
constexpr uint32_t kUnseen = ~uint32_t{0};

// Walk positions by node. A dispatch loop's graph is a handful of nodes, where scanning a short
// array beats hashing; a graph that outgrows it moves to a hash map.
class Positions {
 public:
  uint32_t Find(const UOp* node) const {
    if (!large_.empty()) {
      auto it = large_.find(node);
      return it == large_.end() ? kUnseen : it->second;
    }
    for (size_t i = 0; i < small_.size(); ++i)
      if (small_[i] == node) return static_cast<uint32_t>(i);
    return kUnseen;
  }
  bool Contains(const UOp* node) const { return Find(node) != kUnseen; }
  // Nodes are added in position order: the n-th added has position n.
  void Add(const UOp* node) {
    if (large_.empty() && small_.size() < kSmall) {
      small_.push_back(node);
      return;
    }
    if (large_.empty())
      for (size_t i = 0; i < small_.size(); ++i) large_.emplace(small_[i], static_cast<uint32_t>(i));
    large_.emplace(node, static_cast<uint32_t>(large_.size()));
  }

 private:
  absl::InlinedVector<const UOp*, kSmall> small_;
  absl::flat_hash_map<const UOp*, uint32_t> large_;
};

}  // namespace

bool GraphShape::Node::operator==(const Node& o) const {
  if (fixed || o.fixed) return fixed == o.fixed;
  return op == o.op && dtype == o.dtype && first_src == o.first_src && num_srcs == o.num_srcs &&
         ArgEqual(arg, o.arg);
}

bool operator==(const GraphShape& a, const GraphShape& b) {
  return a.hash_ == b.hash_ && a.nodes_ == b.nodes_ && a.srcs_ == b.srcs_ && a.roots_ == b.roots_ &&
         a.devices_ == b.devices_;
}

GraphShape::GraphShape(const std::vector<UOpRef>& roots, const std::vector<std::string>& root_devices,
                       std::vector<UOpRef>* buffers)
    : devices_(root_devices) {
  // Sized for a small graph (a dispatch loop's add is five nodes) so that the walk of a cache hit
  // does not grow its tables step by step, and its scratch lives on the stack. The node table stays
  // small enough for the allocator's per-thread cache: a few KB would go to its slow path each time.
  constexpr size_t kFewNodes = 8;
  Positions position;
  nodes_.reserve(kFewNodes);
  srcs_.reserve(kSmall);
  absl::InlinedVector<bool, kSmall> has_buffer;  // per position: a BUFFER at or below it
  // Iterative post-order walk, sources before users, each node once.
  absl::InlinedVector<std::pair<const UOp*, size_t>, kSmall> stack;
  auto visit = [&](const UOp* root) {
    if (position.Contains(root)) return;
    stack.emplace_back(root, 0);
    while (!stack.empty()) {
      auto& [node, next] = stack.back();
      if (next < node->src().size()) {
        const UOp* child = node->src()[next++].get();
        if (!position.Contains(child)) stack.emplace_back(child, 0);
        continue;
      }
      const UOp* done = node;
      stack.pop_back();
      if (position.Contains(done)) continue;  // reached twice before it finished (a diamond)
      Node n;
      bool below = done->op() == Ops::kBuffer;
      n.first_src = static_cast<uint32_t>(srcs_.size());
      n.num_srcs = static_cast<uint32_t>(done->src().size());
      for (const UOpRef& s : done->src()) {
        uint32_t p = position.Find(s.get());
        srcs_.push_back(p);
        below = below || has_buffer[p];
      }
      if (!below) {
        srcs_.resize(n.first_src);
        n.num_srcs = 0;
        n.fixed = done->shared_from_this();
        hash_ = Mix(hash_, done->hash());
      } else {
        n.op = done->op();
        n.dtype = done->dtype();
        if (done->op() == Ops::kBuffer) {
          const auto& a = done->arg_as<BufferArg>();
          n.arg = BufferArg{-static_cast<int64_t>(buffers->size()) - 1, a.device, a.size, nullptr};
          buffers->push_back(done->shared_from_this());
        } else {
          n.arg = done->arg();
        }
        hash_ = Mix(Mix(Mix(hash_, static_cast<size_t>(n.op)), DTypeHash(n.dtype)), ArgHash(n.arg));
        for (uint32_t i = 0; i < n.num_srcs; ++i) hash_ = Mix(hash_, srcs_[n.first_src + i]);
      }
      position.Add(done);
      has_buffer.push_back(below);
      nodes_.push_back(std::move(n));
    }
  };
  for (const UOpRef& r : roots) {
    visit(r.get());
    roots_.push_back(position.Find(r.get()));
    hash_ = Mix(hash_, roots_.back());
  }
  for (const std::string& d : devices_) hash_ = Mix(hash_, absl::HashOf(d));
}

}  // namespace tg::compiler
