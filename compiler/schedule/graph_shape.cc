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

// A BUFFER as the shape keeps it: its number in walk order instead of its id.
BufferArg NumberedBuffer(const UOp& buffer, size_t number) {
  const auto& a = buffer.arg_as<BufferArg>();
  return BufferArg{-static_cast<int64_t>(number) - 1, a.device, a.size, nullptr};
}

}  // namespace

GraphWalk::GraphWalk(const std::vector<UOpRef>& roots, const std::vector<std::string>& root_devices)
    : devices_(&root_devices) {
  // Sized for a small graph (a dispatch loop's add is five nodes) so that the walk of a cache hit
  // does not grow its tables step by step, and its scratch lives on the stack. The node table stays
  // small enough for the allocator's per-thread cache: a few KB would go to its slow path each time.
  constexpr size_t kFewNodes = 8;
  Positions position;
  nodes_.reserve(kFewNodes);
  srcs_.reserve(kSmall);
  absl::InlinedVector<bool, kSmall> has_buffer;  // per position: a BUFFER at or below it
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
      Node n{done, false, static_cast<uint32_t>(srcs_.size()), static_cast<uint32_t>(done->src().size())};
      bool below = done->op() == Ops::kBuffer;
      for (const UOpRef& s : done->src()) {
        uint32_t p = position.Find(s.get());
        srcs_.push_back(p);
        below = below || has_buffer[p];
      }
      if (!below) {
        srcs_.resize(n.first_src);
        n.num_srcs = 0;
        n.fixed = true;
        hash_ = Mix(hash_, done->hash());
      } else {
        size_t arg_hash = done->op() == Ops::kBuffer ? ArgHash(NumberedBuffer(*done, buffers_.size()))
                                                     : ArgHash(done->arg());
        if (done->op() == Ops::kBuffer) buffers_.push_back(done->shared_from_this());
        hash_ = Mix(Mix(Mix(hash_, static_cast<size_t>(done->op())), DTypeHash(done->dtype())), arg_hash);
        for (uint32_t i = 0; i < n.num_srcs; ++i) hash_ = Mix(hash_, srcs_[n.first_src + i]);
      }
      position.Add(done);
      has_buffer.push_back(below);
      nodes_.push_back(n);
    }
  };
  for (const UOpRef& r : roots) {
    visit(r.get());
    roots_.push_back(position.Find(r.get()));
    hash_ = Mix(hash_, roots_.back());
  }
  for (const std::string& d : root_devices) hash_ = Mix(hash_, absl::HashOf(d));
}

GraphShape::GraphShape(const GraphWalk& walk)
    : srcs_(walk.srcs_), roots_(walk.roots_), devices_(*walk.devices_), hash_(walk.hash_) {
  nodes_.reserve(walk.nodes_.size());
  size_t buffers = 0;
  for (const GraphWalk::Node& w : walk.nodes_) {
    Node n;
    n.first_src = w.first_src;
    n.num_srcs = w.num_srcs;
    if (w.fixed) {
      n.fixed = w.uop->shared_from_this();
    } else {
      n.op = w.uop->op();
      n.dtype = w.uop->dtype();
      n.arg = w.uop->op() == Ops::kBuffer ? Arg{NumberedBuffer(*w.uop, buffers++)} : w.uop->arg();
    }
    nodes_.push_back(std::move(n));
  }
}

bool GraphShape::Node::operator==(const Node& o) const {
  if (fixed || o.fixed) return fixed == o.fixed;
  return op == o.op && dtype == o.dtype && first_src == o.first_src && num_srcs == o.num_srcs &&
         ArgEqual(arg, o.arg);
}

bool operator==(const GraphShape& a, const GraphShape& b) {
  return a.hash_ == b.hash_ && a.nodes_ == b.nodes_ && a.srcs_ == b.srcs_ && a.roots_ == b.roots_ &&
         a.devices_ == b.devices_;
}

bool operator==(const GraphShape& a, const GraphWalk& b) {
  if (a.hash_ != b.hash_ || a.nodes_.size() != b.nodes_.size() || a.srcs_ != b.srcs_ || a.roots_ != b.roots_ ||
      a.devices_ != *b.devices_)
    return false;
  size_t buffers = 0;
  for (size_t i = 0; i < a.nodes_.size(); ++i) {
    const GraphShape::Node& s = a.nodes_[i];
    const GraphWalk::Node& w = b.nodes_[i];
    if (s.fixed || w.fixed) {
      if (s.fixed.get() != (w.fixed ? w.uop : nullptr)) return false;
      continue;
    }
    if (s.op != w.uop->op() || s.dtype != w.uop->dtype() || s.first_src != w.first_src || s.num_srcs != w.num_srcs)
      return false;
    bool same_arg = s.op == Ops::kBuffer ? ArgEqual(s.arg, Arg{NumberedBuffer(*w.uop, buffers++)})
                                         : ArgEqual(s.arg, w.uop->arg());
    if (!same_arg) return false;
  }
  return true;
}

}  // namespace tg::compiler
