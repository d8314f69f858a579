#include "plugins/cpu/dialect_choice.h"

#include <stdlib.h>
#include <unistd.h>

#include <cstring>

namespace tg_cpu {
namespace {

constexpr DialectOrder kLlvmFirst{"llvm-ir", "c"};
constexpr DialectOrder kCFirst{"c", "llvm-ir"};

}  // namespace

std::vector<std::string> LibrarySearchDirs() {
  std::vector<std::string> dirs;
  if (const char* env = getenv("LD_LIBRARY_PATH")) {
    std::string path = env;
    for (size_t start = 0; start <= path.size();) {
      size_t colon = path.find(':', start);
      if (colon == std::string::npos) colon = path.size();
      if (colon > start) dirs.push_back(path.substr(start, colon - start));
      start = colon + 1;
    }
  }
  for (const char* d : {"/usr/lib/x86_64-linux-gnu", "/lib/x86_64-linux-gnu", "/usr/lib/llvm-15/lib",
                        "/usr/local/lib", "/usr/lib", "/lib"})
    dirs.push_back(d);
  return dirs;
}

DialectOrder ChooseDialects(const char* requested, bool sanitized, bool llvm_installed) {
  if (requested != nullptr && std::strcmp(requested, "llvm-ir") == 0) return kLlvmFirst;
  if (requested != nullptr && std::strcmp(requested, "c") == 0) return kCFirst;
  return sanitized || !llvm_installed ? kCFirst : kLlvmFirst;
}

bool LibraryInstalled(const std::string& soname, const std::vector<std::string>& dirs) {
  for (const std::string& dir : dirs)
    if (access((dir + "/" + soname).c_str(), R_OK) == 0) return true;
  return false;
}

}  // namespace tg_cpu
