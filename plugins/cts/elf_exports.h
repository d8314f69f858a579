// elf_exports.h: the defined dynamic symbols of a shared object, read from its ELF file.
// What `nm -D --defined-only` prints, without a shell or binutils; the T0 "one export" check.
#ifndef TG_PLUGINS_CTS_ELF_EXPORTS_H_
#define TG_PLUGINS_CTS_ELF_EXPORTS_H_

#include <string>
#include <vector>

namespace tg_cts {

// Global and weak symbols of .dynsym that are defined in |path| (version-definition symbols
// excluded). Returns false with |error| set when the file is not a readable 64-bit ELF.
bool DefinedDynamicSymbols(const std::string& path, std::vector<std::string>* out, std::string* error);

}  // namespace tg_cts

#endif  // TG_PLUGINS_CTS_ELF_EXPORTS_H_
