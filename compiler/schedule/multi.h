// SPMD over devices: turns a tensor graph that contains MULTI nodes (sharded or replicated tensors,
// ir/multi_arg.h) into one ordinary graph per device, as tinygrad's schedule/multi.py does. Ops run
// per shard; a reduce over the shard axis combines the per-device partials through ALLREDUCE
// (lowered by compiler/schedule/allreduce.h); a pad, shrink or flip along the shard axis gathers (all-gather)
// first and shards again after; to() one device gathers there (compiler/schedule/gather.h); a reshape keeps the
// shard axis where its start survives and otherwise is an error. Used by compiler/realize.cc; the front
// end builds MULTI nodes (and asks LayoutOf for gradients through a gather).
#ifndef TG_COMPILER_SCHEDULE_MULTI_H_
#define TG_COMPILER_SCHEDULE_MULTI_H_

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ir/multi_arg.h"
#include "ir/uop.h"

namespace tg::compiler {

// The per-device roots to schedule for some tensor-graph roots.
struct SpmdRoots {
  std::vector<UOpRef> roots;          // plain graphs (no MULTI left; ALLREDUCE may remain)
  std::vector<std::string> devices;   // where roots[i] is realized
  struct Origin {
    std::vector<size_t> roots;        // indices into roots: one per device, or one for a plain root
    std::optional<MultiArg> multi;    // set when the original root is spread over devices
  };
  std::vector<Origin> origins;        // one per original root
};

// |devices[i]| is root i's device: a canonical name, or a DeviceSet's Name() for a tensor on several
// devices (a plain graph there, a broadcast constant, is replicated). Throws tg::Error for an op
// that cannot run on sharded operands (a reshape that merges the shard axis into the axes before it)
// or for operands on different device sets.
SpmdRoots SplitMulti(const std::vector<UOpRef>& roots, const std::vector<std::string>& devices);

// Where the shards of a tensor over several devices lie: split along |axis| at |bounds| ([start, stop)
// per device), or replicated (axis -1, bounds empty).
struct ShardLayout {
  int64_t axis = -1;
  std::vector<std::string> devices;
  std::vector<std::pair<int64_t, int64_t>> bounds;
};

// The layout |root| ends up in after the multi pass; nullopt for a graph on one device (or none).
// Throws as SplitMulti does. Costs one multi pass over |root|'s graph.
std::optional<ShardLayout> LayoutOf(const UOpRef& root);

// Whether any root's graph holds a MULTI or is realized on several devices (cheap: UOp::has_multi).
bool HasMulti(const std::vector<UOpRef>& roots, const std::vector<std::string>& devices);

// Shard bounds [start, stop) of |size| elements over |n| devices: ceil(size / n) each, the last
// ones shorter (maybe empty), as tinygrad's shard splits.
std::vector<std::pair<int64_t, int64_t>> EvenBounds(int64_t size, size_t n);

}  // namespace tg::compiler

#endif  // TG_COMPILER_SCHEDULE_MULTI_H_
