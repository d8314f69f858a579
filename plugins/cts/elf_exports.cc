// elf_exports.cc: walking the section headers to .dynsym and its string table.
#include "plugins/cts/elf_exports.h"

#include <elf.h>

#include <cstring>
#include <fstream>
#include <iterator>

namespace tg_cts {
namespace {

// Copies a T out of |file| at |offset| (no alignment assumptions); false when out of range.
template <typename T>
bool At(const std::string& file, uint64_t offset, T* out) {
  if (offset > file.size() || file.size() - offset < sizeof(T)) return false;
  std::memcpy(out, file.data() + offset, sizeof(T));
  return true;
}

bool ReadSymbols(const std::string& file, const Elf64_Shdr& dynsym, const Elf64_Shdr& strtab,
                 std::vector<std::string>* out) {
  if (dynsym.sh_entsize != sizeof(Elf64_Sym)) return false;
  for (uint64_t i = 1; i < dynsym.sh_size / sizeof(Elf64_Sym); ++i) {  // entry 0 is STN_UNDEF
    Elf64_Sym sym;
    if (!At(file, dynsym.sh_offset + i * sizeof sym, &sym)) return false;
    unsigned bind = ELF64_ST_BIND(sym.st_info);
    if (sym.st_shndx == SHN_UNDEF) continue;                          // imported, not exported
    if (bind != STB_GLOBAL && bind != STB_WEAK && bind != STB_GNU_UNIQUE) continue;
    if (sym.st_shndx == SHN_ABS && sym.st_value == 0) continue;       // a version node name
    if (sym.st_name >= strtab.sh_size) return false;
    const char* name = file.data() + strtab.sh_offset + sym.st_name;
    out->push_back(std::string(name, strnlen(name, strtab.sh_size - sym.st_name)));
  }
  return true;
}

}  // namespace

bool DefinedDynamicSymbols(const std::string& path, std::vector<std::string>* out, std::string* error) {
  std::ifstream in(path, std::ios::binary);
  std::string file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  Elf64_Ehdr eh;
  if (!in.good() && !in.eof()) return *error = "cannot read " + path, false;
  if (!At(file, 0, &eh) || std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
      eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_shentsize != sizeof(Elf64_Shdr)) {
    return *error = path + " is not a 64-bit ELF file", false;
  }
  for (uint16_t i = 0; i < eh.e_shnum; ++i) {
    Elf64_Shdr sh, link;
    if (!At(file, eh.e_shoff + uint64_t{i} * sizeof sh, &sh)) break;
    if (sh.sh_type != SHT_DYNSYM) continue;
    if (!At(file, eh.e_shoff + uint64_t{sh.sh_link} * sizeof link, &link) ||
        link.sh_offset > file.size() || file.size() - link.sh_offset < link.sh_size ||
        !ReadSymbols(file, sh, link, out)) {
      return *error = path + ": malformed .dynsym", false;
    }
    return true;
  }
  return *error = path + " has no .dynsym section (not a shared object?)", false;
}

}  // namespace tg_cts
