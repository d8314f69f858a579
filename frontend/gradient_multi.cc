// Gradient rules for values that move between devices: COPY (Tensor::to, and the gather of a sharded
// tensor onto one device) and MULTI (Tensor::shard). As in tinygrad's rules for COPY and MULTI, the
// gradient goes back to where the value came from, spread the way the value was spread.
#include <optional>

#include "absl/container/flat_hash_set.h"
#include "compiler/compiler.h"
#include "frontend/gradient.h"
#include "ir/error.h"
#include "ir/multi_arg.h"

namespace tg {
namespace {

const UOpRef& G(const Match& m) { return m.ctx<GradientContext>().grad; }

// The node that ties |root| to a device: the first BUFFER, COPY or MULTI in it; nullptr for a graph of
// constants, which is at home on every device.
const UOp* DevicePin(const UOpRef& root) {
  absl::flat_hash_set<const UOp*> seen;
  std::vector<const UOp*> stack{root.get()};
  while (!stack.empty()) {
    const UOp* u = stack.back();
    stack.pop_back();
    if (u->op() == Ops::kBuffer || u->op() == Ops::kCopy || u->op() == Ops::kMulti) return u;
    if (!seen.insert(u).second) continue;
    for (auto it = u->src().rbegin(); it != u->src().rend(); ++it) stack.push_back(it->get());
  }
  return nullptr;
}

std::string PinDevice(const UOp& pin) {
  if (pin.op() == Ops::kBuffer) return pin.arg_as<BufferArg>().device;
  if (pin.op() == Ops::kCopy) return pin.arg_as<std::string>();
  return MultiArg::Of(pin).devices.Name();
}

// |g| on device |to|: a COPY unless it is there already or is constants only. A sharded |g| copied to
// one of its own devices is a gather there (compiler/schedule/multi.h), which a SHRINK to that device's slice
// right after turns back into the local shard.
UOpRef OnDevice(const UOpRef& g, const std::string& to) {
  const UOp* pin = DevicePin(g);
  return pin == nullptr || PinDevice(*pin) == to ? g : UOp::Make(Ops::kCopy, g->dtype(), {g}, to);
}

UOpRef ShrinkAxis(const UOpRef& x, int64_t axis, std::pair<int64_t, int64_t> range) {
  std::vector<std::pair<int64_t, int64_t>> window;
  for (int64_t d : x->shape()) window.emplace_back(0, d);
  window[axis] = range;
  return window[axis] == std::pair<int64_t, int64_t>(0, x->shape()[axis]) ? x : x->shrink(window);
}

compiler::ShardLayout LayoutOfMulti(const UOp& multi) {
  MultiArg arg = MultiArg::Of(multi);
  compiler::ShardLayout layout{arg.axis, arg.devices, {}};
  int64_t at = 0;
  for (size_t i = 0; arg.axis >= 0 && i < multi.src().size(); ++i) {
    int64_t len = multi.src(i)->shape()[arg.axis];
    layout.bounds.emplace_back(at, at + len);
    at += len;
  }
  return layout;
}

// |g| (whole, on one device) spread like |layout|: each device receives its own slice only.
UOpRef SpreadLike(const UOpRef& g, const compiler::ShardLayout& layout) {
  std::vector<UOpRef> shards;
  for (size_t i = 0; i < layout.devices.size(); ++i) {
    UOpRef mine = layout.axis < 0 ? g : ShrinkAxis(g, layout.axis, layout.bounds[i]);
    shards.push_back(OnDevice(mine, layout.devices[i]));
  }
  return MakeMulti(std::move(shards), layout.axis, layout.devices);
}

// x.to(d): back to x's device; for a sharded x (a gather), back to x's shards, spread like x.
UOpRef CopyGrad(const Match& m) {
  const UOpRef& x = m["x"];
  const UOp* pin = DevicePin(x);
  if (pin == nullptr) return GradientSink(m["ret"], {G(m)});
  if (pin->op() != Ops::kMulti) return GradientSink(m["ret"], {OnDevice(G(m), PinDevice(*pin))});
  std::optional<compiler::ShardLayout> layout =
      x->op() == Ops::kMulti ? LayoutOfMulti(*x) : compiler::LayoutOf(x);
  if (!layout) throw Error("gradient: a COPY from " + PinDevice(*pin) + " whose layout the multi pass does not know");
  return GradientSink(m["ret"], {SpreadLike(G(m), *layout)});
}

// MULTI(shards): shard i's gradient is device i's slice of the whole gradient. A replicated MULTI's shards
// are copies of one value (Tensor::shard made them from one tensor), so the gradient flows through the
// first alone: through every one, the value's gradient would count once per device.
UOpRef MultiGrad(const Match& m) {
  const UOpRef& ret = m["ret"];
  compiler::ShardLayout layout = LayoutOfMulti(*ret);
  std::vector<UOpRef> grads;
  for (size_t i = 0; i < ret->src().size(); ++i) {
    if (layout.axis < 0) grads.push_back(i == 0 ? OnDevice(G(m), layout.devices[0]) : nullptr);
    else grads.push_back(ShrinkAxis(OnDevice(G(m), layout.devices[i]), layout.axis, layout.bounds[i]));
  }
  return GradientSink(ret, grads);
}

}  // namespace

UOpRef GradientOnDevice(const UOpRef& grad, const std::string& device) { return OnDevice(grad, device); }

const PatternMatcher& DeviceGradientRules() {
  static const PatternMatcher* rules = new PatternMatcher({
      {Pat::Op(Ops::kCopy, {Pat::Var("x")}, "ret"), CopyGrad},
      {Pat::Op(Ops::kMulti, {}, "ret").allow_any_len(), MultiGrad},
  });
  return *rules;
}

}  // namespace tg
