// damaged_binaries.h: copies of a good program binary damaged the ways a disk cache or a copy
// damages files, for the program_load regression tests (each must be FAILED_PRECONDITION, never a
// crash). Plain C++, no gtest, so cuda_device_check (run on GPU machines) can use it too.
#ifndef TG_TESTS_PLUGINS_DAMAGED_BINARIES_H_
#define TG_TESTS_PLUGINS_DAMAGED_BINARIES_H_

#include <cstddef>
#include <string>
#include <vector>

namespace tg::testing {

struct DamagedBinary {
  std::string what;    // for failure messages: "truncated to 12 bytes", "bit 4 of byte 9 flipped"
  std::string bytes;
  bool truncated;      // the plugin's message must then say "truncated"
};

// Truncations at every header boundary and inside the payload, and one flipped bit in every byte
// of the first 64 (the plugins' envelope headers and fingerprint) and at 16 spread payload
// positions, and one byte appended. A checksum or length check catches each of them.
inline std::vector<DamagedBinary> DamagedBinaries(const std::string& good) {
  std::vector<DamagedBinary> out;
  const size_t n = good.size();
  for (size_t cut : {size_t{0}, size_t{4}, size_t{8}, size_t{27}, size_t{28}, size_t{31}, size_t{32}, n / 2, n - 1}) {
    if (cut < n) out.push_back({"truncated to " + std::to_string(cut) + " bytes", good.substr(0, cut), true});
  }
  std::vector<size_t> flips;
  for (size_t i = 0; i < 64 && i < n; ++i) flips.push_back(i);
  for (size_t k = 1; k <= 16; ++k) flips.push_back((n - 1) * k / 16);
  for (size_t at : flips) {
    std::string b = good;
    b[at] = static_cast<char>(b[at] ^ 0x10);
    out.push_back({"bit 4 of byte " + std::to_string(at) + " flipped", std::move(b), false});
  }
  out.push_back({"one byte appended", good + '\0', false});
  return out;
}

}  // namespace tg::testing

#endif  // TG_TESTS_PLUGINS_DAMAGED_BINARIES_H_
