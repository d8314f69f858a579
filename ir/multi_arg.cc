#include "ir/multi_arg.h"

#include <atomic>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "ir/error.h"

namespace tg {
namespace {

std::vector<std::string> Parts(const UOp& u, Ops want, size_t count) {
  if (u.op() != want)
    throw Error("multi arg: expected " + std::string(OpName(want)) + ", got " + std::string(OpName(u.op())));
  std::vector<std::string> parts = absl::StrSplit(u.arg_as<std::string>(), '|');
  if (parts.size() != count) throw Error("multi arg: malformed " + std::string(OpName(want)) + " arg '" + u.arg_as<std::string>() + "'");
  return parts;
}

int64_t Int(const std::string& s) {
  int64_t v = 0;
  if (!absl::SimpleAtoi(s, &v)) throw Error("multi arg: '" + s + "' is not an integer");
  return v;
}

Ops ReduceOpNamed(const std::string& name) {
  for (Ops op : {Ops::kAdd, Ops::kMul, Ops::kMax})
    if (OpName(op) == name) return op;
  throw Error("ALLREDUCE: reduce op must be ADD, MUL or MAX, got " + name);
}

std::atomic<bool> multi_made{false};

}  // namespace

bool MultiEverMade() { return multi_made.load(std::memory_order_relaxed); }

std::string MultiArg::Encode() const { return absl::StrCat("axis=", axis, "|", absl::StrJoin(devices, ",")); }

MultiArg MultiArg::Of(const UOp& multi) {
  std::vector<std::string> parts = Parts(multi, Ops::kMulti, 2);
  MultiArg a;
  a.axis = Int(parts[0].rfind("axis=", 0) == 0 ? parts[0].substr(5) : parts[0]);
  a.devices = absl::StrSplit(parts[1], ',');
  return a;
}

std::string AllreduceArg::Encode() const {
  return absl::StrCat(std::string(OpName(op)), "|", out, "|", absl::StrJoin(devices, ","));
}

AllreduceArg AllreduceArg::Of(const UOp& allreduce) {
  std::vector<std::string> parts = Parts(allreduce, Ops::kAllreduce, 3);
  AllreduceArg a;
  a.op = ReduceOpNamed(parts[0]);
  a.out = Int(parts[1]);
  a.devices = absl::StrSplit(parts[2], ',');
  return a;
}

UOpRef MakeMulti(std::vector<UOpRef> shards, int64_t axis, std::vector<std::string> devices) {
  if (shards.empty()) throw Error("MULTI: needs at least one shard");
  DType dtype = shards[0]->dtype();
  if (shards.size() != devices.size())
    throw Error("MULTI: " + std::to_string(shards.size()) + " shards for " + std::to_string(devices.size()) + " devices");
  multi_made.store(true, std::memory_order_relaxed);
  return UOp::Make(Ops::kMulti, dtype, std::move(shards), MultiArg{axis, std::move(devices)}.Encode());
}

std::string DeviceTupleName(const std::vector<std::string>& devices) {
  return "(" + absl::StrJoin(devices, ", ") + ")";
}

std::vector<std::string> SplitDeviceTuple(const std::string& name) {
  std::string inner(absl::StripAsciiWhitespace(name));
  if (inner.size() < 2 || inner.front() != '(' || inner.back() != ')') return {name};
  std::vector<std::string> out;
  std::vector<std::string> parts = absl::StrSplit(inner.substr(1, inner.size() - 2), ',');
  for (const std::string& part : parts)
    if (std::string p(absl::StripAsciiWhitespace(part)); !p.empty()) out.push_back(p);
  return out;
}

}  // namespace tg
