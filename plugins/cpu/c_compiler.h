// c_compiler.h: the system C compiler, found at run time, turning "c" dialect source into a cached
// shared object. Sits under program_compile in the CPU plugin; plugin-internal.
#ifndef TG_PLUGINS_CPU_C_COMPILER_H_
#define TG_PLUGINS_CPU_C_COMPILER_H_

#include <string>
#include <string_view>
#include <vector>

#include "plugins/cpu/cpu_error.h"

namespace tg_cpu {

// The compiler chosen once per process: $CC (split on spaces, e.g. "ccache gcc"), else cc, gcc,
// clang on $PATH (default /usr/local/bin:/usr/bin:/bin). |command| is empty when none was found;
// |tried| then names every candidate looked at.
struct CCompiler {
  std::vector<std::string> command;
  std::string version;  // first line of `<command> --version`
  std::string tried;
};
const CCompiler& FindCCompiler();

// Whether kernels are compiled with a sanitizer: this plugin is a sanitizer build (c_compiler.cc).
bool KernelsAreSanitized();

// Flags every kernel is compiled with (they are part of the cache key and the fingerprint).
const std::vector<std::string>& BaseCompileFlags();

// Compiles |source| (plus |options|, split on spaces) into <cache>/<hash>.so, where the hash covers
// source, flags, options and compiler version, so one source compiles once per machine. A cache
// hit skips the compiler. On success stores the path in |so_path| and returns NULL. Errors:
// UNAVAILABLE (no compiler, naming what was tried; no cache directory), INVALID_ARGUMENT (the
// compiler rejected the source; the message holds its full log), INTERNAL (I/O failures).
tg_error* CompileToSharedObject(std::string_view source, std::string_view options,
                                std::string* so_path);

}  // namespace tg_cpu

#endif  // TG_PLUGINS_CPU_C_COMPILER_H_
