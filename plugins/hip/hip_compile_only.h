/* hip_compile_only.h: the HIP plugin's "tg.compile_only" extension: hip-c -> AMDGPU code object
 * with hiprtc alone (no GPU needed). For CI and tests on machines without AMD hardware.
 *
 * Found in the plugin's tg_plugin_api.extensions chain by name "tg.compile_only", version 1.
 * Private to this plugin (not part of tg_plugin.h); plain C so any host can include it. */
#ifndef TG_PLUGINS_HIP_HIP_COMPILE_ONLY_H_
#define TG_PLUGINS_HIP_HIP_COMPILE_ONLY_H_

#include <stdint.h>

#include "plugins/abi/tg_plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TG_HIP_COMPILE_ONLY_NAME "tg.compile_only"
#define TG_HIP_COMPILE_ONLY_VERSION 1u

typedef struct tg_hip_compile_only_ext {
  tg_ext base; /* base.struct_size = sizeof(tg_hip_compile_only_ext); the fields below follow */
  /* Compiles |source| (|source_len| bytes, the "hip-c" dialect of tg_plugin.h) for |arch|
   * ("gfx90a") into |format| "hsaco" (an ELF code object). Works without initialize() or a GPU.
   * The first compile for an arch compiles a test kernel for it in a child process, since hiprtc
   * 5.2 aborts the process for architectures it predates (gfx1100, gfx942); an arch that fails
   * there is UNIMPLEMENTED, with what happened. On success *out_code is the plugin's allocation:
   * release it with free_code. Errors are the plugin's tg_error (free with the api's
   * error_destroy): UNAVAILABLE without hiprtc, INVALID_ARGUMENT with the full hiprtc log for a bad
   * source. */
  tg_error* (*compile)(const char* source, uint64_t source_len, const char* arch, const char* format,
                       char** out_code, uint64_t* out_len);
  void (*free_code)(char* code);
  /* "hiprtc 5.2 (libamdhip64.so.5)", "hiprtc 6.2 (libhiprtc.so.6)", or NULL without hiprtc.
   * Lives forever. */
  const char* (*compiler_version)(void);
} tg_hip_compile_only_ext;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TG_PLUGINS_HIP_HIP_COMPILE_ONLY_H_ */
