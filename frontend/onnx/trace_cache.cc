#include "frontend/onnx/trace_cache.h"

#include "absl/container/flat_hash_set.h"
#include "ir/substitute.h"

namespace tg::onnx {

bool TraceableInputs(const std::vector<Tensor>& inputs) {
  absl::flat_hash_set<const UOp*> seen;
  for (const Tensor& t : inputs)
    if (!t.is_stored() || !seen.insert(t.uop().get()).second) return false;
  return true;
}

std::optional<std::vector<Tensor>> TraceCache::Reuse(const std::vector<Tensor>& inputs) {
  std::shared_ptr<const Trace> trace;
  {
    std::lock_guard<std::mutex> lock(mu_);
    trace = last_;
  }
  if (trace == nullptr || trace->inputs.size() != inputs.size() || trace->training != Tensor::training() ||
      !TraceableInputs(inputs))
    return std::nullopt;
  NodeMap swap;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const UOpRef& old = trace->inputs[i];
    const Tensor& now = inputs[i];
    if (old->shape() != now.shape() || old->dtype() != now.dtype() || trace->input_devices[i] != now.device())
      return std::nullopt;
    if (old != now.uop()) swap.emplace(old.get(), now.uop());
  }
  const UOpRef sink = Substitute(trace->outputs, swap);
  std::vector<Tensor> outputs;
  for (size_t i = 0; i < trace->output_devices.size(); ++i) outputs.emplace_back(sink->src(i), trace->output_devices[i]);
  std::lock_guard<std::mutex> lock(mu_);
  ++reused_;
  return outputs;
}

void TraceCache::Keep(const std::vector<Tensor>& inputs, const std::vector<Tensor>& outputs) {
  if (!TraceableInputs(inputs)) return;
  auto trace = std::make_shared<Trace>();
  for (const Tensor& t : inputs) trace->inputs.push_back(t.uop()), trace->input_devices.push_back(t.device());
  std::vector<UOpRef> roots;
  for (const Tensor& t : outputs) roots.push_back(t.uop()), trace->output_devices.push_back(t.device());
  trace->outputs = UOp::Sink(std::move(roots));
  trace->training = Tensor::training();
  std::lock_guard<std::mutex> lock(mu_);
  last_ = std::move(trace);
}

uint64_t TraceCache::reused() const {
  std::lock_guard<std::mutex> lock(mu_);
  return reused_;
}

}  // namespace tg::onnx
