// cuda_program.h: the CUDA plugin's program: a CUmodule and its one CUfunction, built from
// "cuda-c" (the device's NVRTC, nvrtc_choice.h -> CUBIN for its sm_XX) or "ptx" (the driver's
// JIT), or loaded from a "cubin" / "ptx" binary.
#ifndef TG_PLUGINS_CUDA_CUDA_PROGRAM_H_
#define TG_PLUGINS_CUDA_CUDA_PROGRAM_H_

#include <string>

#include "plugins/cuda/cuda_device.h"

struct tg_program {
  tg_device* device = nullptr;          // not owned; outlives the program
  tg_cuda::CUmodule module = nullptr;   // owned: cuModuleUnload
  tg_cuda::CUfunction function = nullptr;
  std::string entry;
  uint32_t num_params = 0;  // what the entry takes: launch refuses any other number of arguments
  std::string format;       // "cubin" or "ptx"
  std::string binary;       // the sealed image program_binary returns; lives until program_destroy
};

namespace tg_cuda {

// cuda-c failures are INVALID_ARGUMENT with the NVRTC log; ptx failures INVALID_ARGUMENT with the
// JIT's error log; a missing entry NOT_FOUND. The entry's parameter count is read from the PTX.
tg_error* ProgramCompile(const tg_compile_args* args, tg_program** out);
// "cubin" or "ptx", sealed by program_binary (plugins/kit/binary_envelope.h) with its kernels'
// parameter counts (entry_params.h); a truncated, corrupt, foreign or wrong-arch image, or one
// without the counts (an older plugin's), is FAILED_PRECONDITION, and only an intact envelope
// reaches the driver.
tg_error* ProgramLoad(tg_device* device, const char* format, const void* binary, uint64_t len,
                      const char* entry, tg_program** out);
tg_error* ProgramBinary(tg_program* program, const char** format, const void** binary, uint64_t* len);
// Waits for the stream (pending launches use the module), then unloads.
void ProgramDestroy(tg_program* program);
// ProgramDestroy for a program its device no longer lists (device_close frees what the host left).
void ReleaseProgram(tg_program* program);

}  // namespace tg_cuda

#endif  // TG_PLUGINS_CUDA_CUDA_PROGRAM_H_
