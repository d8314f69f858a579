// tg::nn optimizers and schedules against PyTorch's trajectories (data/optim_golden.json, written by
// make_optim_golden.py), plus the step's contract: training mode, gradients, one schedule.
#include <cmath>
#include <fstream>

#include <nlohmann/json.hpp>

#include "frontend/nn/nn.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tg::nn {
namespace {

using Json = nlohmann::json;

const Json& Golden() {
  static const Json* golden = [] {
    std::ifstream in("tests/nn/data/optim_golden.json");
    return new Json(Json::parse(in));
  }();
  return *golden;
}

Tensor FromJson(const Json& values, const Shape& shape) {
  std::vector<float> v;
  for (double d : values) v.push_back(static_cast<float>(d));
  return Tensor::from_vector(v, shape);
}

std::unique_ptr<Optimizer> Make(const Json& c, const std::vector<Tensor>& params) {
  std::string kind = c["optimizer"];
  double lr = c["lr"];
  double wd = c.value("weight_decay", 0.0), momentum = c.value("momentum", 0.0);
  if (kind == "SGD") return std::make_unique<SGD>(params, lr, momentum, wd, c.value("nesterov", false));
  if (kind == "Adam")
    return std::make_unique<Adam>(params, lr, c.value("b1", 0.9), c.value("b2", 0.999), c.value("eps", 1e-8));
  if (kind == "AdamW") return std::make_unique<AdamW>(params, lr, 0.9, 0.999, 1e-8, wd);
  if (kind == "LAMB") return std::make_unique<LAMB>(params, lr, 0.9, 0.999, 1e-6, wd);
  if (kind == "LARS")
    return std::make_unique<LARS>(params, lr, momentum, wd, false, c.value("classic", true), c.value("tcoef", 0.001));
  throw std::runtime_error("unknown optimizer " + kind);
}

void ExpectClose(const Tensor& got, const Json& want, const std::string& what) {
  std::vector<float> g = got.to_vector<float>();
  ASSERT_EQ(g.size(), want.size()) << what;
  for (size_t i = 0; i < g.size(); ++i) {
    double w = want[i];
    EXPECT_NEAR(g[i], w, 1e-5 * std::max(1.0, std::abs(w))) << what << " at " << i;
  }
}

class OptimizerGolden : public ::testing::TestWithParam<int> {};

TEST_P(OptimizerGolden, MatchesPyTorchTrajectory) {
  const Json& problem = Golden()["problem"];
  const Json& c = Golden()["optimizers"][GetParam()];
  SCOPED_TRACE(c["name"].get<std::string>());
  Tensor x = FromJson(problem["x"], {8, 4}), y = FromJson(problem["y"], {8, 3});
  Tensor w = FromJson(problem["w"], {4, 3}).requires_grad(true), b = FromJson(problem["b"], {3}).requires_grad(true);
  std::unique_ptr<Optimizer> opt = Make(c["config"], {w, b});
  Training on;
  int step = 0;
  for (const Json& want : c["steps"]) {
    opt->zero_grad();
    (x.matmul(w) + b - y).square().mean().backward();
    opt->step();
    std::string at = c["name"].get<std::string>() + " step " + std::to_string(++step);
    ExpectClose(w, want["w"], at + " w");
    ExpectClose(b, want["b"], at + " b");
  }
}

INSTANTIATE_TEST_SUITE_P(AllConfigs, OptimizerGolden, ::testing::Range(0, 9),
                         [](const ::testing::TestParamInfo<int>& info) {
                           return Golden()["optimizers"][info.param]["name"].get<std::string>();
                         });

TEST(Schedules, MatchPyTorch) {
  Tensor p = Tensor::zeros({1}).contiguous().realize().requires_grad(true);
  for (const Json& s : Golden()["schedules"]) {
    SCOPED_TRACE(s["name"].get<std::string>());
    SGD opt({p}, Golden()["schedule_lr"].get<double>());
    const Json& c = s["config"];
    std::string kind = c["schedule"];
    LRScheduler sched =
        kind == "StepLR"        ? StepLR(opt, c["step_size"], c["gamma"])
        : kind == "MultiStepLR" ? MultiStepLR(opt, c["milestones"].get<std::vector<int64_t>>(), c["gamma"])
        : kind == "CosineAnnealingLR"
            ? CosineAnnealingLR(opt, c["t_max"], c["eta_min"])
            : OneCycleLR(opt, c["max_lr"], c["total_steps"], c["pct_start"], c["anneal"].get<std::string>(),
                         c.value("div_factor", 25.0), c.value("final_div_factor", 1e4));
    for (size_t i = 0; i < s["lrs"].size(); ++i) {
      if (i > 0) sched.step();
      double want = s["lrs"][i];
      EXPECT_NEAR(opt.get_lr(), want, 1e-9 + 1e-7 * want) << "step " << i;
      EXPECT_NEAR(opt.lr.item<float>(), want, 1e-6 * std::max(1.0, want)) << "step " << i;  // the device copy too
    }
  }
}

TEST(Optimizers, StepNeedsTrainingAndGradients) {
  Tensor w = Tensor::ones({2}).contiguous().realize().requires_grad(true);
  SGD opt({w}, 0.1);
  try {
    opt.step();
    FAIL() << "step outside training mode";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("tg::Training"));
  }
  Training on;
  EXPECT_THROW(opt.step(), Error);  // no gradient yet
  (w * w).sum().backward();
  opt.step();
  EXPECT_THAT(w.to_vector<float>(), ::testing::ElementsAre(0.8f, 0.8f));
  EXPECT_TRUE(w.has_grad());
  opt.zero_grad();
  EXPECT_FALSE(w.has_grad());
  EXPECT_THROW(SGD({Tensor::ones({2})}, 0.1), Error);  // nothing trainable
  EXPECT_THROW(SGD({w}, -1.0), Error);
  EXPECT_THROW(Adam({w}, 0.1, 1.5), Error);
}

TEST(Optimizers, TrainsAModelAndRealizesBuffers) {
  Tensor::manual_seed(1);
  Sequential net{Linear(2, 8), BatchNorm(8), &Tensor::relu, Linear(8, 1)};
  Adam opt(get_parameters(net), 0.05);  // BatchNorm's running stats ride along as buffers
  Tensor x = Tensor::randn({16, 2});
  Tensor y = (x[{Slice{}, Index(0)}] - x[{Slice{}, Index(1)}]).unsqueeze(1);
  Training on;
  float first = 0, last = 0;
  for (int i = 0; i < 30; ++i) {
    opt.zero_grad();
    Tensor loss = (net(x) - y).square().mean();
    loss.backward();
    opt.step();
    (i == 0 ? first : last) = loss.item<float>();
  }
  EXPECT_LT(last, first * 0.2f);
  // The running mean was realized by the step: a buffer, not a 30-deep chain of lazy updates.
  Tensor rm = *net.get<BatchNorm>(1).running_mean;
  EXPECT_LE(rm.uop()->toposort().size(), 2u);
}

}  // namespace
}  // namespace tg::nn
