// compile_only.h: the CUDA plugin's "tg.compile_only" extension object (layout in
// cuda_compile_only.h), linked into the api table's extensions chain.
#ifndef TG_PLUGINS_CUDA_COMPILE_ONLY_H_
#define TG_PLUGINS_CUDA_COMPILE_ONLY_H_

#include "plugins/cuda/cuda_compile_only.h"

namespace tg_cuda {

// Static storage; lives forever, as the api table's extensions must.
const tg_ext* CompileOnlyExtension();

}  // namespace tg_cuda

#endif  // TG_PLUGINS_CUDA_COMPILE_ONLY_H_
