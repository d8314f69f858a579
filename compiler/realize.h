// Realize: runs the schedule of some tensor-graph nodes and returns the buffers that hold them.
// The driver of DESIGN §2: schedule -> codegen -> program cache -> launch, for any device.
#ifndef TG_COMPILER_REALIZE_H_
#define TG_COMPILER_REALIZE_H_

#include <string>
#include <vector>

#include "ir/uop.h"

namespace tg::compiler {

// Computes |roots| (root i on |devices|[i]) and returns, per root, a view of the BUFFER node that
// holds it (BUFFER or RESHAPE(BUFFER)). Throws tg::Error on any failure (unknown device, compile error, launch error).
std::vector<UOpRef> Realize(const std::vector<UOpRef>& roots, const std::vector<std::string>& devices);

}  // namespace tg::compiler

#endif  // TG_COMPILER_REALIZE_H_
