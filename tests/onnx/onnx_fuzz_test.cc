// Damaged models end in tg::Error, never in a crash, a hang or another exception type: every truncation
// of a small model, and deterministic single-bit flips and byte overwrites of it, are loaded and (when
// they still load) run. Deterministic (fixed LCG seed) and fast: no new kernels beyond the first few.
#include <cstdint>
#include <string>

#include "frontend/onnx/onnx.h"
#include "frontend/tg.h"
#include "gtest/gtest.h"
#include "tests/onnx/model_builder.h"

namespace tg {
namespace {

using namespace tg::onnx_test;

std::string SmallModel() {
  ::onnx::GraphProto g;
  g.set_name("fuzz");
  *g.add_input() = Value("x", ::onnx::TensorProto::FLOAT, {-1, 3}, {"batch"});
  *g.add_output() = Value("y", ::onnx::TensorProto::FLOAT, {-1, 2}, {"batch"});
  *g.add_initializer() = FloatTensor("W", {3, 2}, {1, -1, 2, 0, 0, 1});
  *g.add_initializer() = FloatTensor("b", {2}, {0.5f, -4}, /*raw=*/false);
  *g.add_initializer() = Int64Tensor("shape", {2}, {-1, 2});
  *g.add_node() = Node("MatMul", {"x", "W"}, {"xw"}, "matmul");
  *g.add_node() = Node("Add", {"xw", "b"}, {"z"}, "add");
  *g.add_node() = Node("Reshape", {"z", "shape"}, {"r"}, "reshape");
  ::onnx::NodeProto softmax = Node("Softmax", {"r"}, {"y"}, "softmax");
  IntAttr(softmax, "axis", -1);
  *g.add_node() = softmax;
  return Model(g).SerializeAsString();
}

// Loads |bytes| and runs it on an input shaped as declared; true if both worked. Anything thrown that
// is not a tg::Error fails the test (gtest reports the escaping exception).
bool LoadAndRun(const std::string& bytes, int* runs) {
  try {
    onnx::Model m = onnx::load_from_bytes(bytes);
    if (*runs >= 120) return true;  // loading is what damage mostly hits; cap the (kernel-compiling) runs
    std::map<std::string, Tensor> inputs;
    for (const onnx::ValueInfo& v : m.inputs()) {
      Shape shape;
      int64_t numel = 1;
      for (const onnx::Dim& d : v.shape) numel *= (shape.emplace_back(d.is_symbolic() ? 2 : d.value), shape.back());
      if (v.kind != "tensor" || numel > 4096 || shape.size() > 6) return true;
      inputs.emplace(v.name, Tensor::ones(shape, v.dtype));
    }
    ++*runs;
    for (auto& [name, t] : m.run(inputs)) t.realize();
    return true;
  } catch (const Error&) {
    return false;
  }
}

TEST(OnnxFuzz, IntactModelRuns) {
  int runs = 0;
  EXPECT_TRUE(LoadAndRun(SmallModel(), &runs));
}

TEST(OnnxFuzz, EveryTruncationIsAnErrorOrStillValid) {
  std::string model = SmallModel();
  int runs = 0, errors = 0;
  for (size_t n = 0; n < model.size(); ++n) errors += !LoadAndRun(model.substr(0, n), &runs);
  EXPECT_GT(errors, static_cast<int>(model.size()) / 2);  // most prefixes are not a model
}

TEST(OnnxFuzz, BitFlipsAndByteOverwrites) {
  std::string model = SmallModel();
  uint64_t state = 0x9E3779B97F4A7C15ULL;
  auto next = [&state] {  // 64-bit LCG (Knuth MMIX): the same mutations on every run
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return state >> 33;
  };
  int runs = 0;
  for (int i = 0; i < 600; ++i) {
    std::string damaged = model;
    size_t at = next() % damaged.size();
    if (i % 2 == 0) damaged[at] = static_cast<char>(damaged[at] ^ (1 << (next() % 8)));
    else damaged[at] = static_cast<char>(next() & 0xff);
    LoadAndRun(damaged, &runs);
  }
}

}  // namespace
}  // namespace tg
