// The args of the multi-device ops (ir/ops.h), held typed in a UOp's Arg: MULTI's shard axis and
// devices, ALLREDUCE's reduce op, output device and devices.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "ir/device_set.h"
#include "ir/ops.h"

namespace tg {

class UOp;
using UOpRef = std::shared_ptr<const UOp>;

struct MultiArg {
  int64_t axis = -1;  // the axis the shards split; -1: every device holds the whole tensor
  DeviceSet devices;  // one per shard, in shard order
  bool operator==(const MultiArg&) const = default;
  static MultiArg Of(const UOp& multi);  // throws tg::Error when |multi| is not a MULTI
};

struct AllreduceArg {
  Ops op = Ops::kAdd;  // ADD, MUL or MAX
  int64_t out = 0;     // the device (index into devices) this node's value lands on
  DeviceSet devices;   // one per source, in source order
  bool operator==(const AllreduceArg&) const = default;
  static AllreduceArg Of(const UOp& allreduce);  // throws tg::Error when |allreduce| is not an ALLREDUCE
};

// MULTI(shards) over |devices| along |axis| (-1 replicated): the logical tensor they make up.
UOpRef MakeMulti(std::vector<UOpRef> shards, int64_t axis, DeviceSet devices);

}  // namespace tg
