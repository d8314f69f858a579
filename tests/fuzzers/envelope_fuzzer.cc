// Fuzz target: the plugins' program binary envelope (plugins/kit/binary_envelope.h), with the CPU
// plugin's magic as the seeds have it. Whatever the bytes, Unseal either rejects them with a reason
// or returns a fingerprint and payload inside them that seal back to the same bytes.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "plugins/kit/binary_envelope.h"

namespace {
constexpr tg_kit::BinaryEnvelope kEnvelope("TGCPUBIN");

bool Inside(std::string_view part, std::string_view whole) {
  return part.data() >= whole.data() && part.data() + part.size() <= whole.data() + whole.size();
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view sealed(reinterpret_cast<const char*>(data), size);
  std::string_view payload, fingerprint;
  std::string why;
  if (!kEnvelope.Unseal(sealed, &payload, &why, &fingerprint)) {
    if (why.empty()) std::abort();  // a rejection must say why
    return 0;
  }
  if (!Inside(payload, sealed) || !Inside(fingerprint, sealed)) std::abort();
  if (kEnvelope.Seal(payload, fingerprint) != sealed) std::abort();
  return 0;
}
