// tg::Jit: runs a function of tensors normally once, captures the kernels of its second call,
// and from the third call on replays them with the new inputs' buffers (docs/architecture.md; tinygrad's TinyJit).
#ifndef TG_FRONTEND_JIT_H_
#define TG_FRONTEND_JIT_H_

#include <functional>
#include <string>
#include <vector>

#include "compiler/compiler.h"
#include "frontend/tensor.h"

namespace tg {

// Usage:
//   tg::Jit step([&](const std::vector<tg::Tensor>& in) {
//     tg::Tensor loss = model(in[0]).cross_entropy(in[1]);
//     loss.backward();
//     optimizer.step();          // parameters change in place (Tensor::assign)
//     return std::vector<tg::Tensor>{loss};
//   });
//   for (...) float loss = step({x, y})[0].item<float>();
//
// A Jit belongs to one thread at a time; give each thread its own (docs/concurrency.md).
// Rules (each broken rule is a tg::Error, never a wrong result):
//  - every call passes inputs of the same count, shapes, dtypes and devices as the first;
//  - no input may be passed twice;
//  - the function must not read tensor data (to_vector, item) while it is captured (call 2);
//  - state that persists across calls must change in place (assign on realized tensors), since a
//    replay runs the captured kernels on the captured buffers;
//  - outputs are the same buffers on every replay: copy a result out before the next call if it
//    must survive it.
class Jit {
 public:
  using Function = std::function<std::vector<Tensor>(const std::vector<Tensor>&)>;
  explicit Jit(Function fn);

  std::vector<Tensor> operator()(const std::vector<Tensor>& inputs);

  bool captured() const { return calls_ >= 2; }
  size_t captured_kernels() const;

 private:
  struct InputSpec {
    Shape shape;
    DType dtype;
    std::string device;
  };
  void CheckInputs(const std::vector<Tensor>& inputs) const;
  std::vector<Tensor> Run(const std::vector<Tensor>& inputs);
  std::vector<Tensor> Capture(const std::vector<Tensor>& inputs);
  std::vector<Tensor> Replay(const std::vector<Tensor>& inputs);

  Function fn_;
  int calls_ = 0;
  std::vector<InputSpec> specs_;
  std::vector<compiler::ScheduleItem> items_;  // the captured kernels and copies
  std::vector<std::vector<UOpRef>> input_buffers_;  // per input, its buffer view(s) (one per device if sharded),
                                                    // whose buffers are swapped on replay
  std::vector<Tensor> outputs_;                // the capture's outputs (realized)
};

}  // namespace tg

#endif  // TG_FRONTEND_JIT_H_
