// ocl_error.h: OpenCL status codes as tg_errors (the error object itself is the kit's).
// Plugin-internal (hidden by the version script).
#ifndef TG_PLUGINS_OPENCL_OCL_ERROR_H_
#define TG_PLUGINS_OPENCL_OCL_ERROR_H_

#include <string>

#include "plugins/abi/tg_plugin.h"
#include "plugins/kit/plugin_error.h"

namespace tg_ocl {

// The kit's error object and guards (messages start "opencl: ").
using tg_kit::Guard;
using tg_kit::GuardVoid;
using tg_kit::MakeError;

// "CL_OUT_OF_RESOURCES (-5)" for an OpenCL status code.
std::string ClStatusName(int status);
// The tg_code an OpenCL status maps to (memory errors -> RESOURCE_EXHAUSTED, bad values ->
// INVALID_ARGUMENT, the rest -> INTERNAL).
tg_code CodeForStatus(int status);
// NULL when |status| is CL_SUCCESS, else an error "<what>: <status name>".
tg_error* CheckCl(int status, const std::string& what) noexcept;

}  // namespace tg_ocl

#endif  // TG_PLUGINS_OPENCL_OCL_ERROR_H_
