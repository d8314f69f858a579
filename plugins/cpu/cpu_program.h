// cpu_program.h: the CPU plugin's program: a "c" kernel compiled by the system C compiler into a shared
// object in the disk cache, dlopen()ed (binary format "elf-so"), or an "llvm-ir" kernel JIT-compiled
// in-process (llvm_jit.h; no binary: program_binary is UNIMPLEMENTED for it, so it recompiles per process).
#ifndef TG_PLUGINS_CPU_CPU_PROGRAM_H_
#define TG_PLUGINS_CPU_CPU_PROGRAM_H_

#include <mutex>
#include <string>

#include "plugins/cpu/cpu_device.h"
#include "plugins/cpu/llvm_jit.h"

struct tg_program {
  tg_device* device = nullptr;
  void* library = nullptr;  // dlopen handle, dlclose()d by ProgramDestroy ("c" programs)
  tg_cpu::JitKernel jit;    // the JIT-compiled code ("llvm-ir" programs)
  tg_c_kernel_fn fn = nullptr;
  std::string entry;
  std::string so_path;      // the cached shared object
  std::once_flag binary_once;
  std::string binary;       // the sealed .so bytes, made on the first program_binary
  std::string binary_error;
};

namespace tg_cpu {

// program_compile: dialect "c" (errors as CompileToSharedObject, NOT_FOUND when the entry symbol is
// missing from the compiled object) or "llvm-ir" (errors as JitCompile).
tg_error* ProgramCompile(const tg_compile_args* args, tg_program** out);
// program_load: |format| must be "elf-so" and |binary| a sealed (binary_envelope.h) x86-64 ELF
// shared object, else FAILED_PRECONDITION (the host then recompiles): truncated, corrupt or
// foreign bytes never reach dlopen(). The .so is written to the cache and dlopen()ed.
tg_error* ProgramLoad(tg_device* device, const char* format, const void* binary, uint64_t len,
                      const char* entry, tg_program** out);
// program_binary: the sealed .so bytes and "elf-so"; valid until ProgramDestroy. UNIMPLEMENTED for
// llvm-ir programs: their JIT takes milliseconds, so the host simply compiles them again.
tg_error* ProgramBinary(tg_program* program, const char** out_format, const void** out_binary,
                        uint64_t* out_len);
void ProgramDestroy(tg_program* program);

}  // namespace tg_cpu

#endif  // TG_PLUGINS_CPU_CPU_PROGRAM_H_
