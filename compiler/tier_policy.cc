#include "compiler/tier_policy.h"

#include <string>

#include "ir/env.h"
#include "ir/error.h"

namespace tg::compiler {

TierMode ParseTierMode(std::string_view value) {
  if (value == "auto" || value.empty()) return TierMode::kAuto;
  if (value == "0") return TierMode::kFirst;
  if (value == "1") return TierMode::kOptimized;
  throw Error("TG_TIER='" + std::string(value) +
              "' is not a tier mode; use 0 (the first tier only), 1 (compile every kernel before it runs) or "
              "auto (the first tier, then the optimized one for kernels that run often; the default)");
}

double KernelWork(const UOpRef& kernel_ast) {
  double iterations = 1, ops = 0;
  for (const UOpRef& u : kernel_ast->toposort()) {
    if (u->op() == Ops::kRange)
      iterations *= static_cast<double>(u->src(0)->is_const() ? u->src(0)->const_int() : u->src(0)->vmax());
    if (IsAlu(u->op()) || u->op() == Ops::kLoad || u->op() == Ops::kStore) ++ops;
  }
  return iterations * (ops > 0 ? ops : 1);
}

TierMode TierModeFromEnv() { return ParseTierMode(GetEnvString("TG_TIER", "auto")); }

}  // namespace tg::compiler
