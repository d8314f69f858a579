#include "compiler/codegen/shared_factor.h"

#include <algorithm>
#include <vector>

namespace tg::compiler {
namespace {

// |u| as a product: its MUL tree's leaves, left to right (anything else is one factor).
void AppendFactors(const UOpRef& u, std::vector<UOpRef>& out) {
  if (u->op() != Ops::kMul) {
    out.push_back(u);
    return;
  }
  AppendFactors(u->src(0), out);
  AppendFactors(u->src(1), out);
}

std::vector<UOpRef> FactorsOf(const UOpRef& product) {
  std::vector<UOpRef> out;
  AppendFactors(product, out);
  return out;
}

// The product of |factors| without the first occurrence of |dropped| (never empty: a product has two).
UOpRef ProductWithout(const std::vector<UOpRef>& factors, const UOpRef& dropped) {
  UOpRef product;
  bool skipped = false;
  for (const UOpRef& f : factors) {
    if (!skipped && f == dropped) {
      skipped = true;
      continue;
    }
    product = product ? product * f : f;
  }
  return product;
}

UOpRef FactorOut(const UOpRef& a, const UOpRef& b) {
  if (a->op() != Ops::kMul || b->op() != Ops::kMul) return nullptr;
  const std::vector<UOpRef> fa = FactorsOf(a), fb = FactorsOf(b);
  for (const UOpRef& f : fa)
    if (std::find(fb.begin(), fb.end(), f) != fb.end()) return (ProductWithout(fa, f) + ProductWithout(fb, f)) * f;
  return nullptr;
}

}  // namespace

const PatternMatcher& SharedFactorRules() {
  static const PatternMatcher rules({
      {(Pat::Var("a") + Pat::Var("b")).with_dtype([](DType d) { return !d.is_bool(); }),
       [](const Match& m) { return FactorOut(m["a"], m["b"]); }},
  });
  return rules;
}

}  // namespace tg::compiler
