// tinygrad-cc's public API: #include "frontend/tg.h", Bazel target //frontend:tg.
// Lazy tensors (tg::Tensor) that compile to fused kernels for any device plugin (docs/architecture.md).
#ifndef TG_FRONTEND_TG_H_
#define TG_FRONTEND_TG_H_

#include "frontend/devices.h"
#include "frontend/jit.h"
#include "frontend/index.h"
#include "frontend/tensor.h"
#include "ir/dtype.h"
#include "ir/error.h"

#endif  // TG_FRONTEND_TG_H_
