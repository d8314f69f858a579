// LoadBudgetBytes / CheckLoadBudget (frontend/load_budget.h).
#include "frontend/load_budget.h"

#include <unistd.h>

#include <string>

#include "ir/env.h"
#include "ir/error.h"

namespace tg {

uint64_t LoadBudgetBytes() {
  if (int64_t set = GetEnvInt("TG_LOAD_MAX_BYTES", 0); set > 0) return static_cast<uint64_t>(set);
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) return uint64_t{1} << 40;  // unknown: 1 TiB, past any machine we run on
  return static_cast<uint64_t>(pages) * static_cast<uint64_t>(page);
}

void CheckLoadBudget(std::string_view where, std::string_view field, uint64_t bytes) {
  uint64_t budget = LoadBudgetBytes();
  if (bytes <= budget) return;
  throw Error(std::string(where) + ": " + std::string(field) + " is " + std::to_string(bytes) +
              " bytes, more than the load budget of " + std::to_string(budget) +
              " bytes (TG_LOAD_MAX_BYTES; default the machine's memory)");
}

}  // namespace tg
