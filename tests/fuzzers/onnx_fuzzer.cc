// Fuzz target: ONNX models (frontend/onnx). Any bytes either load or throw tg::Error; a model that loads and
// declares small inputs is also run once on them (zeros; symbolic dims bound to 2) and its outputs read, where
// again only tg::Error may come out. Anything else (a crash, another exception, a leak) is a bug.
// TG_ONNX_FUZZ_LOAD_ONLY=1 skips the run (kernel compiles make it ~50 inputs/s; the loader alone is ~100x faster).
#include <cstdint>
#include <cstdlib>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "frontend/onnx/onnx.h"
#include "frontend/tg.h"

namespace {

constexpr int64_t kMaxRunNumel = 64;  // per input: running is compiling kernels, keep it to tiny tensors

// Tiny inputs for |m|, or false when an input is too big or not a plain tensor.
bool TinyInputs(const tg::onnx::Model& m, std::map<std::string, tg::Tensor>* out) {
  for (const tg::onnx::ValueInfo& v : m.inputs()) {
    if (v.kind != "tensor" || !v.has_shape || v.shape.size() > 6) return false;
    tg::Shape shape;
    int64_t numel = 1;
    for (const tg::onnx::Dim& d : v.shape) {
      int64_t n = d.is_symbolic() ? 2 : d.value;
      if (n > kMaxRunNumel) return false;
      numel *= n;
      shape.push_back(n);
    }
    if (numel > kMaxRunNumel) return false;
    out->insert_or_assign(v.name, tg::Tensor::zeros(shape, v.dtype, "CPU"));
  }
  return true;
}

// Whether every value the lazy graph of |t| computes is small. A valid model may ask for 10^10 elements
// (Expand to a shape it reads from an initializer); that is work, not a bug, so it is not run.
bool SmallGraph(const tg::Tensor& t) {
  constexpr int64_t kMaxGraphNumel = 1 << 16;
  for (const tg::UOpRef& u : t.uop()->toposort()) {
    int64_t numel = 1;
    for (int64_t d : u->shape()) {
      if (d < 0 || d > kMaxGraphNumel) return false;
      numel *= d;  // both factors <= 2^16 and the product is checked each step: no overflow
      if (numel > kMaxGraphNumel) return false;
    }
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  try {
    tg::onnx::Model m = tg::onnx::load_from_bytes(bytes, "", "CPU");
    static const bool run = std::getenv("TG_ONNX_FUZZ_LOAD_ONLY") == nullptr;  // long runs of the loader alone
    std::map<std::string, tg::Tensor> inputs;
    if (!run || !TinyInputs(m, &inputs)) return 0;
    for (auto& [name, t] : m.run(inputs)) {
      if (SmallGraph(t)) (void)tg::onnx::values_as_double(t);
    }
  } catch (const tg::Error&) {
  }
  return 0;
}
