#include "compiler/codegen/gpudims.h"

#include <limits>
#include <string>

#include "ir/substitute.h"

namespace tg::compiler {
namespace {

constexpr size_t kMaxDims = 3;

void MapLoops(const std::vector<UOpRef>& loops, const std::string& prefix, std::array<uint32_t, 3>& extents,
              NodeMap& replace) {
  extents = {1, 1, 1};
  for (size_t i = 0; i < loops.size() && i < kMaxDims; ++i) {
    int64_t extent = loops[i]->src(0)->const_int();
    // CUDA/HIP grids allow 2^31-1 in x but only 65535 in y and z: bigger stays a loop.
    int64_t limit = i == 0 ? std::numeric_limits<int32_t>::max() : 65535;
    if (extent > limit) break;
    extents[i] = static_cast<uint32_t>(extent);
    replace[loops[i].get()] = UOp::Special(prefix + std::to_string(i), extent, loops[i]->dtype());
  }
}

}  // namespace

UOpRef AddGpuDims(const UOpRef& sink, const std::vector<UOpRef>& globals, const std::vector<UOpRef>& locals,
                  runtime::LaunchDims& dims) {
  NodeMap replace;
  MapLoops(globals, "gidx", dims.num_groups, replace);
  MapLoops(locals, "lidx", dims.group_size, replace);
  return Substitute(sink, replace);
}

}  // namespace tg::compiler
