// cpu_native_handles.h: the CPU plugin's "tg.native_handles" extension (layout in tg_plugin.h):
// a buffer's native address is its host pointer, its memory kind "host"; devices have no native
// stream or context. Lets host code hand CPU buffers to native libraries (tests drive tg::dist's
// NCCL path with a stub libnccl through it).
#ifndef TG_PLUGINS_CPU_CPU_NATIVE_HANDLES_H_
#define TG_PLUGINS_CPU_CPU_NATIVE_HANDLES_H_

#include "plugins/abi/tg_plugin.h"

namespace tg_cpu {

// Static storage; lives forever, as the api table's extensions must.
const tg_ext* NativeHandlesExtension();

}  // namespace tg_cpu

#endif  // TG_PLUGINS_CPU_CPU_NATIVE_HANDLES_H_
