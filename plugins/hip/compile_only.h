// compile_only.h: the HIP plugin's "tg.compile_only" extension object (layout in
// hip_compile_only.h), linked into the api table's extensions chain.
#ifndef TG_PLUGINS_HIP_COMPILE_ONLY_H_
#define TG_PLUGINS_HIP_COMPILE_ONLY_H_

#include "plugins/hip/hip_compile_only.h"

namespace tg_hip {

// Static storage; lives forever, as the api table's extensions must.
const tg_ext* CompileOnlyExtension();

}  // namespace tg_hip

#endif  // TG_PLUGINS_HIP_COMPILE_ONLY_H_
