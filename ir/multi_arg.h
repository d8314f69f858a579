// The args of the multi-device ops (ir/ops.h): MULTI's shard axis and devices, ALLREDUCE's reduce op,
// output device and devices. Stored in the UOp as readable strings ("axis=0|CPU,CPU:1"), so hashing,
// equality and dumps need nothing new; these structs are the only way to read and write them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/ops.h"
#include "ir/uop.h"

namespace tg {

struct MultiArg {
  int64_t axis = -1;                 // the axis the shards split; -1: every device holds the whole tensor
  std::vector<std::string> devices;  // canonical device names, one per shard, in shard order
  std::string Encode() const;
  static MultiArg Of(const UOp& multi);  // throws tg::Error when |multi| is not a MULTI
};

struct AllreduceArg {
  Ops op = Ops::kAdd;                // ADD, MUL or MAX
  int64_t out = 0;                   // the device (index into devices) this node's value lands on
  std::vector<std::string> devices;  // one per source, in source order
  std::string Encode() const;
  static AllreduceArg Of(const UOp& allreduce);
};

// MULTI(shards) over |devices| along |axis| (-1 replicated): the logical tensor they make up.
// Build MULTI only through this: it records that one exists (MultiEverMade).
UOpRef MakeMulti(std::vector<UOpRef> shards, int64_t axis, std::vector<std::string> devices);
// Whether this process ever built a MULTI: single-device programs skip the multi pass entirely.
bool MultiEverMade();

// "(CPU, CPU:1)": how a tensor spread over |devices| names its device.
std::string DeviceTupleName(const std::vector<std::string>& devices);
// The names inside a DeviceTupleName, or {name} for a single device.
std::vector<std::string> SplitDeviceTuple(const std::string& name);

}  // namespace tg
