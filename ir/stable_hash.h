// StableHash: a hash of a UOp graph's structure (op, dtype, arg, src shape) that is the same in
// every process, unlike UOp::hash(). Keys on-disk caches such as BEAM winners (docs/architecture.md).
#pragma once

#include <string>

#include "ir/uop.h"

namespace tg {

// 32 hex digits. Equal for structurally equal graphs in any process and build; BufferArg storage
// is ignored, as in hash-consing. Doubles hash by bit pattern.
std::string StableHash(const UOpRef& root);

// 32 hex digits of a byte string: the same 128-bit FNV-style hash StableHash uses.
std::string StableHashBytes(std::string_view bytes);

}  // namespace tg
