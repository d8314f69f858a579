// Shape arithmetic on the host: the ops exporters chain between a Shape and the Reshape (or Slice,
// Expand, Resize) that reads it, evaluated on known values so the reader needs no kernel and no device
// read, which a tg::Jit capture refuses (tinygrad's importer keeps shapes as Python ints likewise).
#ifndef TG_FRONTEND_ONNX_HOST_FOLD_H_
#define TG_FRONTEND_ONNX_HOST_FOLD_H_

#include <optional>

#include "frontend/onnx/graph.h"
#include "frontend/onnx/op_registry.h"

namespace tg::onnx {

// The values of |ctx|'s single output |out| when every present input is known on the host and the op
// is one of the shape-arithmetic ops (Identity, Cast, Reshape, Flatten, Squeeze, Unsqueeze, Concat and
// Slice and Gather of vectors, integer Add/Sub/Mul); nullopt otherwise. The device tensor the op built
// stays what the graph computes; these are its values, for the ops that read them.
std::optional<HostValues> FoldOnHost(const OpContext& ctx, const Tensor& out);

}  // namespace tg::onnx

#endif  // TG_FRONTEND_ONNX_HOST_FOLD_H_
