// Fuzz target: the IDX (MNIST-format) parser of apps/idx_reader.h. Any bytes parse or give a Status; a parsed
// array's data is exactly numel * element size.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "apps/idx_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto parsed = tg::apps::ParseIdx(std::string_view(reinterpret_cast<const char*>(data), size));
  if (!parsed.ok()) return 0;
  if (static_cast<size_t>(parsed->numel()) * tg::apps::ElementSize(parsed->type) != parsed->data.size()) std::abort();
  return 0;
}
