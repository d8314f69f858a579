// tg::Jit: runs a function of tensors normally once, captures the kernels of its second call,
// and from the third call on replays them with the new inputs' buffers (docs/architecture.md; tinygrad's TinyJit).
#ifndef TG_FRONTEND_JIT_H_
#define TG_FRONTEND_JIT_H_

#include <functional>
#include <memory>
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
//  - an input may be a bound variable (tg::Variable::bind(v).tensor(), frontend/variable.h): each
//    call passes a value of the same variable, and the replay hands the new value to the captured
//    kernels, which compiled once for the whole range;
//  - no input may be passed twice;
//  - the function must not read tensor data (to_vector, item) while it is captured (call 2);
//  - state that persists across calls must change in place (assign on realized tensors), since a
//    replay runs the captured kernels on the captured buffers;
//  - outputs are the same buffers on every replay: copy a result out before the next call if it
//    must survive it.
//
// Saving (docs/saved_jit.md): once captured, a Jit can be written to a file and loaded in another
// process, which then runs it with no compiler at all (every kernel loads from its binary):
//   step({x, y}); step({x, y});          // run, then capture
//   step.save("model.tgjit");            // kernels, launch list, buffer plan, weights, signature
//   ...in a fresh process:
//   tg::Jit step = tg::Jit::load("model.tgjit");
//   auto out = step({x, y});             // same rules as above; bit-identical to the original
// The file carries the state as of save() (parameters read before the function writes them), so
// the loaded Jit needs nothing else. load() refuses, with a tg::Error saying what was wrong and what
// is allowed, a file that is damaged or truncated, of another format version, of another plugin ABI
// major, for a device this process lacks or of another plugin, or compiled with another compile
// fingerprint (another compiler, driver or device model). Only single-device Jits save.
class Jit {
 public:
  using Function = std::function<std::vector<Tensor>(const std::vector<Tensor>&)>;
  explicit Jit(Function fn);

  std::vector<Tensor> operator()(const std::vector<Tensor>& inputs);

  bool captured() const { return calls_ >= 2 || saved_ != nullptr; }
  size_t captured_kernels() const;

  // What each input must be (the first call's inputs, or a loaded Jit's signature).
  struct TensorSpec {
    Shape shape;
    DType dtype;
    std::string device;
    UOpRef variable;  // the DEFINE_VAR of a bound-variable input, else null
  };
  const std::vector<TensorSpec>& input_specs() const { return specs_; }

  // Optional names of the inputs and outputs, kept in the file for tools (an ONNX model's value names).
  struct Names {
    std::vector<std::string> inputs, outputs;
  };
  // Writes the captured Jit (or a loaded one, with its current state) to |path|; tg::Error before
  // the capture (two calls), when |names| does not have one name per input and output (or none), or
  // when a device cannot export its kernels' binaries.
  void save(const std::string& path, const Names& names = {}) const;
  // A Jit that runs the saved one, loaded without compiling; see above for what it refuses.
  static Jit load(const std::string& path);
  const Names& names() const { return names_; }  // a loaded Jit's names; empty when saved without

 private:
  void CheckInputs(const std::vector<Tensor>& inputs) const;
  std::vector<Tensor> Run(const std::vector<Tensor>& inputs);
  std::vector<Tensor> Capture(const std::vector<Tensor>& inputs);
  std::vector<Tensor> Replay(const std::vector<Tensor>& inputs);
  std::vector<Tensor> RunSaved(const std::vector<Tensor>& inputs);

  Function fn_;
  int calls_ = 0;
  std::vector<TensorSpec> specs_;
  Names names_;
  std::vector<compiler::ScheduleItem> items_;  // the captured kernels and copies
  std::vector<std::vector<UOpRef>> input_buffers_;  // per input, its buffer view(s) (one per device if sharded),
                                                    // whose buffers are swapped on replay
  // Where each input's captured buffer is an argument of items_ (found once, at capture), and the
  // items a replay runs: a copy of items_ whose input slots are pointed at the call's buffers for the
  // run and back after, so a replay neither copies the items nor maps buffers.
  struct InputSlot {
    size_t item, arg;   // items_[item].buffers[arg]
    size_t input, view;  // is the buffer of input_buffers_[input][view]
  };
  std::vector<InputSlot> input_slots_;
  // Where each bound-variable input's value goes: items_[item].var_values[value].
  struct VariableSlot {
    size_t item, value, input;
  };
  std::vector<VariableSlot> variable_slots_;
  std::vector<compiler::ScheduleItem> replay_items_;
  std::vector<Tensor> outputs_;                // the capture's outputs (realized)
  std::shared_ptr<compiler::SavedJit> saved_;  // set for a loaded Jit, which has no fn_
};

}  // namespace tg

#endif  // TG_FRONTEND_JIT_H_
