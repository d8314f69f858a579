// cpu_program.h: the CPU plugin's program: a "c" kernel compiled by the system C compiler into a shared
// object in the disk cache, dlopen()ed (binary format "elf-so"), or an "llvm-ir" kernel compiled
// in-process into object code and linked by LLVM's JIT (llvm_jit.h; binary format "llvm-obj"), or a
// "tg-uops" kernel parsed for the interpreter (uop_interpreter.h; no binary: the host keeps the text).
#ifndef TG_PLUGINS_CPU_CPU_PROGRAM_H_
#define TG_PLUGINS_CPU_CPU_PROGRAM_H_

#include <memory>
#include <mutex>
#include <string>

#include "plugins/cpu/cpu_device.h"
#include "plugins/cpu/llvm_jit.h"
#include "plugins/cpu/uop_interpreter.h"

struct tg_program {
  tg_device* device = nullptr;
  void* library = nullptr;  // dlopen handle, dlclose()d by ProgramDestroy ("c" programs)
  tg_cpu::JitKernel jit;    // the linked code ("llvm-ir" programs)
  tg_cpu::JitObject object; // ... and the object it came from, for program_binary
  tg_c_kernel_fn fn = nullptr;
  std::unique_ptr<tg_cpu::uops::UopKernel> uops;  // "tg-uops" programs: run by the interpreter, fn NULL
  std::string entry;
  std::string so_path;      // the cached shared object
  std::once_flag binary_once;
  std::string binary;       // the sealed .so or object bytes, made on the first program_binary
  std::string binary_error;
};

namespace tg_cpu {

// program_compile: dialect "c" (errors as CompileToSharedObject, NOT_FOUND when the entry symbol is
// missing from the compiled object), "llvm-ir" (errors as JitCompile) or "tg-uops" (INVALID_ARGUMENT
// for text the parser refuses, NOT_FOUND when its header names another entry).
tg_error* ProgramCompile(const tg_compile_args* args, tg_program** out);
// program_load: |format| "elf-so" with |binary| a sealed (binary_envelope.h) x86-64 ELF shared object,
// written to the cache and dlopen()ed; or "llvm-obj" with a sealed object of an llvm-ir program,
// linked by the JIT. Anything else is FAILED_PRECONDITION (the host then recompiles): truncated,
// corrupt or foreign bytes, or an object generated for another CPU, never reach dlopen() or LLVM.
tg_error* ProgramLoad(tg_device* device, const char* format, const void* binary, uint64_t len,
                      const char* entry, tg_program** out);
// program_binary: the sealed .so bytes and "elf-so", or for an llvm-ir program the sealed object (with
// the CPU it was generated for and its symbol) and "llvm-obj"; valid until ProgramDestroy. A tg-uops
// program has none (UNIMPLEMENTED), so the host never caches one.
tg_error* ProgramBinary(tg_program* program, const char** out_format, const void** out_binary,
                        uint64_t* out_len);
void ProgramDestroy(tg_program* program);

}  // namespace tg_cpu

#endif  // TG_PLUGINS_CPU_CPU_PROGRAM_H_
