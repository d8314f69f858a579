// train_xor: the smallest training app a user writes against tinygrad-cc from their own workspace.
// A two-layer MLP learns XOR with Adam under tg::Jit; exits 0 once every prediction is right.
#include <cstdio>
#include <vector>

#include "frontend/nn/nn.h"
#include "frontend/tg.h"

struct Mlp {
  tg::nn::Linear l1{2, 16}, l2{16, 2};
  tg::Tensor operator()(const tg::Tensor& x) const { return l2(l1(x).tanh()); }
  void visit(tg::nn::StateVisitor& v) { v("l1", l1), v("l2", l2); }
};

int main() {
  try {
    tg::Tensor::manual_seed(0);
    Mlp model;
    tg::nn::Adam opt(tg::nn::parameters(model), 0.05);
    tg::Tensor x = tg::Tensor::from_vector<float>({0, 0, 0, 1, 1, 0, 1, 1}, tg::Shape{4, 2});
    tg::Tensor y = tg::Tensor::from_vector<int32_t>({0, 1, 1, 0});
    tg::Jit step([&](const std::vector<tg::Tensor>& in) {
      tg::Training on;
      opt.zero_grad();
      tg::Tensor loss = model(in[0]).sparse_categorical_crossentropy(in[1]);
      loss.backward();
      std::vector<tg::Tensor> out = {loss};
      for (const tg::Tensor& t : opt.schedule_step()) out.push_back(t);
      return out;
    });
    float loss = 0;
    for (int i = 0; i < 60; ++i) loss = step({x, y})[0].item<float>();
    std::vector<int32_t> pred = model(x).argmax(-1).cast(tg::dtypes::int32).to_vector<int32_t>();
    bool ok = pred == std::vector<int32_t>{0, 1, 1, 0};
    std::printf("train_xor on %s: loss %.4f, predictions %d %d %d %d: %s\n", x.device().c_str(), loss, pred[0],
                pred[1], pred[2], pred[3], ok ? "ok" : "WRONG");
    return ok ? 0 : 1;
  } catch (const tg::Error& e) {
    std::fprintf(stderr, "train_xor: %s\n", e.what());
    return 1;
  }
}
