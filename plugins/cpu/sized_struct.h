// sized_struct.h: struct_size-bounded reads and writes of ABI structs, from the kit
// (plugins/kit/sized_struct.h), under the names the plugin's files use.
#ifndef TG_PLUGINS_CPU_SIZED_STRUCT_H_
#define TG_PLUGINS_CPU_SIZED_STRUCT_H_

#include "plugins/kit/sized_struct.h"

namespace tg_cpu {

using tg_kit::ReadSized;
using tg_kit::WriteSized;

}  // namespace tg_cpu

#endif  // TG_PLUGINS_CPU_SIZED_STRUCT_H_
