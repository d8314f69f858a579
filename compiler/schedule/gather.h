// Gathers: a sharded tensor made whole on one device (Tensor::to of a MULTI), and the exact assembly of
// disjoint pieces laid side by side that gathers and the ring allreduce (compiler/schedule/allreduce.h) end with.
#ifndef TG_COMPILER_SCHEDULE_GATHER_H_
#define TG_COMPILER_SCHEDULE_GATHER_H_

#include <string>
#include <vector>

#include "ir/uop.h"

namespace tg::compiler {

// |pieces| (shapes equal but on |axis|) laid side by side along |axis|. Each element is selected from
// the one piece that holds it (WHERE over the piece's window), never added to the others' zero padding,
// so the result is bitwise the pieces' values for every dtype (-0.0 and NaN payloads included).
UOpRef ConcatExact(const std::vector<UOpRef>& pieces, int64_t axis);

// The tensor whose |shards| (shards[i] on devices[i]) lie side by side along |axis| (-1: replicated,
// every shard is the whole tensor), made whole on device |to|. Every shard is copied once, straight to
// |to| (no relay through another shard's device): a direct copy_d2d where the two devices' plugin has
// one, staged through host memory otherwise (runtime::Buffer::CopyFrom). A replicated tensor copies
// one shard: |to|'s own when it holds one, else the first that copies directly.
UOpRef GatherTo(const std::vector<UOpRef>& shards, const std::vector<std::string>& devices, int64_t axis,
                const std::string& to);

// Whether every one of |devices| copies to |to| device to device (copy_d2d), without host staging.
bool GathersDirectly(const std::vector<std::string>& devices, const std::string& to);

}  // namespace tg::compiler

#endif  // TG_COMPILER_SCHEDULE_GATHER_H_
