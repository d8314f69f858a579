// runtime.h: the whole runtime API in one include, for the compiler and the front end.
// The walk's last stage (docs/architecture.md): device lookup, buffers, programs and launches (namespace tg::runtime).
#ifndef TG_RUNTIME_RUNTIME_H_
#define TG_RUNTIME_RUNTIME_H_

#include "runtime/buffer.h"           // IWYU pragma: export
#include "runtime/device.h"           // IWYU pragma: export
#include "runtime/device_info.h"      // IWYU pragma: export
#include "runtime/device_registry.h"  // IWYU pragma: export
#include "runtime/launch_args.h"      // IWYU pragma: export
#include "runtime/program.h"          // IWYU pragma: export

#endif  // TG_RUNTIME_RUNTIME_H_
