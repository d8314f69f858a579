// nvrtc_compiler.h: CUDA C -> PTX or CUBIN through NVRTC, for program_compile and the
// "tg.compile_only" extension. Needs no driver and no GPU.
#ifndef TG_PLUGINS_CUDA_NVRTC_COMPILER_H_
#define TG_PLUGINS_CUDA_NVRTC_COMPILER_H_

#include <string>

#include "plugins/cuda/cuda_api.h"
#include "plugins/cuda/cuda_error.h"

namespace tg_cuda {

enum class NvrtcOutput { kPtx, kCubin };

// Compiles |source| with |nv| (cuda_api.h: LoadNvrtc, or a device's nvrtc_choice.h) and
// --gpu-architecture=|arch| and -default-device (plus |extra_options|, whitespace-separated, may be
// NULL), and that NVRTC's toolkit include directory where there is one (cuda_headers.h):
// half-precision kernels include cuda_fp16.h.
// INVALID_ARGUMENT with the full log when compilation fails. |ptx|, when not NULL, also receives the
// PTX NVRTC made on the way to a CUBIN (it says what the kernels take).
tg_error* NvrtcCompile(const NvrtcApi& nv, const std::string& source, const std::string& arch,
                       const char* extra_options, NvrtcOutput output, std::string* out, std::string* ptx = nullptr);

// "libnvrtc.so.13 13.0" (LoadNvrtc's), or "" without NVRTC: what compiles without a device.
std::string NvrtcDescription();

}  // namespace tg_cuda

#endif  // TG_PLUGINS_CUDA_NVRTC_COMPILER_H_
