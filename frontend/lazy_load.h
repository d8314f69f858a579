// Deferred uploads: BUFFER nodes whose bytes come from a callback the first time a realize needs them.
// Private to the front end; every path into compiler::Realize calls RunPendingLoads first (docs/architecture.md).
#ifndef TG_FRONTEND_LAZY_LOAD_H_
#define TG_FRONTEND_LAZY_LOAD_H_

#include <cstddef>
#include <functional>
#include <vector>

#include "ir/uop.h"

namespace tg {

// |buffer| (a BUFFER node) is filled by |fill| before the first realize whose graph reaches it.
void RegisterPendingLoad(const UOpRef& buffer, std::function<void(void*, size_t)> fill);

// Fills every pending BUFFER reachable from |roots|. Cheap (one atomic load) when nothing is pending.
// A JIT that replays kernels without realizing must call this on its inputs too.
void RunPendingLoads(const std::vector<UOpRef>& roots);

}  // namespace tg

#endif  // TG_FRONTEND_LAZY_LOAD_H_
