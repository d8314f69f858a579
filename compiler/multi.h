// SPMD over devices: turns a tensor graph that contains MULTI nodes (sharded or replicated tensors,
// ir/multi_arg.h) into one ordinary graph per device, as tinygrad's schedule/multi.py does. Ops run
// per shard; a reduce over the shard axis combines the per-device partials through ALLREDUCE
// (lowered by compiler/allreduce.h); ops that cannot keep the shard axis gather (all-gather) first
// and shard again after. Used by compiler/realize.cc; the front end only builds MULTI nodes.
#ifndef TG_COMPILER_MULTI_H_
#define TG_COMPILER_MULTI_H_

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

// |devices[i]| is root i's device: a canonical name, or a DeviceTupleName for a tensor on several
// devices (a plain graph there, a broadcast constant, is replicated). Throws tg::Error for an op
// that cannot run on sharded operands or for operands on different device sets.
SpmdRoots SplitMulti(const std::vector<UOpRef>& roots, const std::vector<std::string>& devices);

// Whether any root's graph holds a MULTI (cheap when no MULTI was ever built in this process).
bool HasMulti(const std::vector<UOpRef>& roots, const std::vector<std::string>& devices);

// A realized value: a BUFFER view, or a MULTI whose every shard is one.
bool IsRealized(const UOpRef& u);

// Shard bounds [start, stop) of |size| elements over |n| devices: ceil(size / n) each, the last
// ones shorter (maybe empty), as tinygrad's shard splits.
std::vector<std::pair<int64_t, int64_t>> EvenBounds(int64_t size, size_t n);

}  // namespace tg::compiler

#endif  // TG_COMPILER_MULTI_H_
