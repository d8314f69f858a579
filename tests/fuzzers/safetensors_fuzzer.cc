// Fuzz target: safetensors header and offsets (frontend/nn/safetensors.cc). Any file either loads or throws
// tg::Error; the metadata reader agrees with the loader on which files are valid; small tensors read back.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "frontend/nn/nn.h"

namespace {

const std::string& Path() {  // one file per process, rewritten for each input
  static const std::string path = [] {
    const char* dir = std::getenv("TEST_TMPDIR");
    return std::string(dir ? dir : "/tmp") + "/tg_safetensors_fuzz_" + std::to_string(getpid()) + ".safetensors";
  }();
  return path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FILE* f = std::fopen(Path().c_str(), "wb");
  if (!f) std::abort();
  if (size && std::fwrite(data, 1, size, f) != size) std::abort();
  std::fclose(f);
  bool meta_ok = true, load_ok = true;
  try {
    tg::nn::safe_load_metadata(Path());
  } catch (const tg::Error&) {
    meta_ok = false;
  }
  try {
    tg::nn::StateDict sd = tg::nn::safe_load(Path(), "CPU");
    // Reading goes through a device copy (slow): only for small files, which is what the fuzzer makes.
    if (size < 2048)
      for (auto& [name, t] : sd) (void)t.to_bytes();
  } catch (const tg::Error&) {
    load_ok = false;
  }
  if (meta_ok != load_ok) std::abort();  // both validate the whole header
  return 0;
}
