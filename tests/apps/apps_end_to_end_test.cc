// The apps as a user runs them: quickstart, onnx_run on a model built here, gpt2 on the tiny checkpoint of
// tests/apps/data, and gpt trained briefly on a fixed text. Each asserts what the program prints.
#include <fstream>
#include <string>
#include <utility>

#include "gtest/gtest.h"
#include "onnx/onnx_pb.h"
#include "tests/apps/app_runner.h"
#include "tests/onnx/model_builder.h"

namespace tg::apps_test {
namespace {

TEST(Quickstart, PrintsTheDevicesAndTheRightValues) {
  AppRun run = RunApp("quickstart", {});
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_NE(run.output.find("default device: "), std::string::npos) << run.output;
  // [[1,2,3],[4,5,6]] @ [[1,0],[-1,0.5],[2,1]], then (2x + 1).relu() summed over rows, then the column max.
  EXPECT_NE(run.output.find("5.000000, 4.000000, 11.000000, 8.500000"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("15.000000, 33.000000"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("4.000000, 5.000000, 6.000000"), std::string::npos) << run.output;
}

// Y = Relu(X @ W + b) with W and b initializers, and X = [[1, 2, 3], [4, 5, 6]] as a TensorProto file as
// ONNX test data is; returns {model, input} paths.
std::pair<std::string, std::string> WriteAffineRelu() {
  using namespace tg::onnx_test;
  ::onnx::GraphProto g;
  *g.add_input() = Value("X", ::onnx::TensorProto::FLOAT, {2, 3});
  *g.add_output() = Value("Y", ::onnx::TensorProto::FLOAT, {2, 2});
  *g.add_initializer() = FloatTensor("W", {3, 2}, {1, 0, -1, 0.5f, 2, 1});
  *g.add_initializer() = FloatTensor("b", {2}, {-6, -2});
  *g.add_node() = Node("MatMul", {"X", "W"}, {"XW"});
  *g.add_node() = Node("Add", {"XW", "b"}, {"Z"});
  *g.add_node() = Node("Relu", {"Z"}, {"Y"});
  std::string model_path = TempDir() + "/affine_relu.onnx", input_path = TempDir() + "/x.pb";
  std::ofstream m(model_path, std::ios::binary);
  EXPECT_TRUE(Model(g).SerializeToOstream(&m));
  std::ofstream x(input_path, std::ios::binary);
  EXPECT_TRUE(FloatTensor("X", {2, 3}, {1, 2, 3, 4, 5, 6}).SerializeToOstream(&x));
  return {model_path, input_path};
}

// X @ W = [[5, 4], [11, 8.5]]; + b = [[-1, 2], [5, 6.5]]; relu = [[0, 2], [5, 6.5]].
constexpr char kAffineReluY[] = "min 0 max 6.5 mean 3.375  [0, 2, 5, 6.5]";

TEST(OnnxRun, RunsAModelOnAnInputFile) {
  auto [model_path, input_path] = WriteAffineRelu();
  AppRun run = RunApp("onnx_run", {model_path, "--input", "X=" + input_path, "--device", "CPU"});
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_NE(run.output.find("output Y"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("shape (2, 2)"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find(kAffineReluY), std::string::npos) << run.output;
}

// --save-jit writes the model's Jit; --load-jit runs it with no model, under the model's value names.
TEST(OnnxRun, SavedJitRunsWithoutTheModel) {
  auto [model_path, input_path] = WriteAffineRelu();
  std::string jit_path = TempDir() + "/affine_relu_onnx_run.tgjit";
  AppRun save = RunApp("onnx_run", {model_path, "--input", "X=" + input_path, "--device", "CPU", "--save-jit", jit_path});
  ASSERT_EQ(save.exit_code, 0) << save.output;
  EXPECT_NE(save.output.find(kAffineReluY), std::string::npos) << save.output;
  EXPECT_NE(save.output.find("saved to " + jit_path), std::string::npos) << save.output;
  AppRun load = RunApp("onnx_run", {"--load-jit", jit_path, "--input", "X=" + input_path});
  ASSERT_EQ(load.exit_code, 0) << load.output;
  EXPECT_NE(load.output.find("loaded without compiling"), std::string::npos) << load.output;
  EXPECT_NE(load.output.find("output Y"), std::string::npos) << load.output;
  EXPECT_NE(load.output.find(kAffineReluY), std::string::npos) << load.output;
  AppRun both = RunApp("onnx_run", {model_path, "--load-jit", jit_path});
  EXPECT_EQ(both.exit_code, 1) << both.output;
  EXPECT_NE(both.output.find("--load-jit runs the saved Jit alone"), std::string::npos) << both.output;
}

// `tg compile` makes the file onnx_run --load-jit runs.
TEST(TgCompile, MakesASavedJit) {
  auto [model_path, input_path] = WriteAffineRelu();
  std::string jit_path = TempDir() + "/affine_relu_tg.tgjit";
  AppRun compile = RunApp("../tools/tg", {"compile", model_path, "-o", jit_path, "--device", "CPU"});
  ASSERT_EQ(compile.exit_code, 0) << compile.output;
  EXPECT_NE(compile.output.find("saved to " + jit_path), std::string::npos) << compile.output;
  AppRun load = RunApp("onnx_run", {"--load-jit", jit_path, "--input", "X=" + input_path});
  ASSERT_EQ(load.exit_code, 0) << load.output;
  EXPECT_NE(load.output.find(kAffineReluY), std::string::npos) << load.output;
  AppRun no_output = RunApp("../tools/tg", {"compile", model_path});
  EXPECT_EQ(no_output.exit_code, 2) << no_output.output;
  EXPECT_NE(no_output.output.find("give a model and -o FILE"), std::string::npos) << no_output.output;
}

// Greedy decoding of the tiny random GPT-2 (make_gpt2_golden.py): after "The" (token 263) PyTorch's logits
// put token 169, the byte 0xA9, first, 0.2 above the next one.
TEST(Gpt2App, GreedyTokenMatchesPyTorch) {
  AppRun run = RunApp("gpt2", {"--model=tests/apps/data/gpt2_tiny.safetensors", "--vocab=tests/apps/data/vocab.json",
                               "--merges=tests/apps/data/merges.txt", "--heads=2", "--prompt=The", "--tokens=1",
                               "--device=CPU"});
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_EQ(run.output.rfind("The\xa9\n", 0), 0u) << run.output;
  AppRun longer = RunApp("gpt2", {"--model=tests/apps/data/gpt2_tiny.safetensors", "--vocab=tests/apps/data/vocab.json",
                                  "--merges=tests/apps/data/merges.txt", "--heads=2", "--prompt=The", "--tokens=6",
                                  "--device=CPU"});
  ASSERT_EQ(longer.exit_code, 0) << longer.output;
  EXPECT_EQ(longer.output.rfind("The\xa9", 0), 0u) << longer.output;
  // The position is a tg::Variable: one capture serves every token.
  EXPECT_NE(longer.output.find("decode: "), std::string::npos) << longer.output;
  EXPECT_NE(longer.output.find("kernels compiled after the capture: 0\n"), std::string::npos) << longer.output;
}

// A byte-level GPT (the default 2 layers of width 64) on a repetitive text: 60 steps take the loss from
// ln(256) = 5.5 to below 1.0 (the mean of the last tenth of the steps, the "avg" of the last progress line;
// 0.44 when this was written).
TEST(GptApp, LossFallsBelowOne) {
  std::string text_path = TempDir() + "/fox.txt";
  {
    std::ofstream t(text_path);
    for (int i = 0; i < 400; ++i) t << "the quick brown fox jumps over the lazy dog. ";
  }
  AppRun run = RunApp("gpt", {"--text=" + text_path, "--steps=60", "--context=32", "--batch=8", "--sample=16",
                              "--prompt=the ", "--device=CPU"});
  ASSERT_EQ(run.exit_code, 0) << run.output;
  std::optional<double> first = FirstNumber(run.output, R"(train \[[#.]+\] \d+/60  loss ([0-9.]+))");
  std::optional<double> last = LastNumber(run.output, R"(train \[#+\] 60/60  loss [0-9.]+  avg ([0-9.]+))");
  ASSERT_TRUE(first.has_value() && last.has_value()) << run.output;
  EXPECT_GT(*first, 2.5) << run.output;
  EXPECT_LT(*last, 1.0) << run.output;
  EXPECT_NE(run.output.find("---- sample ----"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("sampled 16 bytes, "), std::string::npos) << run.output;
}

}  // namespace
}  // namespace tg::apps_test
