// Model::run keeps the graph of a run and reuses it, with the new inputs swapped in, for the next run
// of the same signature (frontend/onnx/trace_cache.h). Checked here: reused graphs compute the new
// inputs' values, and every run whose graph depends on more than its inputs' signature (data read on
// the host, random draws, inputs that are not stored buffers, initializers overridden) imports anew.
#include <vector>

#include "frontend/onnx/onnx.h"
#include "frontend/tg.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/onnx/model_builder.h"

namespace tg {
namespace {

using ::testing::ElementsAre;
using namespace tg::onnx_test;

// y = relu(x @ W + b) * 2, with x ("batch", 3).
onnx::Model LinearModel() {
  ::onnx::GraphProto g;
  *g.add_input() = Value("x", ::onnx::TensorProto::FLOAT, {-1, 3}, {"batch"});
  *g.add_output() = Value("y", ::onnx::TensorProto::FLOAT, {-1, 2}, {"batch"});
  *g.add_initializer() = FloatTensor("W", {3, 2}, {1, -1, 2, 0, 0, 1});
  *g.add_initializer() = FloatTensor("b", {2}, {0.5f, -4});
  *g.add_initializer() = FloatTensor("two", {}, {2});
  *g.add_node() = Node("MatMul", {"x", "W"}, {"xw"});
  *g.add_node() = Node("Add", {"xw", "b"}, {"z"});
  *g.add_node() = Node("Relu", {"z"}, {"r"});
  *g.add_node() = Node("Mul", {"r", "two"}, {"y"});
  return onnx::load_from_bytes(Model(g).SerializeAsString());
}

std::vector<float> RunY(const onnx::Model& m, const Tensor& x) { return m.run({{"x", x}}).at("y").to_vector<float>(); }

TEST(OnnxTraceCache, ARunOfTheSameSignatureReusesTheGraphWithItsOwnInputs) {
  onnx::Model m = LinearModel();
  Tensor a = Tensor::from_vector<float>({1, 2, 3}, Shape{1, 3});
  Tensor b = Tensor::from_vector<float>({0, 0, 10}, Shape{1, 3});
  EXPECT_THAT(RunY(m, a), ElementsAre(11, 0));  // (5 + .5) * 2, relu(2 - 4)
  EXPECT_THAT(RunY(m, b), ElementsAre(1, 12));
  EXPECT_THAT(RunY(m, a), ElementsAre(11, 0));
  EXPECT_EQ(m.run_counts().imported, 1u);
  EXPECT_EQ(m.run_counts().reused, 2u);
  // Another batch is another signature: imported, then reused for the next input of that batch.
  EXPECT_THAT(RunY(m, Tensor::from_vector<float>({1, 2, 3, 0, 0, 10}, Shape{2, 3})), ElementsAre(11, 0, 1, 12));
  EXPECT_THAT(RunY(m, Tensor::from_vector<float>({0, 0, 10, 1, 2, 3}, Shape{2, 3})), ElementsAre(1, 12, 11, 0));
  EXPECT_EQ(m.run_counts().imported, 2u);
  EXPECT_EQ(m.run_counts().reused, 3u);
}

// A returned output is realized in place; the kept graph is not, so the next run still computes.
TEST(OnnxTraceCache, RealizingAnOutputLeavesTheKeptGraphWhole) {
  onnx::Model m = LinearModel();
  Tensor x = Tensor::from_vector<float>({1, 2, 3}, Shape{1, 3});
  Tensor first = m.run({{"x", x}}).at("y");
  first.realize();
  x.assign(Tensor::from_vector<float>({0, 0, 10}, Shape{1, 3})).realize();
  EXPECT_THAT(RunY(m, x), ElementsAre(1, 12));
  EXPECT_THAT(first.to_vector<float>(), ElementsAre(11, 0));
}

TEST(OnnxTraceCache, InputsThatAreNotStoredBuffersImport) {
  onnx::Model m = LinearModel();
  Tensor x = Tensor::from_vector<float>({1, 2, 3}, Shape{1, 3});
  Tensor padded = Tensor::from_vector<float>({9, 1, 2, 3});
  EXPECT_THAT(RunY(m, x * 2), ElementsAre(21, 0));
  EXPECT_THAT(RunY(m, x * 3), ElementsAre(31, 4));
  EXPECT_THAT(RunY(m, padded.shrink({{1, 4}}).reshape({1, 3})), ElementsAre(11, 0));
  EXPECT_EQ(m.run_counts().imported, 3u);
  EXPECT_EQ(m.run_counts().reused, 0u);
}

// Reshape reads its shape on the host: a shape given as an input is data, so each run imports.
TEST(OnnxTraceCache, AnImportThatReadsInputDataIsNotReused) {
  ::onnx::GraphProto g;
  *g.add_input() = Value("x", ::onnx::TensorProto::FLOAT, {6});
  *g.add_input() = Value("shape", ::onnx::TensorProto::INT64, {2});
  *g.add_output() = Value("y", ::onnx::TensorProto::FLOAT, {-1, -1}, {"rows", "cols"});
  *g.add_node() = Node("Reshape", {"x", "shape"}, {"y"});
  onnx::Model m = onnx::load_from_bytes(Model(g).SerializeAsString());
  Tensor x = Tensor::from_vector<float>({1, 2, 3, 4, 5, 6});
  for (auto [rows, cols] : {std::pair{2, 3}, std::pair{3, 2}, std::pair{6, 1}}) {
    Tensor y = m.run({{"x", x}, {"shape", Tensor::from_vector<int64_t>({rows, cols})}}).at("y");
    EXPECT_EQ(y.shape(), (Shape{rows, cols}));
  }
  EXPECT_EQ(m.run_counts().imported, 3u);
  EXPECT_EQ(m.run_counts().reused, 0u);
}

// A Dropout in training mode draws a new mask every run; a kept graph would repeat the first one.
TEST(OnnxTraceCache, AnImportThatDrawsRandomNumbersIsNotReused) {
  ::onnx::GraphProto g;
  *g.add_input() = Value("x", ::onnx::TensorProto::FLOAT, {256});
  *g.add_output() = Value("y", ::onnx::TensorProto::FLOAT, {256});
  *g.add_initializer() = FloatTensor("ratio", {}, {0.5f});
  ::onnx::TensorProto training;
  training.set_name("training");
  training.set_data_type(::onnx::TensorProto::BOOL);
  training.add_int32_data(1);
  *g.add_initializer() = training;
  *g.add_node() = Node("Dropout", {"x", "ratio", "training"}, {"y"});
  onnx::Model m = onnx::load_from_bytes(Model(g).SerializeAsString());
  Tensor x = Tensor::from_vector(std::vector<float>(256, 1.0f));
  std::vector<float> first = RunY(m, x), second = RunY(m, x);
  EXPECT_NE(first, second);
  EXPECT_EQ(m.run_counts().imported, 2u);
  EXPECT_EQ(m.run_counts().reused, 0u);
}

TEST(OnnxTraceCache, OverridingAnInitializerImports) {
  onnx::Model m = LinearModel();
  Tensor x = Tensor::from_vector<float>({1, 2, 3}, Shape{1, 3});
  x.realize();
  EXPECT_THAT(RunY(m, x), ElementsAre(11, 0));
  Tensor three = Tensor::full({}, 3.0f);
  EXPECT_THAT(m.run({{"x", x}, {"two", three}}).at("y").to_vector<float>(), ElementsAre(16.5f, 0));
  EXPECT_THAT(RunY(m, x), ElementsAre(11, 0));
  EXPECT_EQ(m.run_counts().imported, 2u);
  EXPECT_EQ(m.run_counts().reused, 1u);
}

}  // namespace
}  // namespace tg
