// cuda_api.h: the CUDA driver and NVRTC entry points, resolved with dlsym at run time.
// Nothing is linked: a machine without libcuda.so.1 or NVRTC loads the plugin and gets a reason.
#ifndef TG_PLUGINS_CUDA_CUDA_API_H_
#define TG_PLUGINS_CUDA_CUDA_API_H_

#include <string>
#include <vector>

#include "plugins/cuda/cuda_decls.h"

namespace tg_cuda {

// Filled once, immutable afterwards (readable from any thread).
struct CuApi {
#define TG_CU_FIELD(name) PFN_##name name = nullptr;
  TG_CU_FUNCTIONS(TG_CU_FIELD)
};
struct NvrtcApi {
  TG_NVRTC_FUNCTIONS(TG_CU_FIELD)
#undef TG_CU_FIELD
  std::string library;  // the file that was loaded, for messages and the fingerprint
  std::string version;  // "13.0"
  int major = 0, minor = 0;
  std::string headers;  // the toolkit include directory for this NVRTC (cuda_headers.h), or ""
};

// dlopen("libcuda.so.1") (never closed) and every driver symbol. NULL with |*why| on failure.
// Thread-safe; the first call does the work.
const CuApi* LoadDriver(std::string* why);
// Every NVRTC of libnvrtc.so.13, .12, .11, libnvrtc.so, then /usr/local/cuda/lib64/libnvrtc.so*,
// in that order, each library once (two names of one file are one). Empty with |*why| (every name
// tried) when there is none. Thread-safe; the first call does the work. Independent of the driver:
// compiling needs no GPU, and which of them a device may use is nvrtc_choice.h's business.
const std::vector<NvrtcApi>& NvrtcLibraries(std::string* why);
// The first of NvrtcLibraries, for compiling without a device. NULL with |*why| when there is none.
const NvrtcApi* LoadNvrtc(std::string* why);

// The driver table after a successful LoadDriver (every device object implies one).
const CuApi& Cu();

// "CUDA_ERROR_OUT_OF_MEMORY (2): out of memory", using the driver's own names when it has them.
std::string CuResultName(CUresult r);

}  // namespace tg_cuda

#endif  // TG_PLUGINS_CUDA_CUDA_API_H_
