// tinygrad-cc's public API: #include "frontend/tg.h", Bazel target //frontend:tg.
// Lazy tensors (tg::Tensor) that compile to fused kernels for any device plugin (docs/architecture.md).
//
// Threads (docs/concurrency.md). May be shared, used from several threads at once: devices and their
// caches (any thread may realize on any device); independent graphs, one per thread; a realized Tensor
// (after realize(), to_vector() or item(), or made by from_vector) that no thread changes, as an input or
// to read; the tensors of an unread safe_load (the first read loads each once); a tg::onnx::Model, whose
// run() any number of threads may call. One thread at a time: a Tensor handle, with its copies, while it
// is changed (realize() or a first to_vector() of an unrealized tensor, assign(), backward(), set_grad());
// a tg::Jit (give each thread its own); a module and its optimizer while training; the training flag and
// the random seed, which are process-wide. Breaking these is a data race, not a tg::Error.
#ifndef TG_FRONTEND_TG_H_
#define TG_FRONTEND_TG_H_

#include "frontend/devices.h"
#include "frontend/jit.h"
#include "frontend/index.h"
#include "frontend/tensor.h"
#include "frontend/variable.h"
#include "ir/dtype.h"
#include "ir/error.h"
#include "ir/version.h"

#endif  // TG_FRONTEND_TG_H_
