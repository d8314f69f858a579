// The multi pass: per-op rules that run a graph over MULTI nodes once per device (SPMD).
#include "compiler/schedule/multi.h"

#include <algorithm>
#include <numeric>
#include <variant>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "compiler/schedule/buffer_node.h"
#include "compiler/schedule/gather.h"
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
      throw Error("sharded tensors: an operand on one device meets a tensor on " + DeviceSet(with.devices).Name() +
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

// The whole tensor on device |to| (one of its devices).
UOpRef GatherOn(const Spread& s, size_t to) { return GatherTo(s.shards, s.devices, s.axis, s.devices[to]); }

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
    if (std::optional<UOpRef> local = ShrinkOfGather(u)) return *local;
    if (!any_spread) {
      std::vector<UOpRef> plain;
      for (const Value& v : src) plain.push_back(std::get<UOpRef>(v));
      return plain == u->src() ? u : u->replace_src(plain);
    }
    if (u->op() == Ops::kCopy) {  // a sharded tensor to one device: every shard straight there
      const Spread& s = std::get<Spread>(src[0]);
      return GatherTo(s.shards, s.devices, s.axis, u->arg_as<std::string>());
    }
    if (IsAlu(u->op()) || u->op() == Ops::kAssign) return Elementwise(u, src);
    if (u->op() == Ops::kReduce) return Reduce(u, std::get<Spread>(src[0]));
    if (u->op() == Ops::kContiguous || u->op() == Ops::kDetach) return PerShard(std::get<Spread>(src[0]), u);
    if (IsMovement(u->op())) return Movement(u, std::get<Spread>(src[0]));
    Unsupported(u, "has no rule for sharded operands");
  }

  // SHRINK(COPY(sharded, device d)) whose window lies in d's own shard: that shard, shrunk in place,
  // instead of a gather on d (how a gradient reaches the shards of a MULTI: frontend/gradient_multi.cc).
  std::optional<UOpRef> ShrinkOfGather(const UOpRef& u) {
    if (u->op() != Ops::kShrink || u->src(0)->op() != Ops::kCopy) return std::nullopt;
    const Spread* s = std::get_if<Spread>(&memo_.at(u->src(0)->src(0).get()));
    if (s == nullptr) return std::nullopt;
    size_t k = std::find(s->devices.begin(), s->devices.end(), u->src(0)->arg_as<std::string>()) - s->devices.begin();
    if (k == s->devices.size()) return std::nullopt;
    Bounds window = u->arg_pairs();
    if (s->axis >= 0) {
      auto [b, e] = s->bounds()[k];
      if (window[s->axis].first < b || window[s->axis].second > e) return std::nullopt;
      window[s->axis] = {window[s->axis].first - b, window[s->axis].second - b};
    }
    const UOpRef& shard = s->shards[k];
    for (size_t i = 0; i < window.size(); ++i)
      if (window[i] != std::pair<int64_t, int64_t>(0, shard->shape()[i])) return shard->shrink(window);
    return shard;
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
                      DeviceSet(s->devices).Name() + " and " + DeviceSet(lead->devices).Name() +
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
                                     AllreduceArg{arg.op, static_cast<int64_t>(i), s.devices}));
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
      case Ops::kReshape: return Reshape(u, s);
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

  // Per shard when the sharded axis's start survives the reshape (the axes before it keep their product):
  // it becomes the new axis that starts there. Uneven shards that would cut one of that axis's rows first
  // move the few elements needed for whole rows (a re-shard); a reshape that mixes the sharded axis into
  // the axes before it cannot run per shard and says what to do.
  Spread Reshape(const UOpRef& u, const Spread& s) {
    const Shape &in = u->src(0)->shape(), &out = u->shape();
    if (u->numel() == 0) return PerShard(Replicated(s), u);  // nothing to place (and rows of no elements)
    std::optional<int64_t> k = StartSurvives(in, out, s.axis);
    if (!k)
      throw Error("sharded tensors: reshape " + ShapeString(in) + " -> " + ShapeString(out) +
                  " of a tensor sharded on axis " + std::to_string(s.axis) + " over " + DeviceSet(s.devices).Name() +
                  " would mix elements of different devices (the sharded axis can split, or merge with the axes "
                  "after it, but not with those before it); gather it first with .to(device) (then .shard() the "
                  "result again if you want it spread), or shard along an axis this reshape keeps");
    const int64_t old_row = Product(in, s.axis + 1), new_row = Product(out, *k + 1);
    const int64_t unit = std::lcm(old_row, new_row);  // shard edges must fall on old and new rows alike
    Spread aligned = s;
    bool whole = true;
    for (const auto& [b, e] : s.bounds()) whole = whole && (b * old_row) % unit == 0 && (e * old_row) % unit == 0;
    if (!whole) {
      Bounds even;
      for (const auto& [b, e] : EvenBounds(in[s.axis] * old_row / unit, s.devices.size()))
        even.emplace_back(b * unit / old_row, e * unit / old_row);
      aligned = ToLayout(s, s.axis, even);
    }
    Bounds bounds = aligned.bounds();
    return Map(aligned, u, *k, [&](size_t i) {
      Shape to = out;
      to[*k] = (bounds[i].second - bounds[i].first) * old_row / new_row;
      return Arg(to);
    });
  }

  // The axis of |to| that starts where axis |axis| of |from| starts (the product of the axes before it is
  // kept), skipping size-1 axes there when it can; nullopt when no axis starts there.
  static std::optional<int64_t> StartSurvives(const Shape& from, const Shape& to, int64_t axis) {
    int64_t before = 1;
    for (int64_t i = 0; i < axis; ++i) before *= from[i];
    std::optional<int64_t> found;
    int64_t prefix = 1;
    for (size_t k = 0; k < to.size() && prefix <= before; ++k) {
      if (prefix == before) {
        if (to[k] != 1) return static_cast<int64_t>(k);
        if (!found) found = static_cast<int64_t>(k);
      }
      prefix *= to[k];
    }
    return found;
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
    if (DeviceSet::FromName(d).size() > 1) return true;
  for (const UOpRef& r : roots)
    if (r->has_multi()) return true;
  return false;
}

std::optional<ShardLayout> LayoutOf(const UOpRef& root) {
  MultiPass pass;
  for (const UOpRef& n : root->toposort()) pass.Visit(n);
  Value v = pass.Get(root);
  const Spread* s = std::get_if<Spread>(&v);
  if (s == nullptr) return std::nullopt;
  return ShardLayout{s->axis, s->devices, s->axis < 0 ? Bounds() : s->bounds()};
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
    std::vector<std::string> tuple = DeviceSet::FromName(devices[i]).names();
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
