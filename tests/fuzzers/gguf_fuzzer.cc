// Fuzz target: the GGUF header, metadata and tensor table (frontend/nn/gguf.cc). Any file either loads or
// throws tg::Error; gguf_read agrees with gguf_load on which files are valid; small tensors read back,
// quantized ones through their dequantize expressions.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "frontend/nn/gguf.h"

namespace {

const std::string& Path() {  // one file per process, rewritten for each input
  static const std::string path = [] {
    const char* dir = std::getenv("TEST_TMPDIR");
    return std::string(dir ? dir : "/tmp") + "/tg_gguf_fuzz_" + std::to_string(getpid()) + ".gguf";
  }();
  return path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FILE* f = std::fopen(Path().c_str(), "wb");
  if (!f) std::abort();
  if (size && std::fwrite(data, 1, size, f) != size) std::abort();
  std::fclose(f);
  bool read_ok = true, load_ok = true;
  try {
    tg::nn::gguf_read(Path());
  } catch (const tg::Error&) {
    read_ok = false;
  }
  try {
    tg::nn::GGUFFile file = tg::nn::gguf_load(Path(), "CPU");
    // Reading goes through a device copy and a kernel compile (slow): only for small files, which is
    // what the fuzzer makes. bf16 and f16 are read as their bytes (the C renderer has no bf16 cast).
    if (size < 2048)
      for (auto& [name, t] : file.tensors) {
        bool raw = t.dtype() == tg::dtypes::bfloat16 || t.dtype() == tg::dtypes::float16 || !file.blocks.count(name);
        (void)(raw ? t.to_bytes() : t.sum().to_bytes());
      }
  } catch (const tg::Error&) {
    load_ok = false;
  }
  if (read_ok != load_ok) std::abort();  // both validate the whole header
  return 0;
}
