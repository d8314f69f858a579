// The lazy graph of a Model's last run, kept so that a run on inputs of the same signature gets its
// graph with one rewrite that swaps the new inputs in for the old, instead of importing every node
// again (a few microseconds a node, which for a small CNN is most of a run's host time).
//
// A run's graph is kept only when it is a function of its inputs' signature alone: every input was a
// stored buffer (Tensor::is_stored), each given once; its import read no tensor data to the host and
// drew no random numbers (frontend/host_effects.h: shape arithmetic folded on the host is fine, an If
// on a computed condition or a Dropout that draws is not); and Tensor::training() was the same. A
// reused graph is the very graph an import would build (hash-consed nodes), so results are identical.
// The kept graph holds the last run's input buffers alive until the next run of that model replaces it.
#ifndef TG_FRONTEND_ONNX_TRACE_CACHE_H_
#define TG_FRONTEND_ONNX_TRACE_CACHE_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "frontend/tensor.h"

namespace tg::onnx {

class TraceCache {
 public:
  // The outputs of a run on |inputs| rebuilt from the kept graph, or nullopt when there is none for
  // their signature (or they are not all distinct stored buffers).
  std::optional<std::vector<Tensor>> Reuse(const std::vector<Tensor>& inputs);
  // Keeps |outputs|, built from |inputs| by an import that had no host effects.
  void Keep(const std::vector<Tensor>& inputs, const std::vector<Tensor>& outputs);

  uint64_t reused() const;

 private:
  // Graph nodes, not Tensors: a Tensor handed out is realized in place, and the kept graph must not be.
  struct Trace {
    std::vector<UOpRef> inputs;
    std::vector<std::string> input_devices;
    UOpRef outputs;  // a SINK of them, so one Substitute rebuilds what they share once
    std::vector<std::string> output_devices;
    bool training = false;
  };

  mutable std::mutex mu_;
  std::shared_ptr<const Trace> last_;
  uint64_t reused_ = 0;
};

// Whether every input is a stored buffer and none is given twice: the inputs a graph can be kept for.
bool TraceableInputs(const std::vector<Tensor>& inputs);

}  // namespace tg::onnx

#endif  // TG_FRONTEND_ONNX_TRACE_CACHE_H_
