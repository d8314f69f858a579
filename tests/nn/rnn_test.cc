// tg::nn::RNN, GRU and LSTM against PyTorch (data/rnn_golden.json, written by make_rnn_golden.py): outputs,
// final states, and the gradients of a weighted sum of them with respect to the input, the initial states
// and every parameter; then the layers' naming and their errors.
#include <cmath>
#include <fstream>
#include <map>
#include <string>
#include <variant>

#include <nlohmann/json.hpp>

#include "frontend/nn/nn.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/frontend/expect_error.h"

namespace tg::nn {
namespace {

using Json = nlohmann::json;
using ::testing::ElementsAre;
using tg::testing::ExpectErrorContaining;

const Json& Golden() {
  static const Json* golden = [] {
    std::ifstream in("tests/nn/data/rnn_golden.json");
    return new Json(Json::parse(in));
  }();
  return *golden;
}

Tensor FromJson(const Json& t) {
  std::vector<float> v;
  for (double d : t["values"]) v.push_back(static_cast<float>(d));
  return Tensor::from_vector(v, t["shape"].get<Shape>()).realize();
}

void ExpectClose(const Tensor& got, const Json& want, const std::string& what) {
  std::vector<float> g = got.to_vector<float>();
  ASSERT_EQ(g.size(), want.size()) << what;
  for (size_t i = 0; i < g.size(); ++i) {
    double w = want[i];
    EXPECT_NEAR(g[i], w, 2e-5 + 1e-4 * std::abs(w)) << what << " at " << i;
  }
}

RecurrentOptions Options(const Json& o) {
  return {.num_layers = o.value("num_layers", int64_t{1}),
          .bias = o.value("bias", true),
          .batch_first = o.value("batch_first", false),
          .dropout = 0,
          .bidirectional = o.value("bidirectional", false)};
}

using AnyLayer = std::variant<RNN, GRU, LSTM>;

AnyLayer Make(const Json& c) {
  int64_t in = c["input_size"], hidden = c["hidden_size"];
  RecurrentOptions o = Options(c["options"]);
  if (c["layer"] == "RNN") return RNN(in, hidden, o, c["options"].value("nonlinearity", "tanh"));
  if (c["layer"] == "GRU") return GRU(in, hidden, o);
  return LSTM(in, hidden, o);
}

// Replaces every parameter by PyTorch's; they stay trainable, so backward() fills their gradients.
std::map<std::string, Tensor> LoadParams(AnyLayer& layer, const Json& params) {
  std::map<std::string, const Json*> by_name;
  for (const Json& p : params) by_name[p["name"]] = &p;
  std::map<std::string, Tensor> loaded;
  StateVisitor v([&](const std::string& name, Tensor& t) {
    ASSERT_EQ(by_name.count(name), 1u) << "PyTorch has no parameter " << name;
    t = FromJson(*by_name[name]).requires_grad(true);
    loaded.emplace(name, t);
  });
  std::visit([&](auto& l) { l.visit(v); }, layer);
  EXPECT_EQ(loaded.size(), by_name.size()) << "parameter count differs from PyTorch's";
  return loaded;
}

std::vector<Tensor> RunLayer(const AnyLayer& layer, const Tensor& x, const std::vector<Tensor>& states) {
  if (const auto* lstm = std::get_if<LSTM>(&layer)) {
    LSTMOutput r = states.empty() ? (*lstm)(x) : (*lstm)(x, std::make_pair(states[0], states[1]));
    return {r.output, r.h_n, r.c_n};
  }
  std::optional<Tensor> h_0 = states.empty() ? std::nullopt : std::optional(states[0]);
  RecurrentOutput r = std::holds_alternative<RNN>(layer) ? std::get<RNN>(layer)(x, h_0) : std::get<GRU>(layer)(x, h_0);
  return {r.output, r.h_n};
}

class RecurrentGolden : public ::testing::TestWithParam<int> {};

TEST_P(RecurrentGolden, ForwardAndBackwardMatchPyTorch) {
  const Json& c = Golden()["cases"][GetParam()];
  AnyLayer layer = Make(c);
  std::map<std::string, Tensor> params = LoadParams(layer, c["params"]);
  Tensor x = FromJson(c["x"]).requires_grad(true);
  std::vector<Tensor> states;
  for (const Json& s : c["states"]) states.push_back(FromJson(s).requires_grad(true));

  std::vector<Tensor> results = RunLayer(layer, x, states);
  ASSERT_EQ(results.size(), c["results"].size());
  // The loss is built and differentiated before any result is read: realizing a result cuts it from the graph.
  std::optional<Tensor> loss;
  for (size_t i = 0; i < results.size(); ++i) {
    const Json& want = c["results"][i];
    ASSERT_EQ(results[i].shape(), want["shape"].get<Shape>()) << want["name"];
    Json coefficients = {{"shape", want["shape"]}, {"values", want["coefficients"]}};
    Tensor term = (results[i] * FromJson(coefficients)).sum();
    loss = loss ? *loss + term : term;
  }
  loss->backward();
  // One schedule for every value read below, so the backward graph they share is computed once.
  std::vector<Tensor> wanted = results;
  wanted.push_back(x.grad());
  for (const Tensor& s : states) wanted.push_back(s.grad());
  for (auto& [name, p] : params) wanted.push_back(p.grad());
  Tensor::realize_all(wanted);
  for (size_t i = 0; i < results.size(); ++i) ExpectClose(results[i], c["results"][i]["values"], c["results"][i]["name"]);
  ExpectClose(x.grad(), c["x"]["grad"], "d loss / d x");
  for (size_t k = 0; k < states.size(); ++k)
    ExpectClose(states[k].grad(), c["states"][k]["grad"], "d loss / d state " + std::to_string(k));
  for (const Json& p : c["params"])
    ExpectClose(params.at(p["name"]).grad(), p["grad"], "d loss / d " + p["name"].get<std::string>());
}

INSTANTIATE_TEST_SUITE_P(AllCases, RecurrentGolden, ::testing::Range(0, 10),
                         [](const ::testing::TestParamInfo<int>& info) {
                           return Golden()["cases"][info.param]["name"].get<std::string>();
                         });

std::vector<std::string> Names(const std::vector<std::pair<std::string, Tensor>>& named) {
  std::vector<std::string> out;
  for (const auto& [name, t] : named) out.push_back(name);
  return out;
}

TEST(Recurrent, NamesAndShapesFollowPyTorch) {
  LSTM lstm(3, 4, {.num_layers = 2, .bidirectional = true});
  std::vector<std::pair<std::string, Tensor>> named = named_parameters(lstm);
  ASSERT_EQ(named.size(), 16u);
  EXPECT_EQ(named[0].first, "weight_ih_l0");
  EXPECT_EQ(named[0].second.shape(), (Shape{16, 3}));
  EXPECT_EQ(named[4].first, "weight_ih_l0_reverse");
  EXPECT_EQ(named[8].first, "weight_ih_l1");
  EXPECT_EQ(named[8].second.shape(), (Shape{16, 8}));  // the second layer reads both directions
  EXPECT_EQ(named[15].first, "bias_hh_l1_reverse");
  GRU gru(2, 3, {.bias = false});
  EXPECT_THAT(Names(named_parameters(gru)), ElementsAre("weight_ih_l0", "weight_hh_l0"));
  EXPECT_EQ(gru.stack.cells[0].weight_hh.shape(), (Shape{9, 3}));
  RNN rnn(2, 3);
  for (float v : rnn.stack.cells[0].bias_ih->to_vector<float>()) EXPECT_LE(std::abs(v), 1 / std::sqrt(3.0f));

  auto [out, h_n, c_n] = lstm(Tensor::randn({5, 2, 3}));
  EXPECT_EQ(out.shape(), (Shape{5, 2, 8}));
  EXPECT_EQ(h_n.shape(), (Shape{4, 2, 4}));
  EXPECT_EQ(c_n.shape(), (Shape{4, 2, 4}));
}

TEST(Recurrent, DropoutActsBetweenLayersOnlyWhileTraining) {
  GRU gru(3, 4, {.num_layers = 2, .dropout = 0.5});
  Tensor x = Tensor::randn({3, 2, 3}).realize();
  std::vector<float> a = gru(x).output.to_vector<float>(), b = gru(x).output.to_vector<float>();
  EXPECT_EQ(a, b);  // not training: deterministic
  Training on;
  EXPECT_NE(gru(x).output.to_vector<float>(), a);
}

TEST(RecurrentErrors, InputOfTheWrongRank) {
  LSTM lstm(3, 4);
  ExpectErrorContaining([&] { lstm(Tensor::randn({2, 2, 2, 3})); }, "input must be (seq, batch, input_size)");
  ExpectErrorContaining([&] { lstm(Tensor::randn({3})); }, "got (3)");
}

TEST(RecurrentErrors, InputOfTheWrongFeatureSize) {
  GRU gru(3, 4, {.batch_first = true});
  ExpectErrorContaining([&] { gru(Tensor::randn({2, 5, 4})); }, "(batch, seq, input_size) with input_size 3");
}

TEST(RecurrentErrors, InitialStateOfTheWrongShape) {
  RNN rnn(3, 4, {.num_layers = 2});
  Tensor x = Tensor::randn({5, 2, 3});
  ExpectErrorContaining([&] { rnn(x, Tensor::zeros({1, 2, 4})); }, "h_0 must be (2, 2, 4)");
  LSTM lstm(3, 4, {.bidirectional = true});
  ExpectErrorContaining([&] { lstm(x, std::make_pair(Tensor::zeros({2, 2, 4}), Tensor::zeros({2, 3, 4}))); },
              "c_0 must be (2, 2, 4)");
  ExpectErrorContaining([&] { lstm(Tensor::randn({5, 3}), std::make_pair(Tensor::zeros({2, 1, 4}), Tensor::zeros({2, 4}))); },
              "h_0 must be (2, 4)");
}

TEST(RecurrentErrors, BadConstruction) {
  ExpectErrorContaining([] { RNN(3, 4, {}, "gelu"); }, "nonlinearity must be \"tanh\" or \"relu\"");
  ExpectErrorContaining([] { GRU(3, 4, {.num_layers = 0}); }, "num_layers must be at least 1");
  ExpectErrorContaining([] { LSTM(3, 0); }, "input_size and hidden_size must be at least 1");
  ExpectErrorContaining([] { LSTM(3, 4, {.dropout = 2}); }, "dropout must be in [0, 1]");
}

TEST(RecurrentErrors, EmptySequence) {
  ExpectErrorContaining([] { GRU(3, 4)(Tensor::zeros({0, 2, 3})); }, "at least one step");
}

}  // namespace
}  // namespace tg::nn
