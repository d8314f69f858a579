// tg::nn learning-rate schedules: closed forms of PyTorch's schedulers (torch/optim/lr_scheduler.py).
#include "frontend/nn/lr_scheduler.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>

namespace tg::nn {

LRScheduler::LRScheduler(Optimizer& optimizer, std::function<double(int64_t)> schedule)
    : optimizer_(&optimizer), schedule_(std::move(schedule)) {
  optimizer_->set_lr(get_lr());
}

void LRScheduler::step() {
  ++step_count_;
  optimizer_->set_lr(get_lr());
}

LRScheduler StepLR(Optimizer& optimizer, int64_t step_size, double gamma) {
  if (step_size <= 0) throw Error("StepLR: step_size must be positive; got " + std::to_string(step_size));
  double base = optimizer.get_lr();
  return LRScheduler(optimizer, [=](int64_t n) { return base * std::pow(gamma, static_cast<double>(n / step_size)); });
}

LRScheduler MultiStepLR(Optimizer& optimizer, std::vector<int64_t> milestones, double gamma) {
  double base = optimizer.get_lr();
  return LRScheduler(optimizer, [=](int64_t n) {
    auto passed = std::count_if(milestones.begin(), milestones.end(), [n](int64_t m) { return m <= n; });
    return base * std::pow(gamma, static_cast<double>(passed));
  });
}

LRScheduler CosineAnnealingLR(Optimizer& optimizer, int64_t t_max, double eta_min) {
  if (t_max <= 0) throw Error("CosineAnnealingLR: t_max must be positive; got " + std::to_string(t_max));
  double base = optimizer.get_lr();
  return LRScheduler(optimizer, [=](int64_t n) {
    return eta_min + (base - eta_min) * (1 + std::cos(std::numbers::pi * static_cast<double>(n) / t_max)) / 2;
  });
}

LRScheduler OneCycleLR(Optimizer& optimizer, double max_lr, int64_t total_steps, double pct_start,
                       std::string_view anneal_strategy, double div_factor, double final_div_factor) {
  if (total_steps <= 0) throw Error("OneCycleLR: total_steps must be positive; got " + std::to_string(total_steps));
  if (!(pct_start >= 0 && pct_start <= 1)) throw Error("OneCycleLR: pct_start must be in [0, 1]");
  if (anneal_strategy != "cos" && anneal_strategy != "linear")
    throw Error("OneCycleLR: anneal_strategy must be \"cos\" or \"linear\"; got \"" + std::string(anneal_strategy) + "\"");
  bool cosine = anneal_strategy == "cos";
  double initial = max_lr / div_factor, min_lr = initial / final_div_factor;
  // PyTorch's phase ends: the warm-up ends at step pct_start * total - 1, the annealing at total - 1.
  double warm_end = pct_start * static_cast<double>(total_steps) - 1, last = static_cast<double>(total_steps) - 1;
  auto anneal = [cosine](double start, double end, double pct) {
    return cosine ? end + (start - end) / 2 * (std::cos(std::numbers::pi * pct) + 1) : (end - start) * pct + start;
  };
  return LRScheduler(optimizer, [=](int64_t step) {
    if (step > total_steps)  // PyTorch allows exactly total_steps steps
      throw Error("OneCycleLR: stepped " + std::to_string(step) + " times, past total_steps (" +
                  std::to_string(total_steps) + ")");
    double n = static_cast<double>(step);
    if (n <= warm_end) return anneal(initial, max_lr, n / warm_end);
    return anneal(max_lr, min_lr, (n - warm_end) / (last - warm_end));
  });
}

}  // namespace tg::nn
