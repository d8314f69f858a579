// The compiler's front door: everything the front end asks of the compiler, and the only compiler
// header frontend/ includes. Realize computes graph roots (many at once, on their devices, sharded ones
// included); BUFFER nodes are the realized leaves; CaptureScope records what realize runs for tg::Jit and
// SavedJit writes it to a file and runs it again;
// Target says what a device computes; errors come back as tg::Error.
#ifndef TG_COMPILER_COMPILER_H_
#define TG_COMPILER_COMPILER_H_

#include <string>
#include <vector>

#include "compiler/capture.h"
#include "compiler/errors.h"
#include "compiler/saved_jit.h"
#include "compiler/schedule/buffer_node.h"
#include "compiler/schedule/multi.h"
#include "compiler/schedule/schedule_item.h"
#include "compiler/target.h"
#include "ir/uop.h"

namespace tg::compiler {

// Computes |roots| (root i on |devices|[i]) and returns, per root, a view of the BUFFER node that
// holds it (BUFFER or RESHAPE(BUFFER)), or a MULTI of such views for a sharded root. One schedule
// runs for all of them. Throws tg::Error on any failure (unknown device, compile error, launch error).
std::vector<UOpRef> Realize(const std::vector<UOpRef>& roots, const std::vector<std::string>& devices);

// A realized value: a BUFFER view, or a MULTI whose every shard is one.
bool IsRealized(const UOpRef& u);

}  // namespace tg::compiler

#endif  // TG_COMPILER_COMPILER_H_
