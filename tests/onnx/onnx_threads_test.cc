// One tg::onnx::Model run from eight threads at once, each with inputs of its own: the use the
// concurrency contract (docs/concurrency.md) allows. Every output must be bit-exact with the same input
// run on one thread first. Shared underneath: the parsed graph, its initializers (one of them float16,
// reinterpreted lazily on every run), the kernel caches and the device. Meaningful under --config=tsan.
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "frontend/onnx/onnx.h"
#include "frontend/tg.h"
#include "gtest/gtest.h"
#include "tests/onnx/model_builder.h"

namespace tg {
namespace {

using namespace tg::onnx_test;

constexpr int kThreads = 8;
constexpr int kInputs = 6;

int RunsPerThread() {
  if (const char* env = std::getenv("TG_STRESS_ITERS")) return std::max(1, std::atoi(env) / 4);
#if defined(__SANITIZE_THREAD__)
  return 10;
#else
  return 60;
#endif
}

// y = ReduceSum(Reshape(Relu(x @ W + float(h)), [-1, 2]), axis 1): x (batch, 3); h a float16 initializer.
::onnx::ModelProto SharedModel() {
  ::onnx::GraphProto g;
  *g.add_input() = Value("x", ::onnx::TensorProto::FLOAT, {-1, 3}, {"batch"});
  *g.add_output() = Value("y", ::onnx::TensorProto::FLOAT, {-1}, {"rows"});
  *g.add_initializer() = FloatTensor("W", {3, 4}, {1, -1, 2, 0, 0, 1, 0.5f, -2, 3, 0.25f, -1, 1});
  ::onnx::TensorProto h;
  h.set_name("h");
  h.set_data_type(::onnx::TensorProto::FLOAT16);
  h.add_dims(4);
  const uint16_t half_bits[4] = {0x3c00, 0xb800, 0x4000, 0x0000};  // 1, -0.5, 2, 0
  h.set_raw_data(std::string(reinterpret_cast<const char*>(half_bits), sizeof(half_bits)));
  *g.add_initializer() = h;
  *g.add_initializer() = Int64Tensor("shape", {2}, {-1, 2});
  *g.add_node() = Node("MatMul", {"x", "W"}, {"xw"});
  ::onnx::NodeProto cast = Node("Cast", {"h"}, {"hf"});
  IntAttr(cast, "to", ::onnx::TensorProto::FLOAT);
  *g.add_node() = cast;
  *g.add_node() = Node("Add", {"xw", "hf"}, {"z"});
  *g.add_node() = Node("Relu", {"z"}, {"r"});
  *g.add_node() = Node("Reshape", {"r", "shape"}, {"pairs"});
  ::onnx::NodeProto sum = Node("ReduceSum", {"pairs"}, {"y"});
  IntAttr(sum, "keepdims", 0);
  IntsAttr(sum, "axes", {1});
  *g.add_node() = sum;
  return Model(g, 11);
}

Tensor Input(int k) {
  int64_t batch = 2 + k % 3;
  std::vector<float> v(static_cast<size_t>(batch * 3));
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>((static_cast<int>(i) * 7 + k * 3) % 11) - 5.0f;
  return Tensor::from_vector<float>(v, Shape{batch, 3});
}

std::vector<uint32_t> Bits(const Tensor& t) {
  std::vector<float> v = t.to_vector<float>();
  std::vector<uint32_t> bits(v.size());
  std::memcpy(bits.data(), v.data(), v.size() * sizeof(float));
  return bits;
}

TEST(OnnxThreads, OneModelRunFromEightThreadsAgreesBitExactWithOneThread) {
  const onnx::Model model = onnx::load_from_bytes(SharedModel().SerializeAsString());
  std::vector<std::vector<uint32_t>> want(kInputs);
  for (int k = 0; k < kInputs; ++k) want[k] = Bits(model.run({{"x", Input(k)}}).at("y"));
  ASSERT_EQ(want[0].size(), 4u);  // batch 2 x 4 outputs, in pairs

  std::atomic<int> mismatches{0}, errors{0};
  std::vector<std::string> first_error(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      try {
        for (int i = 0; i < RunsPerThread(); ++i) {
          int k = (t + i) % kInputs;
          if (Bits(model.run({{"x", Input(k)}}).at("y")) != want[k]) ++mismatches;
        }
      } catch (const Error& e) {
        first_error[t] = e.what();
        ++errors;
      }
    });
  for (std::thread& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(first_error[t], "") << "thread " << t;
  EXPECT_EQ(errors.load(), 0);
  EXPECT_EQ(mismatches.load(), 0);
}

}  // namespace
}  // namespace tg
