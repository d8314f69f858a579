// tg::nn learning-rate schedules: a function of the step count written into an optimizer's lr buffer, with
// PyTorch's StepLR, MultiStepLR, CosineAnnealingLR and OneCycleLR formulas. Host-side; no kernels run.
#ifndef TG_FRONTEND_NN_LR_SCHEDULER_H_
#define TG_FRONTEND_NN_LR_SCHEDULER_H_

#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

#include "frontend/nn/optim.h"

namespace tg::nn {

// Sets the optimizer's lr to schedule(0) now and to schedule(n) on the n-th step(), as PyTorch's
// schedulers do (call it after each optimizer step or each epoch). The optimizer must outlive it.
//   tg::nn::AdamW opt(tg::nn::parameters(model), 3e-4);
//   tg::nn::LRScheduler sched = tg::nn::CosineAnnealingLR(opt, /*t_max=*/1000);
//   for (...) { ...; opt.step(); sched.step(); }
class LRScheduler {
 public:
  LRScheduler(Optimizer& optimizer, std::function<double(int64_t step)> schedule);  // PyTorch's LambdaLR
  void step();
  double get_lr() const { return schedule_(step_count_); }
  int64_t step_count() const { return step_count_; }

 private:
  Optimizer* optimizer_;
  std::function<double(int64_t)> schedule_;
  int64_t step_count_ = 0;
};

// The optimizer's current lr times gamma^(step / step_size).
LRScheduler StepLR(Optimizer& optimizer, int64_t step_size, double gamma = 0.1);
// The optimizer's current lr times gamma^(number of milestones <= step).
LRScheduler MultiStepLR(Optimizer& optimizer, std::vector<int64_t> milestones, double gamma = 0.1);
// eta_min + (lr - eta_min) (1 + cos(pi step / t_max)) / 2, lr being the optimizer's current one.
LRScheduler CosineAnnealingLR(Optimizer& optimizer, int64_t t_max, double eta_min = 0.0);
// Warm up from max_lr / div_factor to max_lr over pct_start of total_steps, then anneal to
// max_lr / div_factor / final_div_factor; |anneal_strategy| "cos" or "linear" (PyTorch's two-phase form).
LRScheduler OneCycleLR(Optimizer& optimizer, double max_lr, int64_t total_steps, double pct_start = 0.3,
                       std::string_view anneal_strategy = "cos", double div_factor = 25.0,
                       double final_div_factor = 1e4);

}  // namespace tg::nn

#endif  // TG_FRONTEND_NN_LR_SCHEDULER_H_
