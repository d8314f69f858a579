// The multi pass: per-op rules that run a graph over MULTI nodes once per device (SPMD).
#include "compiler/multi.h"

#include <algorithm>
#include <variant>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "compiler/buffer_node.h"
#include "ir/error.h"

namespace tg::compiler {
namespace {

using Bounds = std::vector<std::pair<int64_t, int64_t>>;

// A value spread over devices: shard i lives on devices[i]. axis -1: every shard is the whole tensor.
struct Spread {
  std::vector<UOpRef> shards;
  int64_t axis = -1;
  std::vector<std::string> devices;

  Bounds bounds() const {
    Bounds b;
    int64_t at = 0;
    for (const UOpRef& s : shards) {
      int64_t n = axis < 0 ? 0 : s->shape()[axis];
      b.emplace_back(at, at + n);
      at += n;
    }
    return b;
  }
  Shape full_shape() const {
    Shape s = shards[0]->shape();
    if (axis >= 0) s[axis] = bounds().back().second;
    return s;
  }
};

using Value = std::variant<UOpRef, Spread>;  // a plain graph, or one spread over devices

bool IsSpread(const Value& v) { return std::holds_alternative<Spread>(v); }

[[noreturn]] void Unsupported(const UOpRef& u, const std::string& why) {
  throw Error("sharded tensors: " + std::string(OpName(u->op())) + " " + why);
}

// A plain graph that reads device memory cannot join a spread value: it lives on one device.
void CheckDeviceFree(const UOpRef& plain, const Spread& with) {
  for (const UOpRef& n : plain->toposort())
    if (n->op() == Ops::kBuffer || n->op() == Ops::kCopy)
      throw Error("sharded tensors: an operand on one device meets a tensor on " + DeviceTupleName(with.devices) +
                  "; shard it too (.shard(devices, axis)) or move the other one with .to(device)");
}

// A constant graph used on every device. One node can only be realized on one device, so a constant
// that becomes a buffer of its own (a reduce over constants, a contiguous) is copied to each device
// that reads it; one that fuses into its reader's kernel is used as it is.
std::vector<UOpRef> PinnedPerDevice(const UOpRef& plain, const std::vector<std::string>& devices) {
  bool realizes = false;
  for (const UOpRef& n : plain->toposort())
    realizes = realizes || n->op() == Ops::kReduce || n->op() == Ops::kContiguous;
  std::vector<UOpRef> out;
  for (const std::string& d : devices) out.push_back(realizes ? UOp::Make(Ops::kCopy, plain->dtype(), {plain}, d) : plain);
  return out;
}

UOpRef ShrinkAxis(const UOpRef& x, int64_t axis, std::pair<int64_t, int64_t> range) {
  std::vector<std::pair<int64_t, int64_t>> bounds;
  for (int64_t d : x->shape()) bounds.emplace_back(0, d);
  bounds[axis] = range;
  return bounds[axis] == std::pair<int64_t, int64_t>(0, x->shape()[axis]) ? x : x->shrink(bounds);
}

UOpRef PadAxis(const UOpRef& x, int64_t axis, int64_t before, int64_t after) {
  std::vector<std::pair<int64_t, int64_t>> pads(x->shape().size(), {0, 0});
  pads[axis] = {before, after};
  return before == 0 && after == 0 ? x : x->pad(pads);
}

// Disjoint pieces padded to one shape combine by addition (OR for bool): the gaps are zeros.
UOpRef Combine(const UOpRef& a, const UOpRef& b) { return a->alu(a->dtype().is_bool() ? Ops::kOr : Ops::kAdd, {b}); }

UOpRef CopyTo(const UOpRef& x, const std::string& from, const std::string& to) {
  return from == to ? x : UOp::Make(Ops::kCopy, x->dtype(), {x}, to);
}

// The whole tensor on device |to|: every shard copied there and laid side by side along the axis.
UOpRef GatherOn(const Spread& s, size_t to) {
  if (s.axis < 0) return s.shards[to];
  Bounds b = s.bounds();
  int64_t size = b.back().second;
  UOpRef out;
  for (size_t j = 0; j < s.shards.size(); ++j) {
    if (b[j].first == b[j].second) continue;
    UOpRef piece = PadAxis(CopyTo(s.shards[j], s.devices[j], s.devices[to]), s.axis, b[j].first, size - b[j].second);
    out = out ? Combine(out, piece) : piece;
  }
  if (!out) out = UOp::Const(s.shards[0]->dtype(), int64_t{0})->reshape(Shape(s.full_shape().size(), 1))->expand(s.full_shape());
  return out;
}

Spread Replicated(const Spread& s) {  // all-gather
  if (s.axis < 0) return s;
  Spread r{{}, -1, s.devices};
  for (size_t i = 0; i < s.devices.size(); ++i) r.shards.push_back(GatherOn(s, i));
  return r;
}

Spread ShardReplicated(const Spread& r, int64_t axis, const Bounds& bounds) {  // local: no copies
  if (axis < 0) return r;
  Spread s{{}, axis, r.devices};
  for (size_t i = 0; i < r.shards.size(); ++i) s.shards.push_back(ShrinkAxis(r.shards[i], axis, bounds[i]));
  return s;
}

Spread ToLayout(const Spread& s, int64_t axis, const Bounds& bounds) {
  if (s.axis == axis && (axis < 0 || s.bounds() == bounds)) return s;
  return ShardReplicated(Replicated(s), axis, bounds);
}

class MultiPass {
 public:
  Value Get(const UOpRef& u) { return memo_.at(u.get()); }

  void Visit(const UOpRef& u) {
    std::vector<Value> src;
    bool any_spread = false;
    for (const UOpRef& s : u->src()) {
      src.push_back(memo_.at(s.get()));
      any_spread = any_spread || IsSpread(src.back());
    }
    memo_.emplace(u.get(), Rule(u, src, any_spread));
  }

 private:
  Value Rule(const UOpRef& u, const std::vector<Value>& src, bool any_spread) {
    if (u->op() == Ops::kMulti) {
      MultiArg arg = MultiArg::Of(*u);
      Spread s{{}, arg.axis, arg.devices};
      for (const Value& v : src) {
        if (IsSpread(v)) Unsupported(u, "of a MULTI: shards must be single-device tensors");
        s.shards.push_back(std::get<UOpRef>(v));
      }
      return s;
    }
    if (!any_spread) {
      std::vector<UOpRef> plain;
      for (const Value& v : src) plain.push_back(std::get<UOpRef>(v));
      return plain == u->src() ? u : u->replace_src(plain);
    }
    if (u->op() == Ops::kCopy) {  // a sharded tensor to one device: gather there
      const Spread& s = std::get<Spread>(src[0]);
      const std::string& to = u->arg_as<std::string>();
      for (size_t i = 0; i < s.devices.size(); ++i)
        if (s.devices[i] == to) return GatherOn(s, i);
      Spread staged = s;  // gather on the first device, then one copy
      return CopyTo(GatherOn(staged, 0), s.devices[0], to);
    }
    if (IsAlu(u->op()) || u->op() == Ops::kAssign) return Elementwise(u, src);
    if (u->op() == Ops::kReduce) return Reduce(u, std::get<Spread>(src[0]));
    if (u->op() == Ops::kContiguous || u->op() == Ops::kDetach) return PerShard(std::get<Spread>(src[0]), u);
    if (IsMovement(u->op())) return Movement(u, std::get<Spread>(src[0]));
    Unsupported(u, "has no rule for sharded operands");
  }

  // Same op on every shard, with |arg_for(i)| as shard i's arg (default: the op's own).
  template <class ArgFor>
  static Spread Map(const Spread& s, const UOpRef& u, int64_t new_axis, ArgFor arg_for) {
    Spread out{{}, new_axis, s.devices};
    for (size_t i = 0; i < s.shards.size(); ++i)
      out.shards.push_back(UOp::Make(u->op(), u->dtype(), {s.shards[i]}, arg_for(i)));
    return out;
  }
  static Spread PerShard(const Spread& s, const UOpRef& u) {
    return Map(s, u, s.axis, [&](size_t) { return u->arg(); });
  }

  // Every operand in one layout: the first sharded operand's axis and bounds (replicated if none).
  Spread Elementwise(const UOpRef& u, const std::vector<Value>& src) {
    const Spread* lead = nullptr;
    for (const Value& v : src)
      if (const Spread* s = std::get_if<Spread>(&v); s && (lead == nullptr || (lead->axis < 0 && s->axis >= 0)))
        lead = s;
    if (u->op() == Ops::kAssign) {  // the target's layout wins: it is written in place
      if (!IsSpread(src[0])) Unsupported(u, "of a sharded value into a single-device tensor; .to() the value first");
      lead = &std::get<Spread>(src[0]);
    }
    int64_t axis = lead->axis;
    Bounds bounds = lead->bounds();
    std::vector<Spread> aligned;
    for (const Value& v : src) {
      if (const Spread* s = std::get_if<Spread>(&v)) {
        if (s->devices != lead->devices)
          throw Error("sharded tensors: " + std::string(OpName(u->op())) + " of tensors on " +
                      DeviceTupleName(s->devices) + " and " + DeviceTupleName(lead->devices) +
                      "; shard both over the same devices");
        aligned.push_back(ToLayout(*s, axis, bounds));
      } else {
        const UOpRef& plain = std::get<UOpRef>(v);
        CheckDeviceFree(plain, *lead);
        Spread r{PinnedPerDevice(plain, lead->devices), -1, lead->devices};
        // A scalar operand (kernel-level math) or a full-shaped one cut like the lead.
        aligned.push_back(plain->shape().empty() ? r : ShardReplicated(r, axis, bounds));
      }
    }
    Spread out{{}, axis, lead->devices};
    for (size_t i = 0; i < lead->devices.size(); ++i) {
      std::vector<UOpRef> ops;
      for (const Spread& a : aligned) ops.push_back(a.shards[i]);
      out.shards.push_back(u->replace_src(ops));
    }
    return out;
  }

  // Over the shard axis: each device reduces its part, ALLREDUCE combines them (replicated result).
  Spread Reduce(const UOpRef& u, const Spread& s) {
    const ReduceArg& arg = u->arg_as<ReduceArg>();
    Spread local = PerShard(s, u);
    bool over_shard_axis = false;
    for (int64_t a : arg.axes) over_shard_axis = over_shard_axis || a == s.axis;
    if (!over_shard_axis) return local;
    Spread out{{}, -1, s.devices};
    for (size_t i = 0; i < s.devices.size(); ++i)
      out.shards.push_back(UOp::Make(Ops::kAllreduce, u->dtype(), local.shards,
                                     AllreduceArg{arg.op, static_cast<int64_t>(i), s.devices}.Encode()));
    return out;
  }

  Spread Movement(const UOpRef& u, const Spread& s) {
    if (s.axis < 0) return PerShard(s, u);
    const Shape& in = u->src(0)->shape();
    const int64_t axis = s.axis;
    Bounds bounds = s.bounds();
    auto shard_len = [&](size_t i) { return bounds[i].second - bounds[i].first; };
    switch (u->op()) {
      case Ops::kPermute: {
        const auto& perm = u->arg_as<std::vector<int64_t>>();
        int64_t new_axis = std::find(perm.begin(), perm.end(), axis) - perm.begin();
        return Map(s, u, new_axis, [&](size_t) { return u->arg(); });
      }
      case Ops::kReshape: {
        if (std::optional<int64_t> k = ReshapedAxis(in, u->shape(), axis, bounds)) {
          int64_t after_old = Product(in, axis + 1), after_new = Product(u->shape(), *k + 1);
          return Map(s, u, *k, [&](size_t i) {
            Shape to = u->shape();
            to[*k] = shard_len(i) * after_old / after_new;
            return Arg(to);
          });
        }
        break;  // the shard axis is merged with others: no per-shard reshape
      }
      case Ops::kExpand:
        if (u->shape()[axis] == in[axis]) {
          return Map(s, u, axis, [&](size_t i) {
            Shape to = u->shape();
            to[axis] = shard_len(i);
            return Arg(to);
          });
        }
        break;
      case Ops::kPad: case Ops::kShrink: case Ops::kFlip: {
        std::vector<int64_t> flat = u->arg_as<std::vector<int64_t>>();
        bool touches = u->op() == Ops::kFlip ? flat[axis] != 0
                       : u->op() == Ops::kPad ? (flat[2 * axis] != 0 || flat[2 * axis + 1] != 0)
                                               : (flat[2 * axis] != 0 || flat[2 * axis + 1] != in[axis]);
        if (!touches) {
          return Map(s, u, axis, [&](size_t i) {
            std::vector<int64_t> mine = flat;
            if (u->op() == Ops::kShrink) mine[2 * axis + 1] = shard_len(i);
            return Arg(mine);
          });
        }
        // Along the shard axis: the whole tensor on each device, the op, then the same axis again.
        Spread moved = PerShard(Replicated(s), u);
        return ShardReplicated(moved, axis, EvenBounds(u->shape()[axis], s.devices.size()));
      }
      default: break;
    }
    return PerShard(Replicated(s), u);  // gathered: every device does the op on the whole tensor
  }

  // The axis of |to| that a reshape of |from| maps shard axis |axis| onto, when every shard reshapes on
  // its own: the axes before it keep their product and each shard's slice stays whole rows of it.
  static std::optional<int64_t> ReshapedAxis(const Shape& from, const Shape& to, int64_t axis, const Bounds& bounds) {
    int64_t before = 1, after_old = Product(from, axis + 1);
    for (int64_t i = 0; i < axis; ++i) before *= from[i];
    int64_t prefix = 1;
    for (size_t k = 0; k < to.size(); ++k) {
      if (prefix == before && to[k] != 1) {
        int64_t after_new = Product(to, k + 1);
        // The new axis k and what follows hold exactly the old shard axis and what followed it, and
        // every shard is a whole number of k-slices.
        bool whole = to[k] * after_new == from[axis] * after_old && after_new > 0;
        for (const auto& [b, e] : bounds) whole = whole && ((e - b) * after_old) % after_new == 0;
        if (whole) return static_cast<int64_t>(k);
      }
      prefix *= to[k];
      if (prefix > before) break;
    }
    return std::nullopt;
  }

  static int64_t Product(const Shape& s, size_t from) {
    int64_t n = 1;
    for (size_t i = from; i < s.size(); ++i) n *= s[i];
    return n;
  }

  absl::flat_hash_map<const UOp*, Value> memo_;
};

}  // namespace

std::vector<std::pair<int64_t, int64_t>> EvenBounds(int64_t size, size_t n) {
  int64_t step = (size + static_cast<int64_t>(n) - 1) / static_cast<int64_t>(n);
  std::vector<std::pair<int64_t, int64_t>> out;
  for (size_t i = 0; i < n; ++i) {
    int64_t b = std::min<int64_t>(size, step * i), e = std::min<int64_t>(size, step * (i + 1));
    out.emplace_back(b, e);
  }
  return out;
}

bool HasMulti(const std::vector<UOpRef>& roots, const std::vector<std::string>& devices) {
  for (const std::string& d : devices)
    if (SplitDeviceTuple(d).size() > 1) return true;
  if (!MultiEverMade()) return false;
  for (const UOpRef& n : UOp::Sink(roots)->toposort())
    if (n->op() == Ops::kMulti) return true;
  return false;
}

bool IsRealized(const UOpRef& u) {
  if (BufferOfView(u)) return true;
  if (u->op() != Ops::kMulti) return false;
  for (const UOpRef& s : u->src())
    if (!BufferOfView(s)) return false;
  return true;
}

SpmdRoots SplitMulti(const std::vector<UOpRef>& roots, const std::vector<std::string>& devices) {
  MultiPass pass;
  for (const UOpRef& n : UOp::Sink(roots)->toposort())
    if (n->op() != Ops::kSink) pass.Visit(n);
  SpmdRoots out;
  absl::flat_hash_set<const UOp*> rooted;
  auto add_root = [&](UOpRef r, const std::string& device) {
    // One node can be realized on one device only: the same graph for a second device (a replicated
    // constant) is copied there.
    if (!rooted.insert(r.get()).second) r = UOp::Make(Ops::kCopy, r->dtype(), {r}, device);
    out.roots.push_back(std::move(r));
    out.devices.push_back(device);
    return out.roots.size() - 1;
  };
  for (size_t i = 0; i < roots.size(); ++i) {
    Value v = pass.Get(roots[i]);
    std::vector<std::string> tuple = SplitDeviceTuple(devices[i]);
    if (!IsSpread(v) && tuple.size() > 1)  // a plain graph (a constant) on several devices: one copy each
      v = Spread{std::vector<UOpRef>(tuple.size(), std::get<UOpRef>(v)), -1, tuple};
    SpmdRoots::Origin origin;
    if (const Spread* s = std::get_if<Spread>(&v)) {
      for (size_t d = 0; d < s->shards.size(); ++d) origin.roots.push_back(add_root(s->shards[d], s->devices[d]));
      origin.multi = MultiArg{s->axis, s->devices};
    } else {
      origin.roots.push_back(add_root(std::get<UOpRef>(v), devices[i]));
    }
    out.origins.push_back(std::move(origin));
  }
  return out;
}

}  // namespace tg::compiler
