// tg::Jit: replays agree with plain calls, training state advances in place, and misuse is an error.
#include "frontend/nn/nn.h"
#include "frontend/tg.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tg {
namespace {

using ::testing::HasSubstr;

TEST(Jit, ReplaysWithNewInputs) {
  Jit f([](const std::vector<Tensor>& in) { return std::vector<Tensor>{(in[0] * in[1] + 1).sum({1})}; });
  for (int call = 0; call < 5; ++call) {
    float k = static_cast<float>(call + 1);
    Tensor a = Tensor::full({2, 3}, k), b = Tensor::from_vector<float>({1, 2, 3, 4, 5, 6}, Shape{2, 3});
    std::vector<float> got = f({a, b})[0].to_vector<float>();
    EXPECT_EQ(got, (std::vector<float>{6 * k + 3, 15 * k + 3})) << "call " << call;
  }
  EXPECT_TRUE(f.captured());
  EXPECT_GE(f.captured_kernels(), 1u);
}

TEST(Jit, RejectsChangedInputsRepeatsAndReads) {
  Jit f([](const std::vector<Tensor>& in) { return std::vector<Tensor>{in[0] + 1}; });
  f({Tensor::ones({4})});
  f({Tensor::ones({4})});
  try {
    f({Tensor::ones({5})});
    ADD_FAILURE() << "expected a shape error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("(5)"));
    EXPECT_THAT(e.what(), HasSubstr("(4)"));
  }
  EXPECT_THROW(f({Tensor::ones({4}, dtypes::int32)}), Error);
  Tensor x = Tensor::ones({4});
  Jit two([](const std::vector<Tensor>& in) { return std::vector<Tensor>{in[0] + in[1]}; });
  EXPECT_THROW(two({x, x}), Error);
  Jit reads([](const std::vector<Tensor>& in) {
    float v = in[0].sum().item<float>();
    return std::vector<Tensor>{in[0] * v};
  });
  reads({Tensor::ones({2})});
  EXPECT_THROW(reads({Tensor::ones({2})}), Error);  // the capture call reads data
}

// A training step gives the same losses with and without the JIT.
std::vector<float> TrainLosses(bool jit) {
  Tensor::manual_seed(7);
  nn::Linear layer(4, 3);
  nn::SGD opt(nn::parameters(layer), 0.1f);
  Tensor x = Tensor::randn({16, 4}), y = Tensor::from_vector<int32_t>(
      {0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0});
  auto step = [&](const std::vector<Tensor>& in) {
    Training on;
    opt.zero_grad();
    Tensor loss = layer(in[0]).sparse_categorical_crossentropy(in[1]);
    loss.backward();
    opt.step();
    return std::vector<Tensor>{loss};
  };
  Jit jitted(step);
  std::vector<float> losses;
  for (int i = 0; i < 6; ++i)
    losses.push_back((jit ? jitted({x, y}) : step({x, y}))[0].item<float>());
  return losses;
}

TEST(Jit, TrainingStepMatchesPlainExecution) {
  std::vector<float> plain = TrainLosses(false), jitted = TrainLosses(true);
  ASSERT_EQ(plain.size(), jitted.size());
  for (size_t i = 0; i < plain.size(); ++i) EXPECT_NEAR(plain[i], jitted[i], 1e-6f) << "step " << i;
  EXPECT_LT(plain.back(), plain.front());  // it does learn
}

}  // namespace
}  // namespace tg
