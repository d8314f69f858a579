// The ONNX recurrent ops beyond what the ONNX node tests cover: directions, sequence_lens, clip, activations
// with alpha and beta, layout 1 and GRU's linear_before_reset, each on a one-unit cell whose arithmetic is done
// by hand; then the errors for what is not supported or not well formed.
#include <functional>
#include <string>

#include "frontend/onnx/onnx.h"
#include "frontend/tg.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/onnx/model_builder.h"
#include "tests/frontend/expect_error.h"

namespace tg {
namespace {

using ::testing::ElementsAre;
using tg::testing::ExpectErrorContaining;
using namespace tg::onnx_test;

void StringAttr(::onnx::NodeProto& n, const std::string& name, const std::string& v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::STRING);
  a->set_s(v);
}
void StringsAttr(::onnx::NodeProto& n, const std::string& name, const std::vector<std::string>& v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::STRINGS);
  for (const auto& s : v) a->add_strings(s);
}
void FloatAttr(::onnx::NodeProto& n, const std::string& name, float v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::FLOAT);
  a->set_f(v);
}
void FloatsAttr(::onnx::NodeProto& n, const std::string& name, const std::vector<float>& v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::FLOATS);
  for (float f : v) a->add_floats(f);
}

// A value of |elem_type| and no shape: any shape is accepted.
::onnx::ValueInfoProto Unshaped(const std::string& name, int elem_type) {
  ::onnx::ValueInfoProto v;
  v.set_name(name);
  v.mutable_type()->mutable_tensor_type()->set_elem_type(elem_type);
  return v;
}

// One node of |op| over graph inputs X, W, R (and the optional ones named in |inputs|), outputs Y and Y_h.
// |edit| sets its attributes.
onnx::Model OneNode(const std::string& op, const std::vector<std::string>& inputs,
                    const std::function<void(::onnx::NodeProto&)>& edit) {
  ::onnx::GraphProto g;
  for (const std::string& in : inputs)
    if (!in.empty())
      *g.add_input() = Unshaped(in, in == "sequence_lens" ? ::onnx::TensorProto::INT32 : ::onnx::TensorProto::FLOAT);
  *g.add_output() = Unshaped("Y", ::onnx::TensorProto::FLOAT);
  *g.add_output() = Unshaped("Y_h", ::onnx::TensorProto::FLOAT);
  ::onnx::NodeProto n = Node(op, inputs, {"Y", "Y_h"});
  edit(n);
  *g.add_node() = n;
  return onnx::load_from_bytes(Model(g, 14).SerializeAsString());
}

Tensor F(const std::vector<float>& v, const Shape& shape) { return Tensor::from_vector(v, shape); }

// A one-unit RNN with W = R = 1 and the identity (Affine 1, 0): h_t = x_t + h_{t-1}, a running sum.
std::map<std::string, Tensor> Sum(const std::function<void(::onnx::NodeProto&)>& edit, int64_t dirs,
                                  bool with_lens = false) {
  std::vector<std::string> inputs{"X", "W", "R"};
  if (with_lens) inputs.insert(inputs.end(), {"", "sequence_lens"});
  onnx::Model m = OneNode("RNN", inputs, [&](::onnx::NodeProto& n) {
    IntAttr(n, "hidden_size", 1);
    StringsAttr(n, "activations", {"Affine"});
    edit(n);
  });
  std::map<std::string, Tensor> feed{{"X", F({1, 10, 2, 20, 3, 30}, {3, 2, 1})},  // (seq 3, batch 2, input 1)
                                     {"W", F(std::vector<float>(dirs, 1), {dirs, 1, 1})},
                                     {"R", F(std::vector<float>(dirs, 1), {dirs, 1, 1})}};
  if (with_lens) feed.emplace("sequence_lens", Tensor::from_vector<int32_t>({3, 2}));
  return m.run(feed);
}

TEST(OnnxRnn, ForwardIsARunningSum) {
  auto out = Sum([](auto&) {}, 1);
  EXPECT_THAT(out.at("Y").to_vector<float>(), ElementsAre(1, 10, 3, 30, 6, 60));  // (seq, dirs, batch, hidden)
  EXPECT_THAT(out.at("Y_h").to_vector<float>(), ElementsAre(6, 60));
}

TEST(OnnxRnn, ReverseAndBidirectional) {
  auto rev = Sum([](auto& n) { StringAttr(n, "direction", "reverse"); }, 1);
  EXPECT_THAT(rev.at("Y").to_vector<float>(), ElementsAre(6, 60, 5, 50, 3, 30));
  auto both = Sum([](auto& n) { StringAttr(n, "direction", "bidirectional"); }, 2);
  EXPECT_EQ(both.at("Y").shape(), (Shape{3, 2, 2, 1}));
  EXPECT_THAT(both.at("Y").to_vector<float>(), ElementsAre(1, 10, 6, 60, 3, 30, 5, 50, 6, 60, 3, 30));
  EXPECT_THAT(both.at("Y_h").to_vector<float>(), ElementsAre(6, 60, 6, 60));
}

// The second batch entry is 2 steps long: its step 3 outputs zeros, its state stops at step 2, and its
// reverse pass starts at step 2.
TEST(OnnxRnn, SequenceLensEndEachEntryOnItsOwnStep) {
  auto out = Sum([](auto& n) { StringAttr(n, "direction", "bidirectional"); }, 2, true);
  EXPECT_THAT(out.at("Y").to_vector<float>(), ElementsAre(1, 10, 6, 30, 3, 30, 5, 20, 6, 0, 3, 0));
  EXPECT_THAT(out.at("Y_h").to_vector<float>(), ElementsAre(6, 30, 6, 30));
}

TEST(OnnxRnn, ClipAndActivationParameters) {
  auto clipped = Sum([](auto& n) { FloatAttr(n, "clip", 2.5f); }, 1);
  EXPECT_THAT(clipped.at("Y").to_vector<float>(), ElementsAre(1, 2.5, 2.5, 2.5, 2.5, 2.5));
  // Affine(0.5, 1): h_t = 0.5 (x_t + h_{t-1}) + 1.
  auto affine = Sum([](auto& n) { FloatsAttr(n, "activation_alpha", {0.5f}), FloatsAttr(n, "activation_beta", {1}); }, 1);
  EXPECT_THAT(affine.at("Y_h").to_vector<float>(), ElementsAre(3.875, 23));
}

TEST(OnnxRnn, LayoutOneIsBatchMajor) {
  onnx::Model m = OneNode("RNN", {"X", "W", "R"}, [](auto& n) {
    IntAttr(n, "hidden_size", 1), IntAttr(n, "layout", 1), StringsAttr(n, "activations", {"Affine"});
  });
  auto out = m.run({{"X", F({1, 2, 3, 10, 20, 30}, {2, 3, 1})}, {"W", F({1}, {1, 1, 1})}, {"R", F({1}, {1, 1, 1})}});
  EXPECT_EQ(out.at("Y").shape(), (Shape{2, 3, 1, 1}));
  EXPECT_THAT(out.at("Y").to_vector<float>(), ElementsAre(1, 3, 6, 10, 30, 60));
  EXPECT_EQ(out.at("Y_h").shape(), (Shape{2, 1, 1}));
}

// z = r = Affine(0, 0.5) = 0.5 always and g the identity, W_h = R_h = 1, Rb_h = 1: the two GRU variants differ in
// whether Rb_h is gated by r. h~ = x + 0.5 h + 1 (reset before) or x + 0.5 h + 0.5 (after); h' = (h~ + h) / 2.
TEST(OnnxRnn, GruLinearBeforeReset) {
  auto final_h = [](int64_t linear_before_reset) {
    onnx::Model m = OneNode("GRU", {"X", "W", "R", "B"}, [&](auto& n) {
      IntAttr(n, "hidden_size", 1), IntAttr(n, "linear_before_reset", linear_before_reset);
      StringsAttr(n, "activations", {"Affine", "Affine"});
      FloatsAttr(n, "activation_alpha", {0, 1}), FloatsAttr(n, "activation_beta", {0.5f, 0});
    });
    return m.run({{"X", F({2, 2}, {2, 1, 1})}, {"W", F({0, 0, 1}, {1, 3, 1})}, {"R", F({0, 0, 1}, {1, 3, 1})},
                  {"B", F({0, 0, 0, 0, 0, 1}, {1, 6})}}).at("Y_h").to_vector<float>();
  };
  EXPECT_THAT(final_h(0), ElementsAre(2.625f));
  EXPECT_THAT(final_h(1), ElementsAre(2.1875f));
}

TEST(OnnxRnnErrors, UnsupportedActivationIsNamed) {
  ExpectErrorContaining([] { Sum([](auto& n) { n.mutable_attribute(1)->set_strings(0, "Gelu"); }, 1); },
              "activation \"Gelu\" is not supported");
}

TEST(OnnxRnnErrors, InputForgetIsRefused) {
  onnx::Model m = OneNode("LSTM", {"X", "W", "R"}, [](auto& n) { IntAttr(n, "hidden_size", 1), IntAttr(n, "input_forget", 1); });
  ExpectErrorContaining([&] { m.run({{"X", F({1}, {1, 1, 1})}, {"W", F({1, 1, 1, 1}, {1, 4, 1})}, {"R", F({1, 1, 1, 1}, {1, 4, 1})}}); },
              "input_forget=1 is not supported");
}

TEST(OnnxRnnErrors, UnsupportedDirectionIsNamed) {
  ExpectErrorContaining([] { Sum([](auto& n) { StringAttr(n, "direction", "sideways"); }, 1); },
              "direction \"sideways\" is not supported");
}

TEST(OnnxRnnErrors, ActivationCountMustFitTheCell) {
  onnx::Model m = OneNode("GRU", {"X", "W", "R"}, [](auto& n) { IntAttr(n, "hidden_size", 1), StringsAttr(n, "activations", {"Tanh"}); });
  ExpectErrorContaining([&] { m.run({{"X", F({1}, {1, 1, 1})}, {"W", F({1, 1, 1}, {1, 3, 1})}, {"R", F({1, 1, 1}, {1, 3, 1})}}); },
              "GRU needs 2 per direction");
}

TEST(OnnxRnnErrors, InitialStateOfTheWrongShape) {
  onnx::Model m = OneNode("GRU", {"X", "W", "R", "", "", "initial_h"}, [](auto& n) { IntAttr(n, "hidden_size", 1); });
  ExpectErrorContaining([&] {
    m.run({{"X", F({1, 2}, {1, 2, 1})}, {"W", F({1, 1, 1}, {1, 3, 1})}, {"R", F({1, 1, 1}, {1, 3, 1})},
           {"initial_h", F({0}, {1, 1, 1})}});
  }, "initial_h must be (1, 2, 1)");
}

TEST(OnnxRnnErrors, WeightsOfTheWrongShape) {
  onnx::Model m = OneNode("LSTM", {"X", "W", "R"}, [](auto& n) { IntAttr(n, "hidden_size", 2); });
  ExpectErrorContaining([&] { m.run({{"X", F({1}, {1, 1, 1})}, {"W", F({1, 1, 1, 1}, {1, 4, 1})}, {"R", F({1}, {1, 1, 1})}}); },
              "W must be (1, 8, 1)");
  ExpectErrorContaining([&] { m.run({{"X", F({1}, {1, 1})}, {"W", F({1}, {1, 1})}, {"R", F({1}, {1, 1})}}); }, "X must be 3-D");
}

}  // namespace
}  // namespace tg
