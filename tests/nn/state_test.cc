// tg::nn::get_state_dict / load_state_dict: names, strictness, and that a failed load changes nothing.
#include "frontend/nn/nn.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tg::nn {
namespace {

using ::testing::HasSubstr;

struct Tiny {
  Linear fc{3, 2};
  BatchNorm bn{2};
  void visit(StateVisitor& v) { v("fc", fc), v("bn", bn); }
};

TEST(State, GetStateDictHasEveryTensor) {
  Tiny m;
  StateDict sd = get_state_dict(m);
  std::vector<std::string> keys;
  for (auto& [k, t] : sd) keys.push_back(k);
  EXPECT_THAT(keys, ::testing::ElementsAre("bn.bias", "bn.num_batches_tracked", "bn.running_mean", "bn.running_var",
                                           "bn.weight", "fc.bias", "fc.weight"));
}

TEST(State, LoadCopiesValuesIntoTheModel) {
  Tiny a, b;
  load_state_dict(b, get_state_dict(a));
  EXPECT_EQ(b.fc.weight.to_vector<float>(), a.fc.weight.to_vector<float>());
  EXPECT_EQ(b.fc.bias->to_vector<float>(), a.fc.bias->to_vector<float>());
  // b's tensors stay b's: changing a afterwards does not reach b.
  a.fc.weight.assign(a.fc.weight * 0);
  EXPECT_NE(b.fc.weight.to_vector<float>(), a.fc.weight.to_vector<float>());
  EXPECT_TRUE(std::as_const(b.fc.weight).requires_grad());
}

TEST(State, StrictListsEveryProblemAndLoadsNothing) {
  Tiny m;
  std::vector<float> before = m.fc.weight.to_vector<float>();
  StateDict sd = get_state_dict(m);
  sd.erase("bn.weight");
  sd.erase("bn.bias");
  sd.insert_or_assign("fc.weight", Tensor::zeros({4, 4}));
  sd.insert_or_assign("fc.bias", Tensor::zeros({2}));
  sd.insert_or_assign("extra", Tensor::zeros({1}));
  try {
    load_state_dict(m, sd);
    FAIL() << "expected tg::Error";
  } catch (const Error& e) {
    std::string msg = e.what();
    EXPECT_THAT(msg, HasSubstr("missing key \"bn.weight\""));
    EXPECT_THAT(msg, HasSubstr("missing key \"bn.bias\""));
    EXPECT_THAT(msg, HasSubstr("unexpected key \"extra\""));
    EXPECT_THAT(msg, HasSubstr("shape mismatch for \"fc.weight\""));
    EXPECT_THAT(msg, HasSubstr("4 problem(s)"));
  }
  EXPECT_EQ(m.fc.weight.to_vector<float>(), before);
}

TEST(State, NonStrictSkipsUnknownKeysButNotBadShapes) {
  Tiny m;
  StateDict sd = {{"fc.bias", Tensor::from_vector<float>({7, 8})}, {"other", Tensor::zeros({3})}};
  std::vector<std::string> loaded = load_state_dict(m, sd, /*strict=*/false);
  EXPECT_THAT(loaded, ::testing::ElementsAre("fc.bias"));
  EXPECT_THAT(m.fc.bias->to_vector<float>(), ::testing::ElementsAre(7, 8));
  sd.insert_or_assign("fc.weight", Tensor::zeros({2, 2}));
  EXPECT_THROW(load_state_dict(m, sd, false), Error);
}

TEST(State, LoadCastsAndReshapesScalars) {
  BatchNorm bn(2);
  StateDict sd = get_state_dict(bn);
  sd.insert_or_assign("num_batches_tracked", Tensor::from_vector<int64_t>({5}));  // (1,) into ()
  sd.insert_or_assign("weight", Tensor::from_vector<double>({2, 3}));           // float64 into float32
  load_state_dict(bn, sd);
  EXPECT_EQ(bn.num_batches_tracked.item<int64_t>(), 5);
  EXPECT_EQ(bn.weight->dtype(), dtypes::float32);
  EXPECT_THAT(bn.weight->to_vector<float>(), ::testing::ElementsAre(2, 3));
}

TEST(State, AssignChecksShapeDtypeDevice) {
  Tensor t = Tensor::zeros({2, 2});
  EXPECT_THROW(t.assign(Tensor::zeros({4})), Error);
  EXPECT_THROW(t.assign(Tensor::zeros({2, 2}, dtypes::int32)), Error);
  Tensor copy = t;
  t.assign(Tensor::ones({2, 2}));
  EXPECT_THAT(copy.to_vector<float>(), ::testing::ElementsAre(1, 1, 1, 1));  // handles share the new value
}

}  // namespace
}  // namespace tg::nn
