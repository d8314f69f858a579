// Internal to //frontend/dist: tg dtypes as NCCL data types (nccl_library.h's values).
#ifndef TG_FRONTEND_DIST_NCCL_TYPES_H_
#define TG_FRONTEND_DIST_NCCL_TYPES_H_

#include <optional>

#include "frontend/dist/nccl_library.h"
#include "ir/dtype.h"

namespace tg::dist::internal {

// NCCL's type for |dtype|, or nullopt (bool, int16, uint16 and vector dtypes have none). bfloat16 needs
// NCCL 2.10 or later; the library refuses it before that.
inline std::optional<NcclDataType> NcclTypeOf(DType dtype) {
  if (dtype.base() != dtype) return std::nullopt;
  switch (dtype.scalar()) {
    case ScalarType::kInt8: return kNcclInt8;
    case ScalarType::kUInt8: return kNcclUint8;
    case ScalarType::kInt32: return kNcclInt32;
    case ScalarType::kUInt32: return kNcclUint32;
    case ScalarType::kInt64: return kNcclInt64;
    case ScalarType::kUInt64: return kNcclUint64;
    case ScalarType::kFloat16: return kNcclFloat16;
    case ScalarType::kBFloat16: return kNcclBfloat16;
    case ScalarType::kFloat32: return kNcclFloat32;
    case ScalarType::kFloat64: return kNcclFloat64;
    default: return std::nullopt;
  }
}

}  // namespace tg::dist::internal

#endif  // TG_FRONTEND_DIST_NCCL_TYPES_H_
