// Fuzz target: the CPU plugin's program binary envelope (plugins/cpu/binary_envelope.h). Whatever the bytes,
// UnsealBinary either rejects them or returns a payload inside them that seals back to the same bytes.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "plugins/cpu/binary_envelope.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view sealed(reinterpret_cast<const char*>(data), size);
  std::string_view payload;
  std::string why;
  if (!tg_cpu::UnsealBinary(sealed, &payload, &why)) {
    if (why.empty()) std::abort();  // a rejection must say why
    return 0;
  }
  if (payload.data() < sealed.data() || payload.data() + payload.size() > sealed.data() + sealed.size()) std::abort();
  if (tg_cpu::SealBinary(payload) != sealed) std::abort();
  return 0;
}
