#include "ir/multi_arg.h"

#include "ir/error.h"
#include "ir/uop.h"

namespace tg {
namespace {

void Expect(const UOp& u, Ops want) {
  if (u.op() != want)
    throw Error("multi arg: expected " + std::string(OpName(want)) + ", got " + std::string(OpName(u.op())));
}

}  // namespace

MultiArg MultiArg::Of(const UOp& multi) {
  Expect(multi, Ops::kMulti);
  return multi.arg_as<MultiArg>();
}

AllreduceArg AllreduceArg::Of(const UOp& allreduce) {
  Expect(allreduce, Ops::kAllreduce);
  return allreduce.arg_as<AllreduceArg>();
}

UOpRef MakeMulti(std::vector<UOpRef> shards, int64_t axis, DeviceSet devices) {
  if (shards.empty()) throw Error("MULTI: needs at least one shard");
  DType dtype = shards[0]->dtype();
  if (shards.size() != devices.size())
    throw Error("MULTI: " + std::to_string(shards.size()) + " shards for " + std::to_string(devices.size()) + " devices");
  return UOp::Make(Ops::kMulti, dtype, std::move(shards), MultiArg{axis, std::move(devices)});
}

}  // namespace tg
