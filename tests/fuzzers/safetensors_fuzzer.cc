// Fuzz target: safetensors header and offsets (frontend/nn/safetensors.cc). Any file either loads or throws
// tg::Error; the metadata reader agrees with the loader on which files are valid; small tensors read back.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "frontend/nn/nn.h"
#include "tests/fuzzers/input_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const tg::fuzz::InputFile input("safetensors", ".safetensors");
  const std::string& path = input.Write(data, size);
  bool meta_ok = true, load_ok = true;
  try {
    tg::nn::safe_load_metadata(path);
  } catch (const tg::Error&) {
    meta_ok = false;
  }
  try {
    tg::nn::StateDict sd = tg::nn::safe_load(path, "CPU");
    // Reading goes through a device copy (slow): only for small files, which is what the fuzzer makes.
    if (size < 2048)
      for (auto& [name, t] : sd) (void)t.to_bytes();
  } catch (const tg::Error&) {
    load_ok = false;
  }
  if (meta_ok != load_ok) std::abort();  // both validate the whole header
  return 0;
}
