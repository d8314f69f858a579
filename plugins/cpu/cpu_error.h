// cpu_error.h: the CPU plugin's errors: the kit's error object and exception guards, under the
// names the plugin's files use. Plugin-internal (hidden by the version script).
#ifndef TG_PLUGINS_CPU_CPU_ERROR_H_
#define TG_PLUGINS_CPU_CPU_ERROR_H_

#include "plugins/kit/plugin_error.h"

namespace tg_cpu {

// MakeError(code, message) prefixes "cpu: "; Guard and GuardVoid keep exceptions inside.
using tg_kit::Guard;
using tg_kit::GuardVoid;
using tg_kit::MakeError;

}  // namespace tg_cpu

#endif  // TG_PLUGINS_CPU_CPU_ERROR_H_
