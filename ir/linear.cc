#include "ir/linear.h"

#include "absl/container/flat_hash_map.h"
#include "ir/symbolic.h"

namespace tg {
namespace {

struct Partial {
  UOpRef base;  // nullptr = 0
  int64_t coeff = 0;
};

class Decomposer {
 public:
  explicit Decomposer(const UOpRef& var) : var_(var) {}

  std::optional<Partial> Run(const UOpRef& e) {
    if (e == var_) return Partial{nullptr, 1};
    if (!Contains(e)) return Partial{e, 0};
    if (e->op() == Ops::kAdd) {
      auto a = Run(e->src(0)), b = Run(e->src(1));
      if (!a || !b) return std::nullopt;
      return Partial{Add(a->base, b->base), a->coeff + b->coeff};
    }
    if (e->op() == Ops::kMul) {
      for (int i = 0; i < 2; ++i) {
        const UOpRef& c = e->src(1 - i);
        if (!c->is_const()) continue;
        auto x = Run(e->src(i));
        if (!x) return std::nullopt;
        int64_t k = c->const_int();
        return Partial{x->base ? x->base * k : nullptr, x->coeff * k};
      }
    }
    if (e->op() == Ops::kNeg) {
      auto x = Run(e->src(0));
      if (!x) return std::nullopt;
      return Partial{x->base ? -x->base : nullptr, -x->coeff};
    }
    return std::nullopt;
  }

 private:
  bool Contains(const UOpRef& e) {
    if (auto it = contains_.find(e.get()); it != contains_.end()) return it->second;
    bool c = e == var_;
    for (const UOpRef& s : e->src()) c = c || Contains(s);
    return contains_[e.get()] = c;
  }
  static UOpRef Add(const UOpRef& a, const UOpRef& b) { return !a ? b : !b ? a : a + b; }

  UOpRef var_;
  absl::flat_hash_map<const UOp*, bool> contains_;
};

}  // namespace

std::optional<LinearTerm> LinearIn(const UOpRef& expr, const UOpRef& var) {
  std::optional<Partial> p = Decomposer(var).Run(expr);
  if (!p) return std::nullopt;
  UOpRef base = p->base ? Simplify(p->base) : UOp::Const(expr->dtype(), int64_t{0});
  return LinearTerm{base, p->coeff};
}

}  // namespace tg
