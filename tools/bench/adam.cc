#include "tools/bench/adam.h"

#include "tools/bench/models.h"

namespace tg::bench {

Adam::Adam(const std::vector<Tensor>& params, double lr, double b1, double b2, double eps)
    : lr_(lr),
      b1_(b1),
      b2_(b2),
      eps_(eps),
      b1_t_(Tensor::ones({1}, dtypes::float32, params.front().device()).contiguous().realize()),
      b2_t_(Tensor::ones({1}, dtypes::float32, params.front().device()).contiguous().realize()) {
  const std::string& dev = params.front().device();
  for (const Tensor& p : params) {
    m_.push_back(Tensor::zeros(p.shape(), p.dtype(), dev).contiguous().realize());
    v_.push_back(Tensor::zeros(p.shape(), p.dtype(), dev).contiguous().realize());
  }
}

std::vector<Tensor> Adam::Step(const std::vector<Tensor>& params, const std::vector<Tensor>& grads, Tensor& loss) {
  size_t n = params.size();
  Tensor b1_t = b1_t_ * b1_, b2_t = b2_t_ * b2_;
  std::vector<Tensor> outs;  // params, m, v, b1_t, b2_t, loss
  std::vector<Tensor> m, v;
  for (size_t i = 0; i < n; ++i) {
    m.push_back(b1_ * m_[i] + (1 - b1_) * grads[i]);
    v.push_back(b2_ * v_[i] + (1 - b2_) * grads[i] * grads[i]);
    Tensor m_hat = m[i] / (1 - b1_t), v_hat = v[i] / (1 - b2_t);
    outs.push_back(params[i] - lr_ * m_hat / (v_hat.sqrt() + eps_));
  }
  outs.insert(outs.end(), m.begin(), m.end());
  outs.insert(outs.end(), v.begin(), v.end());
  outs.push_back(b1_t), outs.push_back(b2_t), outs.push_back(loss);
  std::vector<Tensor> done = RealizeTogether(outs);
  for (size_t i = 0; i < n; ++i) m_[i] = done[n + i], v_[i] = done[2 * n + i];
  b1_t_ = done[3 * n], b2_t_ = done[3 * n + 1], loss = done[3 * n + 2];
  return std::vector<Tensor>(done.begin(), done.begin() + n);
}

}  // namespace tg::bench
