// Fuzz target: the GGUF header, metadata and tensor table (frontend/nn/gguf.cc). Any file either loads or
// throws tg::Error; gguf_read agrees with gguf_load on which files are valid; the bytes of small files'
// tensors (quantized ones as their raw blocks) read back.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "frontend/nn/gguf.h"
#include "tests/fuzzers/input_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const tg::fuzz::InputFile input("gguf", ".gguf");
  const std::string& path = input.Write(data, size);
  bool read_ok = true, load_ok = true, split = false;
  try {
    split = tg::nn::gguf_read(path).metadata.count("split.count") > 0;
  } catch (const tg::Error&) {
    read_ok = false;
  }
  try {
    tg::nn::GGUFFile file = tg::nn::gguf_load(path, "CPU");
    // Every byte range the table declares is copied out of the mapping (what ASan watches); the
    // dequantize expressions are tested by tests/nn/gguf_test.cc, and compiling their kernels per input
    // would cost this target most of its speed. Only small files: each read is a device copy.
    if (size < 2048) {
      for (auto& [name, t] : file.tensors)
        if (!file.blocks.count(name)) (void)t.to_bytes();
      for (auto& [name, t] : file.blocks) (void)t.to_bytes();
    }
  } catch (const tg::Error&) {
    load_ok = false;
  }
  // Both validate the whole header; a split model's load also needs its other parts, which are not here.
  if (read_ok != load_ok && !split) std::abort();
  return 0;
}
