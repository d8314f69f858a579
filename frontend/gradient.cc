#include "frontend/gradient.h"

#include <numbers>

#include "absl/container/flat_hash_set.h"
#include "ir/error.h"

namespace tg {
namespace {

const UOpRef& G(const Match& m) { return m.ctx<GradientContext>().grad; }

UOpRef NoGrad() { return UOp::Make(Ops::kNoop, dtypes::void_); }

UOpRef Grads(const UOpRef& node, std::initializer_list<UOpRef> grads) { return GradientSink(node, grads); }

UOpRef Cond(const UOpRef& c, const UOpRef& a, const UOpRef& b) { return c->where(a, b); }

// The gradient of a broadcast sums over the axes the broadcast grew.
UOpRef SumToShape(const UOpRef& g, const Shape& shape) {
  std::vector<int64_t> axes;
  for (size_t i = 0; i < shape.size(); ++i)
    if (shape[i] == 1 && g->shape()[i] != 1) axes.push_back(static_cast<int64_t>(i));
  return axes.empty() ? g : g->reduce(Ops::kAdd, axes);
}

UOpRef ReduceGrad(const Match& m) {
  const UOpRef& ret = m["ret"];
  const UOpRef& x = m["x"];
  const auto& rarg = ret->arg_as<ReduceArg>();
  UOpRef g = G(m)->expand(x->shape());
  switch (rarg.op) {
    case Ops::kAdd: return Grads(ret, {g});  // sum: every input gets the output's gradient
    case Ops::kMax: {  // max: shared equally among the inputs that attain it
      UOpRef is_max = eq(x, ret->expand(x->shape()))->cast(x->dtype());
      UOpRef count = is_max->reduce(Ops::kAdd, rarg.axes)->expand(x->shape());
      return Grads(ret, {is_max / count * g});
    }
    case Ops::kMul: {  // prod: d/dx_j = prod_{i != j} x_i, zero-safe (prod/x_j divides by zero)
      UOpRef is_zero = eq(x, x->const_like(0.0));
      UOpRef safe_x = Cond(is_zero, x->const_like(1.0), x);
      UOpRef zeros = is_zero->cast(dtypes::int32)->reduce(Ops::kAdd, rarg.axes)->expand(x->shape());
      UOpRef others = safe_x->reduce(Ops::kMul, rarg.axes)->expand(x->shape());  // the product without zeros
      UOpRef when_zero = Cond(eq(zeros, zeros->const_like(int64_t{1})), others, x->const_like(0.0));
      return Grads(ret, {Cond(is_zero, when_zero, ret->expand(x->shape()) / safe_x) * g});
    }
    default: throw Error("gradient: no rule for reduce op " + std::string(OpName(rarg.op)));
  }
}

UOpRef MaxGrad(const Match& m) {  // ties split the gradient in half, as tinygrad does
  const UOpRef &a = m["a"], &b = m["b"], &g = G(m);
  UOpRef half = g * 0.5, zero = g->const_like(0.0);
  UOpRef ga = Cond(lt(b, a), g, Cond(eq(a, b), half, zero));
  UOpRef gb = Cond(lt(a, b), g, Cond(eq(a, b), half, zero));
  return Grads(m["ret"], {ga, gb});
}

UOpRef PermuteGrad(const Match& m) {
  const auto& perm = m["ret"]->arg_as<std::vector<int64_t>>();
  std::vector<int64_t> inverse(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) inverse[perm[i]] = static_cast<int64_t>(i);
  return Grads(m["ret"], {G(m)->permute(inverse)});
}

UOpRef PadGrad(const Match& m) {  // the gradient of a pad is the gradient of the inside
  auto pads = m["ret"]->arg_pairs();
  const Shape& in = m["x"]->shape();
  std::vector<std::pair<int64_t, int64_t>> bounds;
  for (size_t i = 0; i < pads.size(); ++i) bounds.emplace_back(pads[i].first, pads[i].first + in[i]);
  return Grads(m["ret"], {G(m)->shrink(bounds)});
}

UOpRef ShrinkGrad(const Match& m) {  // the gradient of a shrink is zero outside the window
  auto bounds = m["ret"]->arg_pairs();
  const Shape& in = m["x"]->shape();
  std::vector<std::pair<int64_t, int64_t>> pads;
  for (size_t i = 0; i < bounds.size(); ++i) pads.emplace_back(bounds[i].first, in[i] - bounds[i].second);
  return Grads(m["ret"], {G(m)->pad(pads)});
}

UOpRef FlipGrad(const Match& m) {
  const auto& axes = m["ret"]->arg_as<std::vector<int64_t>>();
  return Grads(m["ret"], {G(m)->flip(std::vector<bool>(axes.begin(), axes.end()))});
}

constexpr double kLn2 = std::numbers::ln2;

Pat Unary(Ops op) { return Pat::Op(op, {Pat::Var("x")}, "ret"); }
Pat Binary(Ops op) { return Pat::Op(op, {Pat::Var("a"), Pat::Var("b")}, "ret"); }

}  // namespace

UOpRef GradientSink(const UOpRef& node, const std::vector<UOpRef>& grads) {
  std::vector<UOpRef> src;
  for (size_t i = 0; i < grads.size(); ++i) {
    bool flows = grads[i] != nullptr && node->src(i)->dtype().is_float();
    src.push_back(flows ? grads[i] : NoGrad());
  }
  return UOp::Make(Ops::kSink, dtypes::void_, std::move(src));
}

const PatternMatcher& GradientRules() {
  static const PatternMatcher* rules = new PatternMatcher(PatternMatcher({
      {Unary(Ops::kCast), [](const Match& m) { return Grads(m["ret"], {G(m)->cast(m["x"]->dtype())}); }},
      {Unary(Ops::kNeg), [](const Match& m) { return Grads(m["ret"], {-G(m)}); }},  // d(-x) = -1
      {Unary(Ops::kReciprocal),  // d(1/x) = -1/x^2
       [](const Match& m) { return Grads(m["ret"], {-G(m) * m["ret"] * m["ret"]}); }},
      {Unary(Ops::kSin),  // d sin x = cos x = sin(pi/2 - x)
       [](const Match& m) {
         UOpRef cos = (m["x"]->const_like(std::numbers::pi / 2) - m["x"])->alu(Ops::kSin);
         return Grads(m["ret"], {cos * G(m)});
       }},
      {Unary(Ops::kLog2), [](const Match& m) { return Grads(m["ret"], {G(m) / (m["x"] * kLn2)}); }},   // 1/(x ln2)
      {Unary(Ops::kExp2), [](const Match& m) { return Grads(m["ret"], {G(m) * m["ret"] * kLn2}); }},   // 2^x ln2
      {Unary(Ops::kSqrt), [](const Match& m) { return Grads(m["ret"], {G(m) / (m["ret"] * 2.0)}); }},  // 1/(2 sqrt x)
      {Unary(Ops::kTrunc), [](const Match& m) { return Grads(m["ret"], {nullptr}); }},  // flat almost everywhere
      {Binary(Ops::kAdd), [](const Match& m) { return Grads(m["ret"], {G(m), G(m)}); }},
      {Binary(Ops::kMul), [](const Match& m) { return Grads(m["ret"], {m["b"] * G(m), m["a"] * G(m)}); }},
      {Binary(Ops::kFdiv),  // d(a/b) = 1/b, -a/b^2
       [](const Match& m) {
         return Grads(m["ret"], {G(m) / m["b"], -G(m) * m["a"] / (m["b"] * m["b"])});
       }},
      {Binary(Ops::kMax), MaxGrad},
      {Pat::Ops_(OpsWhere(IsComparison), {Pat::Var("a"), Pat::Var("b")}, "ret"),
       [](const Match& m) { return Grads(m["ret"], {nullptr, nullptr}); }},
      // integer-only ops: on a gradient path only behind a float -> int cast, and flat there
      {Pat::Ops_({Ops::kIdiv, Ops::kMod, Ops::kXor, Ops::kOr, Ops::kAnd, Ops::kShl, Ops::kShr},
                 {Pat::Var("a"), Pat::Var("b")}, "ret"),
       [](const Match& m) { return Grads(m["ret"], {nullptr, nullptr}); }},
      {Unary(Ops::kBitcast), [](const Match& m) { return Grads(m["ret"], {nullptr}); }},
      {Pat::Op(Ops::kWhere, {Pat::Var("c"), Pat::Var("a"), Pat::Var("b")}, "ret"),
       [](const Match& m) {
         UOpRef zero = G(m)->const_like(0.0);
         return Grads(m["ret"], {nullptr, Cond(m["c"], G(m), zero), Cond(m["c"], zero, G(m))});
       }},
      {Unary(Ops::kReduce), ReduceGrad},
      {Unary(Ops::kReshape), [](const Match& m) { return Grads(m["ret"], {G(m)->reshape(m["x"]->shape())}); }},
      {Unary(Ops::kExpand), [](const Match& m) { return Grads(m["ret"], {SumToShape(G(m), m["x"]->shape())}); }},
      {Unary(Ops::kPermute), PermuteGrad},
      {Unary(Ops::kPad), PadGrad},
      {Unary(Ops::kShrink), ShrinkGrad},
      {Unary(Ops::kFlip), FlipGrad},
      {Unary(Ops::kContiguous), [](const Match& m) { return Grads(m["ret"], {G(m)}); }},
      {Unary(Ops::kDetach), [](const Match& m) { return Grads(m["ret"], {nullptr}); }},
  }) + DeviceGradientRules());
  return *rules;
}

absl::flat_hash_map<const UOp*, UOpRef> ComputeGradient(const UOpRef& root, const UOpRef& root_grad,
                                                        const std::vector<UOpRef>& targets) {
  // Only nodes on a path from a target to the root carry gradient worth computing.
  absl::flat_hash_set<const UOp*> wanted(targets.size()), on_path;
  for (const UOpRef& t : targets) wanted.insert(t.get());
  std::vector<UOpRef> topo = root->toposort();
  for (const UOpRef& u : topo) {
    if (u->op() == Ops::kDetach) continue;
    bool reaches = wanted.contains(u.get());
    for (const UOpRef& s : u->src()) reaches = reaches || on_path.contains(s.get());
    if (reaches) on_path.insert(u.get());
  }
  absl::flat_hash_map<const UOp*, UOpRef> grads;
  if (!on_path.contains(root.get())) return {};
  grads[root.get()] = root_grad;
  for (auto it = topo.rbegin(); it != topo.rend(); ++it) {
    const UOpRef& u = *it;
    auto g = grads.find(u.get());
    // Gradients are whole-tensor graphs, also over sharded values: compiler/schedule/multi.h runs them per device.
    if (g == grads.end() || u->src().empty()) continue;
    GradientContext ctx{g->second};
    UOpRef local = GradientRules().Rewrite(u, &ctx);
    if (local == nullptr)
      throw Error("gradient: no rule for " + std::string(OpName(u->op())) + "; this op is not differentiable");
    for (size_t i = 0; i < u->src().size(); ++i) {
      const UOpRef& s = u->src(i);
      const UOpRef& gs = local->src(i);
      if (gs->op() == Ops::kNoop || !on_path.contains(s.get())) continue;
      auto [slot, inserted] = grads.try_emplace(s.get(), gs);
      if (!inserted) slot->second = slot->second + gs;
    }
  }
  absl::flat_hash_map<const UOp*, UOpRef> out;
  for (const UOpRef& t : targets)
    if (auto it = grads.find(t.get()); it != grads.end()) out[t.get()] = it->second;
  return out;
}

}  // namespace tg
