// tg::nn layers: tinygrad's initialisation, forward values against closed forms, the reflection names,
// Sequential, and the training scope that gates Dropout and BatchNorm.
#include <cmath>

#include "frontend/nn/nn.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tg::nn {
namespace {

using ::testing::ElementsAre;
using ::testing::Pointwise;
using ::testing::FloatNear;

std::vector<std::string> Names(const std::vector<std::pair<std::string, Tensor>>& named) {
  std::vector<std::string> out;
  for (auto& [n, t] : named) out.push_back(n);
  return out;
}

void ExpectWithin(const Tensor& t, double bound) {
  for (float v : t.to_vector<float>()) EXPECT_LE(std::abs(v), bound);
}

TEST(Layers, LinearInitAndForward) {
  Linear lin(4, 3);
  EXPECT_EQ(lin.weight.shape(), (Shape{3, 4}));
  EXPECT_EQ(lin.bias->shape(), (Shape{3}));
  EXPECT_TRUE(std::as_const(lin.weight).requires_grad());
  ExpectWithin(lin.weight, 0.5);  // 1/sqrt(4)
  ExpectWithin(*lin.bias, 0.5);
  Tensor x = Tensor::from_vector<float>({1, 2, 3, 4}, Shape{1, 4});
  std::vector<float> w = lin.weight.to_vector<float>(), b = lin.bias->to_vector<float>(), want(3);
  for (int o = 0; o < 3; ++o) want[o] = b[o] + w[o * 4] + 2 * w[o * 4 + 1] + 3 * w[o * 4 + 2] + 4 * w[o * 4 + 3];
  EXPECT_THAT(lin(x).to_vector<float>(), Pointwise(FloatNear(1e-5), want));
  EXPECT_FALSE(Linear(4, 3, false).bias.has_value());
}

TEST(Layers, ConvShapesAndInit) {
  Conv2d conv(3, 8, 3, 1, 1);
  EXPECT_EQ(conv.weight.shape(), (Shape{8, 3, 3, 3}));
  ExpectWithin(conv.weight, 1 / std::sqrt(27.0));
  EXPECT_EQ(conv(Tensor::randn({2, 3, 5, 5})).shape(), (Shape{2, 8, 5, 5}));
  Conv2d c1 = Conv1d(2, 4, 3);
  EXPECT_EQ(c1.weight.shape(), (Shape{4, 2, 3}));
  EXPECT_EQ(c1(Tensor::randn({1, 2, 10})).shape(), (Shape{1, 4, 8}));
  ConvTranspose2d up(4, 2, 2, 2);
  EXPECT_EQ(up.weight.shape(), (Shape{4, 2, 2, 2}));
  EXPECT_EQ(up(Tensor::randn({1, 4, 3, 3})).shape(), (Shape{1, 2, 6, 6}));
  EXPECT_THROW(Conv2d(3, 8, 3, 1, 0, 1, /*groups=*/2), Error);
}

TEST(Layers, NormsNormalise) {
  Tensor x = Tensor::randn({4, 6, 3, 3}) * 3 + 2;
  for (Tensor y : {GroupNorm(3, 6)(x), InstanceNorm(6)(x), LayerNorm(Shape{3, 3})(x)}) {
    EXPECT_NEAR(y.mean().item<float>(), 0, 1e-4);
    EXPECT_NEAR(y.std().item<float>(), 1, 2e-2);
  }
  RMSNorm rms(4);
  Tensor r = rms(Tensor::from_vector<float>({1, 2, 3, 4}, Shape{1, 4}));
  float scale = 1 / std::sqrt(7.5f + 1e-6f);
  EXPECT_THAT(r.to_vector<float>(), Pointwise(FloatNear(1e-5), std::vector<float>{scale, 2 * scale, 3 * scale, 4 * scale}));
  EXPECT_THROW(LayerNorm(5)(x), Error);
  EXPECT_THROW(GroupNorm(4, 6), Error);
}

TEST(Layers, BatchNormTrainingUpdatesRunningStats) {
  BatchNorm bn(2);
  Tensor x = Tensor::from_vector<float>({1, 3, 10, 30, 5, 7, 50, 70}, Shape{2, 2, 2});  // channel 0: 1 3 5 7
  {
    Training on;
    Tensor y = bn(x);
    EXPECT_NEAR(y.mean().item<float>(), 0, 1e-5);
  }
  // mean 4 and 40; unbiased var 20/3 and 2000/3.
  EXPECT_THAT(bn.running_mean->to_vector<float>(), Pointwise(FloatNear(1e-4), std::vector<float>{0.4f, 4.0f}));
  EXPECT_THAT(bn.running_var->to_vector<float>(),
              Pointwise(FloatNear(1e-3), std::vector<float>{0.9f + 0.1f * 20 / 3, 0.9f + 0.1f * 2000 / 3}));
  EXPECT_EQ(bn.num_batches_tracked.item<int64_t>(), 1);
  // Outside training: the running statistics, and they stay put.
  Tensor y = bn(x);
  float want = (1 - 0.4f) / std::sqrt(0.9f + 0.1f * 20 / 3 + 1e-5f);
  EXPECT_NEAR(y.to_vector<float>()[0], want, 1e-4);
  EXPECT_NEAR(bn.running_mean->to_vector<float>()[0], 0.4f, 1e-6);
  EXPECT_THAT(Names(named_tensors(bn)),
              ElementsAre("weight", "bias", "running_mean", "running_var", "num_batches_tracked"));
  EXPECT_EQ(parameters(bn).size(), 2u);
}

TEST(Layers, EmbeddingLooksUpRows) {
  Embedding emb(5, 3);
  std::vector<float> w = emb.weight.to_vector<float>();
  Tensor out = emb(Tensor::from_vector<int32_t>({4, 0, 4}, Shape{1, 3}));
  EXPECT_EQ(out.shape(), (Shape{1, 3, 3}));
  std::vector<float> got = out.to_vector<float>();
  for (int j = 0; j < 3; ++j) {
    EXPECT_FLOAT_EQ(got[j], w[12 + j]);
    EXPECT_FLOAT_EQ(got[3 + j], w[j]);
  }
  EXPECT_THROW(emb(Tensor::ones({2})), Error);
}

TEST(Layers, DropoutOnlyWhileTraining) {
  Dropout drop(0.5);
  Tensor x = Tensor::ones({1000});
  EXPECT_FLOAT_EQ(drop(x).sum().item<float>(), 1000);
  {
    Training on;
    EXPECT_TRUE(Tensor::training());
    {
      Training off(false);
      EXPECT_FALSE(Tensor::training());
    }
    EXPECT_TRUE(Tensor::training());
    std::vector<float> v = drop(x).to_vector<float>();
    int zeros = static_cast<int>(std::count(v.begin(), v.end(), 0.0f));
    EXPECT_GT(zeros, 400);
    EXPECT_LT(zeros, 600);
  }
  EXPECT_FALSE(Tensor::training());
  EXPECT_THROW(Dropout(1.5), Error);
}

TEST(Layers, LstmCellStep) {
  LSTMCell cell(3, 4);
  Tensor x = Tensor::randn({2, 3});
  auto [h, c] = cell(x);
  EXPECT_EQ(h.shape(), (Shape{2, 4}));
  auto [h2, c2] = cell(x, std::make_pair(h, c));
  EXPECT_EQ(c2.shape(), (Shape{2, 4}));
  for (float v : h2.to_vector<float>()) EXPECT_LT(std::abs(v), 1.0f);
  EXPECT_THAT(Names(named_parameters(cell)), ElementsAre("weight_ih", "weight_hh", "bias_ih", "bias_hh"));
}

// A user model: one visit() that lists the members, as module.h documents.
struct Net {
  Conv2d conv{1, 2, 3};
  std::vector<Linear> layers{Linear(8, 4), Linear(4, 2)};
  Tensor scale = Tensor::ones({2});
  void visit(StateVisitor& v) { v("conv", conv), v("layers", layers), v("scale", scale); }
};

TEST(Layers, ReflectionNamesLikeTinygrad) {
  Net net;
  EXPECT_THAT(Names(named_tensors(net)), ElementsAre("conv.weight", "conv.bias", "layers.0.weight", "layers.0.bias",
                                                     "layers.1.weight", "layers.1.bias", "scale"));
  EXPECT_EQ(parameters(net).size(), 6u);  // scale does not require grad
  EXPECT_EQ(get_parameters(net).size(), 7u);
}

TEST(Layers, SequentialCallsInOrderAndNamesByPosition) {
  Sequential seq{Linear(3, 4), &Tensor::relu, [](const Tensor& x) { return x * 2; }, Linear(4, 1)};
  EXPECT_EQ(seq.size(), 4u);
  EXPECT_THAT(Names(named_parameters(seq)), ElementsAre("0.weight", "0.bias", "3.weight", "3.bias"));
  Tensor x = Tensor::randn({5, 3});
  Linear& first = seq.get<Linear>(0);
  Linear& last = seq.get<Linear>(3);
  std::vector<float> want = last(first(x).relu() * 2).to_vector<float>();
  EXPECT_THAT(seq(x).to_vector<float>(), Pointwise(FloatNear(1e-5), want));
  EXPECT_THROW(seq.get<Conv2d>(0), Error);
  EXPECT_THROW(seq.get<Linear>(9), Error);
  Sequential nested{seq, Linear(1, 1)};
  EXPECT_THAT(Names(named_parameters(nested)),
              ElementsAre("0.0.weight", "0.0.bias", "0.3.weight", "0.3.bias", "1.weight", "1.bias"));
}

TEST(Layers, ParametersAreDistinctLeaves) {
  // Two identical BatchNorms must not share a graph node: their gradients would be merged.
  BatchNorm a(3), b(3);
  EXPECT_NE(a.weight->uop().get(), b.weight->uop().get());
  Tensor loss = (a(Tensor::randn({2, 3})) * 2).sum() + b(Tensor::randn({2, 3})).sum();
  {
    Training on;
    loss.backward();
  }
  EXPECT_TRUE(a.bias->has_grad());
  EXPECT_THAT(a.bias->grad().to_vector<float>(), Pointwise(FloatNear(1e-5), std::vector<float>{4, 4, 4}));
  EXPECT_THAT(b.bias->grad().to_vector<float>(), Pointwise(FloatNear(1e-5), std::vector<float>{2, 2, 2}));
}

}  // namespace
}  // namespace tg::nn
