// kernel_corpus.cc: finding and reading kernels/<dialect>/<name>.<ext>.
#include "plugins/cts/kernel_corpus.h"

#include <fstream>
#include <sstream>

#include "plugins/abi/tg_plugin.h"
#include "plugins/cts/runfile.h"

namespace tg_cts {
namespace {

struct DialectFiles {
  const char* dialect;
  const char* ext;
};
constexpr DialectFiles kDialects[] = {
    {"c", ".c"}, {"opencl-c", ".cl"}, {"cuda-c", ".cu"}, {"hip-c", ".hip"}};

const char* ExtensionOf(const std::string& dialect) {
  for (const DialectFiles& d : kDialects) {
    if (dialect == d.dialect) return d.ext;
  }
  return nullptr;
}

// The kernels directory: --kernels, else the runfiles of this binary.
std::string KernelPath(const Plugin& p, const std::string& rel) {
  if (!p.kernels_dir.empty()) return p.kernels_dir + "/" + rel;
  return Runfile(p, "plugins/cts/kernels/" + rel);
}

}  // namespace

std::vector<std::string> CorpusDialects() {
  std::vector<std::string> out;
  for (const DialectFiles& d : kDialects) out.push_back(d.dialect);
  return out;
}

std::optional<std::string> KernelSource(const Plugin& p, const std::string& dialect,
                                        const std::string& name) {
  const char* ext = ExtensionOf(dialect);
  if (ext == nullptr) return std::nullopt;
  std::string path = KernelPath(p, dialect + "/" + name + ext);
  if (path.empty()) return std::nullopt;
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return dialect == "c" ? std::string(TG_C_DIALECT_PRELUDE) + text.str() : text.str();
}

uint32_t BusyReference(int32_t iters) {
  uint32_t x = 1;
  for (int32_t i = 0; i < iters; ++i) x = x * 1664525u + 1013904223u;
  return x;
}

}  // namespace tg_cts
