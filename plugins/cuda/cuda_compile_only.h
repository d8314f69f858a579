/* cuda_compile_only.h: the CUDA plugin's "tg.compile_only" extension: cuda-c -> PTX or CUBIN with
 * NVRTC alone (no driver, no GPU). For CI and tests on machines without NVIDIA hardware.
 *
 * Found in the plugin's tg_plugin_api.extensions chain by name "tg.compile_only", version 1.
 * Private to this plugin (not part of tg_plugin.h); plain C so any host can include it. */
#ifndef TG_PLUGINS_CUDA_CUDA_COMPILE_ONLY_H_
#define TG_PLUGINS_CUDA_CUDA_COMPILE_ONLY_H_

#include <stdint.h>

#include "plugins/abi/tg_plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TG_CUDA_COMPILE_ONLY_NAME "tg.compile_only"
#define TG_CUDA_COMPILE_ONLY_VERSION 1u

typedef struct tg_cuda_compile_only_ext {
  tg_ext base; /* base.struct_size = sizeof(tg_cuda_compile_only_ext); the fields below follow */
  /* Compiles |source| (|source_len| bytes, the "cuda-c" dialect of tg_plugin.h) for |arch|
   * ("sm_90") into |format|: "ptx" (text, NUL-terminated; *out_len excludes the NUL) or "cubin".
   * Works without initialize(), a driver or a GPU. On success *out_code is the plugin's allocation:
   * release it with free_code. Errors are the plugin's tg_error (free with the api's
   * error_destroy): UNAVAILABLE without NVRTC (the message lists what was tried), INVALID_ARGUMENT
   * with the full NVRTC log for a bad source, arch or format. Thread-safe. */
  tg_error* (*compile)(const char* source, uint64_t source_len, const char* arch, const char* format,
                       char** out_code, uint64_t* out_len);
  void (*free_code)(char* code);
  /* The NVRTC library and version in use ("libnvrtc.so.13 13.0"), or NULL without NVRTC. Lives forever. */
  const char* (*compiler_version)(void);
} tg_cuda_compile_only_ext;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TG_PLUGINS_CUDA_CUDA_COMPILE_ONLY_H_ */
