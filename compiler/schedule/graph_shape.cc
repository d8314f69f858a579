#include "compiler/schedule/graph_shape.h"

#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "absl/hash/hash.h"

namespace tg::compiler {
namespace {

size_t Mix(size_t h, size_t v) { return absl::HashOf(h, v); }
size_t DTypeHash(DType d) { return static_cast<size_t>(d.scalar()) << 8 | static_cast<size_t>(d.count()); }

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
  // Sized for a small graph (a dispatch loop's add is a handful of nodes) so that the walk of a
  // cache hit does not grow its tables step by step, and its scratch lives on the stack.
  constexpr size_t kSmall = 32;
  absl::flat_hash_map<const UOp*, uint32_t> position;
  position.reserve(kSmall);
  nodes_.reserve(kSmall);
  srcs_.reserve(kSmall);
  absl::InlinedVector<bool, kSmall> has_buffer;  // per position: a BUFFER at or below it
  // Iterative post-order walk, sources before users, each node once.
  absl::InlinedVector<std::pair<const UOp*, size_t>, kSmall> stack;
  auto visit = [&](const UOp* root) {
    if (position.contains(root)) return;
    stack.emplace_back(root, 0);
    while (!stack.empty()) {
      auto& [node, next] = stack.back();
      if (next < node->src().size()) {
        const UOp* child = node->src()[next++].get();
        if (!position.contains(child)) stack.emplace_back(child, 0);
        continue;
      }
      const UOp* done = node;
      stack.pop_back();
      if (position.contains(done)) continue;  // reached twice before it finished (a diamond)
      Node n;
      bool below = done->op() == Ops::kBuffer;
      n.first_src = static_cast<uint32_t>(srcs_.size());
      n.num_srcs = static_cast<uint32_t>(done->src().size());
      for (const UOpRef& s : done->src()) {
        uint32_t p = position.at(s.get());
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
      position.emplace(done, static_cast<uint32_t>(nodes_.size()));
      has_buffer.push_back(below);
      nodes_.push_back(std::move(n));
    }
  };
  for (const UOpRef& r : roots) {
    visit(r.get());
    roots_.push_back(position.at(r.get()));
    hash_ = Mix(hash_, roots_.back());
  }
  for (const std::string& d : devices_) hash_ = Mix(hash_, absl::HashOf(d));
}

}  // namespace tg::compiler
