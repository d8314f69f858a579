#include "frontend/dist/distributed_optimizer.h"

#include <cstring>
#include <memory>

#include "frontend/dist/backend_choice.h"
#include "frontend/dist/collectives.h"
#include "frontend/dist/nccl_collectives.h"
#include "frontend/dist/world.h"
#include "ir/error.h"
#include "ir/uop.h"

namespace tg::dist {

DistributedOptimizer::DistributedOptimizer(nn::Optimizer& inner) : inner_(inner) {
  if (!is_initialized()) throw Error("DistributedOptimizer: call tg::dist::init() first");
  trainable_ = inner.params();
  buffers_ = inner.buffers();
  for (const Tensor& t : buffers_)
    if (t.dtype().is_float()) synced_buffers_.push_back(t);
  for (const Tensor& t : trainable_) flat_size_ += t.numel();
}

Tensor DistributedOptimizer::flat_gradients() const {
  std::vector<Tensor> pieces;
  for (const Tensor& p : trainable_) {
    if (!p.has_grad())
      throw Error("DistributedOptimizer: a parameter of shape " + ShapeString(p.shape()) +
                  " has no gradient; call backward() on a loss that uses every parameter first");
    pieces.push_back(p.grad().cast(dtypes::float32).flatten());
  }
  if (pieces.empty()) return Tensor::zeros({0}, dtypes::float32);
  return pieces[0].cat(std::vector<Tensor>(pieces.begin() + 1, pieces.end()), 0);
}

Tensor DistributedOptimizer::average(const Tensor& flat) const {
  if (flat.dtype() != dtypes::float32 || flat.ndim() != 1)
    throw Error("DistributedOptimizer::average: expects flat_gradients()'s 1-D float32 tensor, got " +
                flat.dtype().name() + " of shape " + ShapeString(flat.shape()));
  if (runtime::Device* device = internal::NcclDeviceFor({flat}, /*reduce=*/true, "DistributedOptimizer::average"))
    return internal::NcclReduced(*device, flat, ReduceOp::kAverage);  // on the device, no host round trip
  auto values = std::make_shared<std::vector<float>>(flat.to_vector<float>());
  allreduce_host(values->data(), static_cast<int64_t>(values->size()), dtypes::float32, ReduceOp::kAverage);
  return Tensor::from_vector(*values, flat.shape(), flat.device());
}

std::vector<Tensor> DistributedOptimizer::schedule_step(const Tensor& averaged) {
  if (averaged.ndim() != 1 || averaged.shape()[0] != flat_size_)
    throw Error("DistributedOptimizer::schedule_step: expects a (" + std::to_string(flat_size_) +
                ",) tensor from average(flat_gradients()), got shape " + ShapeString(averaged.shape()));
  int64_t offset = 0;
  auto slice_for = [&](const Tensor& t) {
    Tensor piece = averaged.shrink({{offset, offset + t.numel()}}).reshape(t.shape()).cast(t.dtype());
    offset += t.numel();
    return piece;
  };
  for (Tensor p : trainable_) p.set_grad(slice_for(p));
  return inner_.schedule_step();
}

void DistributedOptimizer::step() {
  Tensor averaged = average(flat_gradients());
  Tensor::realize_all(schedule_step(averaged));
  sync_buffers();
}

void DistributedOptimizer::sync_buffers() { allreduce(synced_buffers_, ReduceOp::kAverage); }

std::vector<Tensor> DistributedOptimizer::replicated() const {
  std::vector<Tensor> out = trainable_;
  out.insert(out.end(), buffers_.begin(), buffers_.end());
  return out;
}

}  // namespace tg::dist
