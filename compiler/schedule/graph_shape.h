// GraphShape: a graph's structure with its buffers numbered in the order a walk meets them, so two
// graphs that differ only in which buffers they read (two steps of a training loop, two adds of a
// dispatch loop) have equal shapes. The schedule cache's key. GraphWalk is the same walk with the
// nodes borrowed: the cache looks it up as it is (a hit copies no node and interns none) and keeps a
// GraphShape made from it only on a miss.
#ifndef TG_COMPILER_SCHEDULE_GRAPH_SHAPE_H_
#define TG_COMPILER_SCHEDULE_GRAPH_SHAPE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "ir/uop.h"

namespace tg::compiler {

// One post-order walk of the graph under some roots (sources before users, each node once).
// Borrows the nodes and the device names: valid while the graph it walked and |root_devices| live.
class GraphWalk {
 public:
  // The graph under |roots| (in order), each root bound for the device of the same index.
  GraphWalk(const std::vector<UOpRef>& roots, const std::vector<std::string>& root_devices);

  // The graph's BUFFER nodes in walk order, the i-th being the one numbered i.
  std::vector<UOpRef> TakeBuffers() { return std::move(buffers_); }
  size_t hash() const { return hash_; }

 private:
  friend class GraphShape;
  friend bool operator==(const class GraphShape& a, const GraphWalk& b);
  // A node with no buffer at or below it is |fixed|: nodes are interned, so its pointer is its
  // structure. Any other node counts by its parts, a BUFFER by its number, not its identity.
  struct Node {
    const UOp* uop;
    bool fixed;
    uint32_t first_src, num_srcs;  // into srcs_: the walk positions of its sources (none when fixed)
  };

  std::vector<Node> nodes_;
  std::vector<uint32_t> srcs_;
  std::vector<uint32_t> roots_;
  const std::vector<std::string>* devices_;  // the caller's, like the nodes
  std::vector<UOpRef> buffers_;
  size_t hash_ = 0;
};

class GraphShape {
 public:
  // Keeps what |walk| borrowed: fixed nodes by reference (holding one pins no buffer), the others'
  // parts by value.
  explicit GraphShape(const GraphWalk& walk);

  friend bool operator==(const GraphShape& a, const GraphShape& b);
  friend bool operator==(const GraphShape& a, const GraphWalk& b);
  template <class H>
  friend H AbslHashValue(H h, const GraphShape& s) { return H::combine(std::move(h), s.hash_); }
  size_t hash() const { return hash_; }

 private:
  struct Node {
    UOpRef fixed;
    Ops op = Ops::kSink;
    DType dtype;
    Arg arg;  // a BUFFER's holds its number (-1, -2, ...) instead of its id
    uint32_t first_src = 0, num_srcs = 0;
    bool operator==(const Node& o) const;
  };

  std::vector<Node> nodes_;
  std::vector<uint32_t> srcs_;
  std::vector<uint32_t> roots_;        // positions of the roots
  std::vector<std::string> devices_;   // where each root goes
  size_t hash_ = 0;
};

// Hash and equality for a map keyed by GraphShape that is looked up by a GraphWalk as well.
struct GraphShapeHash {
  using is_transparent = void;
  size_t operator()(const GraphShape& s) const { return s.hash(); }
  size_t operator()(const GraphWalk& w) const { return w.hash(); }
};
struct GraphShapeEq {
  using is_transparent = void;
  bool operator()(const GraphShape& a, const GraphShape& b) const { return a == b; }
  bool operator()(const GraphShape& a, const GraphWalk& b) const { return a == b; }
  bool operator()(const GraphWalk& a, const GraphShape& b) const { return b == a; }
};

}  // namespace tg::compiler

#endif  // TG_COMPILER_SCHEDULE_GRAPH_SHAPE_H_
