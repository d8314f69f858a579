#include "compiler/schedule/gather.h"

#include "compiler/errors.h"
#include "compiler/schedule/buffer_node.h"
#include "ir/error.h"
#include "runtime/buffer.h"

namespace tg::compiler {
namespace {

UOpRef PadAxis(const UOpRef& x, int64_t axis, int64_t before, int64_t after) {
  std::vector<std::pair<int64_t, int64_t>> pads(x->shape().size(), {0, 0});
  pads[axis] = {before, after};
  return before == 0 && after == 0 ? x : x->pad(pads);
}

// True inside a |shape|-sized window that starts at |before| along |axis| of a |total|-long axis.
UOpRef WindowMask(const Shape& shape, int64_t axis, int64_t before, int64_t total) {
  UOpRef inside = UOp::Const(dtypes::bool_, true)->reshape(Shape(shape.size(), 1))->expand(shape);
  return PadAxis(inside, axis, before, total - before - shape[axis]);
}

bool Direct(const std::string& from, const std::string& to) {
  return from == to || runtime::Buffer::CopiesDirectly(DeviceNamed(from), DeviceNamed(to));
}

UOpRef CopyTo(const UOpRef& x, const std::string& from, const std::string& to) {
  return from == to ? x : UOp::Make(Ops::kCopy, x->dtype(), {x}, to);
}

// The replica a replicated tensor is read from on |to|: |to|'s own, else one that copies directly.
size_t ReplicaFor(const std::vector<std::string>& devices, const std::string& to) {
  for (size_t i = 0; i < devices.size(); ++i)
    if (devices[i] == to) return i;
  for (size_t i = 0; i < devices.size(); ++i)
    if (Direct(devices[i], to)) return i;
  return 0;
}

}  // namespace

UOpRef ConcatExact(const std::vector<UOpRef>& pieces, int64_t axis) {
  if (pieces.empty()) throw Error("ConcatExact: no pieces");
  int64_t total = 0;
  for (const UOpRef& p : pieces) total += p->shape()[axis];
  UOpRef out;
  int64_t at = 0;
  for (const UOpRef& p : pieces) {
    int64_t len = p->shape()[axis];
    if (len == 0) continue;
    UOpRef placed = PadAxis(p, axis, at, total - at - len);
    out = out ? WindowMask(p->shape(), axis, at, total)->where(placed, out) : placed;
    at += len;
  }
  if (out) return out;
  Shape full = pieces[0]->shape();  // every piece is empty along the axis: so is the result
  full[axis] = 0;
  return UOp::Const(pieces[0]->dtype(), int64_t{0})->reshape(Shape(full.size(), 1))->expand(full);
}

UOpRef GatherTo(const std::vector<UOpRef>& shards, const std::vector<std::string>& devices, int64_t axis,
                const std::string& to) {
  if (axis < 0) {
    size_t from = ReplicaFor(devices, to);
    return CopyTo(shards[from], devices[from], to);
  }
  std::vector<UOpRef> here;
  for (size_t i = 0; i < shards.size(); ++i) here.push_back(CopyTo(shards[i], devices[i], to));
  return ConcatExact(here, axis);
}

bool GathersDirectly(const std::vector<std::string>& devices, const std::string& to) {
  for (const std::string& d : devices)
    if (!Direct(d, to)) return false;
  return true;
}

}  // namespace tg::compiler
