// Files for the loader tests (safetensors, GGUF): paths in the test's scratch directory, whole-file reads
// and writes, and bfloat16 tensors read through their bits (the CPU renderer cannot cast bf16 with gcc 12,
// which has no __bf16, and these tests are about the file formats, not the cast).
#ifndef TG_TESTS_NN_FILE_UTIL_H_
#define TG_TESTS_NN_FILE_UTIL_H_

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "frontend/tensor.h"

namespace tg::testing {

inline std::string TempPath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir ? dir : "/tmp") + "/" + name;
}

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

inline void WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

inline std::vector<float> Bf16Values(const Tensor& t) {
  std::vector<unsigned char> bytes = t.to_bytes();
  std::vector<float> out;
  for (size_t i = 0; i + 1 < bytes.size(); i += 2) {
    uint32_t u = (static_cast<uint32_t>(bytes[i + 1]) << 24) | (static_cast<uint32_t>(bytes[i]) << 16);
    float f;
    std::memcpy(&f, &u, 4);
    out.push_back(f);
  }
  return out;
}

}  // namespace tg::testing

#endif  // TG_TESTS_NN_FILE_UTIL_H_
