// GraphShape: a graph's structure with its buffers numbered in the order a walk meets them, so two
// graphs that differ only in which buffers they read (two steps of a training loop, two adds of a
// dispatch loop) have equal shapes. The schedule cache's key: it is built in one walk that interns
// no node, so a cache hit costs that walk and a hash instead of a graph rebuilt over placeholders.
#ifndef TG_COMPILER_SCHEDULE_GRAPH_SHAPE_H_
#define TG_COMPILER_SCHEDULE_GRAPH_SHAPE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "ir/uop.h"

namespace tg::compiler {

class GraphShape {
 public:
  // The shape of the graph under |roots| (in order), each root bound for the device of the same index.
  // |buffers| receives the graph's BUFFER nodes, the i-th being the one numbered i.
  GraphShape(const std::vector<UOpRef>& roots, const std::vector<std::string>& root_devices,
             std::vector<UOpRef>* buffers);

  friend bool operator==(const GraphShape& a, const GraphShape& b);
  template <class H>
  friend H AbslHashValue(H h, const GraphShape& s) { return H::combine(std::move(h), s.hash_); }

 private:
  // One node in walk order. A node with no buffer below it is kept as itself: nodes are interned,
  // so the pointer is its structure, and holding it pins no buffer. Any other node is kept as its
  // parts, a BUFFER's arg holding its number instead of its id.
  struct Node {
    UOpRef fixed;
    Ops op = Ops::kSink;
    DType dtype;
    Arg arg;
    uint32_t first_src = 0, num_srcs = 0;  // into srcs_: the positions of its sources
    bool operator==(const Node& o) const;
  };

  std::vector<Node> nodes_;
  std::vector<uint32_t> srcs_;
  std::vector<uint32_t> roots_;        // positions of the roots
  std::vector<std::string> devices_;   // where each root goes
  size_t hash_ = 0;
};

}  // namespace tg::compiler

#endif  // TG_COMPILER_SCHEDULE_GRAPH_SHAPE_H_
