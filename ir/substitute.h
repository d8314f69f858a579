// Substitute: replaces chosen nodes of a graph, rebuilding everything above them.
// Used by the scheduler (realized nodes -> buffers) and codegen (loop variables -> lanes, splits).
#pragma once

#include "absl/container/flat_hash_map.h"
#include "ir/uop.h"

namespace tg {

using NodeMap = absl::flat_hash_map<const UOp*, UOpRef>;

// |root| with every node that |replace| names swapped for its replacement, which is not entered
// (so a replacement may contain the node it replaces). Iterative; shares untouched subgraphs.
UOpRef Substitute(const UOpRef& root, const NodeMap& replace);

}  // namespace tg
