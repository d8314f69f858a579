// dialect_choice.h: which source dialect the CPU device asks the host to render first; plugin-internal.
//
// "llvm-ir" by default: compiled in-process by LLVM it starts 10-20x faster than a gcc process per
// kernel ("c"), and its kernels run as fast warm (tools/bench/RESULTS.md). "c" comes first instead
//  - when TG_CPU_DIALECT=c asks for it (TG_CPU_DIALECT=llvm-ir asks for llvm-ir whatever else holds);
//  - in sanitizer builds: gcc compiles C kernels with the process's own sanitizer (c_compiler.cc),
//    while LLVM's objects carry no instrumentation;
//  - where libLLVM-15 is not installed. That is looked up on disk, not loaded: a process that never
//    compiles a kernel must not map LLVM (llvm_jit.h).
// Both dialects are always offered (and the interpreted "tg-uops" after them, cpu_device.cc); the order
// only says which one the host renders.
#ifndef TG_PLUGINS_CPU_DIALECT_CHOICE_H_
#define TG_PLUGINS_CPU_DIALECT_CHOICE_H_

#include <string>
#include <vector>

namespace tg_cpu {

struct DialectOrder {
  const char* first;
  const char* second;
};

// The order for an explicit TG_CPU_DIALECT value (null or empty when unset), a sanitizer build, and
// whether libLLVM-15 is installed. An unknown TG_CPU_DIALECT value counts as unset.
DialectOrder ChooseDialects(const char* requested, bool sanitized, bool llvm_installed);

// Whether a file named |soname| is in one of |dirs|.
bool LibraryInstalled(const std::string& soname, const std::vector<std::string>& dirs);

// Where the dynamic loader looks for a library on Debian and Ubuntu (x86-64): LD_LIBRARY_PATH's
// directories, then the multiarch ones, LLVM 15's own, then the plain ones.
std::vector<std::string> LibrarySearchDirs();

}  // namespace tg_cpu

#endif  // TG_PLUGINS_CPU_DIALECT_CHOICE_H_
