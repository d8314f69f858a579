// hip_program.h: the HIP plugin's program: a hipModule_t and its one hipFunction_t, built from
// "hip-c" with hiprtc or loaded from an "hsaco" code object.
#ifndef TG_PLUGINS_HIP_HIP_PROGRAM_H_
#define TG_PLUGINS_HIP_HIP_PROGRAM_H_

#include <mutex>
#include <string>

#include "plugins/hip/hip_device.h"

struct tg_program {
  tg_device* device = nullptr;       // not owned; outlives the program
  hipModule_t module = nullptr;      // owned: hipModuleUnload
  hipFunction_t function = nullptr;
  std::string entry;
  // The bytes hipModuleLoadData read, kept as long as the module: the runtime may refer to them.
  std::string image;
  std::once_flag binary_once;
  std::string binary;  // |image| sealed on the first program_binary; lives until program_destroy
};

namespace tg_hip {

// The device remembers each program until ProgramDestroy, so that CloseDevice can unload what is
// left. UNIMPLEMENTED for an arch hiprtc cannot compile for (hiprtc_arch_probe.h); INVALID_ARGUMENT
// with the hiprtc log for a bad source; NOT_FOUND for a missing entry.
tg_error* ProgramCompile(const tg_compile_args* args, tg_program** out);
// Only "hsaco", sealed by program_binary (plugins/kit/binary_envelope.h); a truncated, corrupt or
// foreign code object is FAILED_PRECONDITION, and only an intact envelope reaches the runtime.
tg_error* ProgramLoad(tg_device* device, const char* format, const void* binary, uint64_t len,
                      const char* entry, tg_program** out);
tg_error* ProgramBinary(tg_program* program, const char** format, const void** binary, uint64_t* len);
void ProgramDestroy(tg_program* program);  // waits for the stream, then unloads
// hipModuleUnload and delete, for CloseDevice once the device's stream has drained; the caller has
// taken |program| out of the device's set.
void ReleaseProgram(tg_program* program);

}  // namespace tg_hip

#endif  // TG_PLUGINS_HIP_HIP_PROGRAM_H_
