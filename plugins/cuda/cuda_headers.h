// cuda_headers.h: where the CUDA toolkit's headers are, so NVRTC finds cuda_fp16.h and cuda_bf16.h
// (kernels of half precision include them; NVRTC searches no directory by itself).
#ifndef TG_PLUGINS_CUDA_CUDA_HEADERS_H_
#define TG_PLUGINS_CUDA_CUDA_HEADERS_H_

#include <string>

namespace tg_cuda {

// The first directory holding cuda_fp16.h of: TG_CUDA_INCLUDE, the include/ beside the directory
// of the NVRTC library in use (|nvrtc_symbol| is one of its functions), $CUDA_HOME/include,
// $CUDA_PATH/include, /usr/local/cuda/include, /usr/include; "" when none does.
std::string CudaHeaderDir(const void* nvrtc_symbol);

}  // namespace tg_cuda

#endif  // TG_PLUGINS_CUDA_CUDA_HEADERS_H_
