// cache_dir.h: gives PoCL a kernel cache directory that exists before the first OpenCL call.
// Under `bazel test` HOME is unset and PoCL silently ignores a POCL_CACHE_DIR that does not exist.
#ifndef TG_PLUGINS_OPENCL_CACHE_DIR_H_
#define TG_PLUGINS_OPENCL_CACHE_DIR_H_

#include <string>

namespace tg_ocl {

// If POCL_CACHE_DIR is unset, creates <base>/pocl and sets POCL_CACHE_DIR to it (setenv, never
// overwriting the user's value). <base> is the first of $TG_CACHE_DIR, $XDG_CACHE_HOME/tinygrad-cc,
// $HOME/.cache/tinygrad-cc, /tmp/tinygrad-cc-<uid> whose directory can be created. Returns the
// directory chosen ("" when none could be made: PoCL then falls back to its own default).
// Must run before the first OpenCL call (PoCL reads the variable when the platform loads); not
// thread-safe with other setenv/getenv callers, so it runs once, inside discovery's call_once.
std::string EnsurePoclCacheDir();

}  // namespace tg_ocl

#endif  // TG_PLUGINS_OPENCL_CACHE_DIR_H_
