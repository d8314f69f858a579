#include "frontend/jit.h"

#include <algorithm>

#include "absl/container/flat_hash_set.h"
#include "absl/container/inlined_vector.h"
#include "compiler/compiler.h"
#include "frontend/variable.h"
#include "ir/substitute.h"
#include "runtime/trace_recorder.h"

namespace tg {
namespace {

std::vector<Tensor> Realized(std::vector<Tensor> tensors) {
  Tensor::realize_all(tensors);
  return tensors;
}

// The inputs with their tensors realized; a bound variable stays a value, never a buffer.
std::vector<Tensor> RealizedInputs(const std::vector<Tensor>& inputs) {
  std::vector<Tensor> tensors;
  for (const Tensor& t : inputs)
    if (!IsBoundVariable(t)) tensors.push_back(t);
  Tensor::realize_all(tensors);
  std::vector<Tensor> out;
  size_t next = 0;
  for (const Tensor& t : inputs) out.push_back(IsBoundVariable(t) ? t : tensors[next++]);
  return out;
}

std::string VariableString(const UOpRef& v) {
  return "variable '" + v->arg_as<std::string>() + "' [" + std::to_string(v->vmin()) + ", " + std::to_string(v->vmax()) + "]";
}

// The buffer views behind a realized input: one, or one per device for a sharded tensor.
std::vector<UOpRef> InputViews(const Tensor& t) {
  return t.uop()->op() == Ops::kMulti ? t.uop()->src() : std::vector<UOpRef>{t.uop()};
}

}  // namespace

Jit::Jit(Function fn) : fn_(std::move(fn)) {}

size_t Jit::captured_kernels() const {
  if (saved_) return saved_->kernel_launches();
  size_t n = 0;
  for (const auto& item : items_) n += item.kind == compiler::ScheduleItem::Kind::kKernel;
  return n;
}

void Jit::CheckInputs(const std::vector<Tensor>& inputs) const {
  absl::flat_hash_set<const UOp*> seen;
  for (size_t i = 0; i < inputs.size(); ++i)
    if (!seen.insert(inputs[i].uop().get()).second)
      throw Error("Jit: input " + std::to_string(i) + " is passed twice; a jitted function takes distinct inputs");
  if (calls_ == 0) return;
  if (inputs.size() != specs_.size())
    throw Error("Jit: called with " + std::to_string(inputs.size()) + " inputs, but it was captured with " +
                std::to_string(specs_.size()));
  for (size_t i = 0; i < inputs.size(); ++i) {
    const TensorSpec& s = specs_[i];
    const Tensor& t = inputs[i];
    UOpRef variable = IsBoundVariable(t) ? t.uop()->src(0) : nullptr;
    if (variable != s.variable)
      throw Error("Jit: input " + std::to_string(i) + " is " + (variable ? VariableString(variable) : "a tensor") +
                  ", but the function was captured with " + (s.variable ? VariableString(s.variable) : "a tensor") +
                  " there; pass the same kind of input on every call");
    if (t.shape() != s.shape || t.dtype() != s.dtype || t.device() != s.device)
      throw Error("Jit: input " + std::to_string(i) + " is " + ShapeString(t.shape()) + " " + t.dtype().name() +
                  " on " + t.device() + ", but the function was captured with " + ShapeString(s.shape) + " " +
                  s.dtype.name() + " on " + s.device + "; make a new Jit for other shapes");
  }
}

std::vector<Tensor> Jit::operator()(const std::vector<Tensor>& inputs) {
  CheckInputs(inputs);
  std::vector<Tensor> ready = RealizedInputs(inputs);
  std::vector<Tensor> out = saved_     ? RunSaved(ready)
                            : calls_ == 0 ? Run(ready)
                            : calls_ == 1 ? Capture(ready)
                                          : Replay(ready);
  ++calls_;
  return out;
}

std::vector<Tensor> Jit::Run(const std::vector<Tensor>& inputs) {
  runtime::TraceSpan span("jit", "Jit first call");
  for (const Tensor& t : inputs)
    specs_.push_back({t.shape(), t.dtype(), t.device(), IsBoundVariable(t) ? t.uop()->src(0) : nullptr});
  return Realized(fn_(inputs));
}

std::vector<Tensor> Jit::Capture(const std::vector<Tensor>& inputs) {
  runtime::TraceSpan span("jit", "Jit capture");
  compiler::CaptureScope scope;
  outputs_ = Realized(fn_(inputs));
  items_ = scope.items();
  if (span.active()) span.Arg(runtime::TraceArg::Num("kernels", static_cast<double>(captured_kernels())));
  for (const Tensor& t : inputs) input_buffers_.push_back(InputViews(t));
  for (size_t i = 0; i < input_buffers_.size(); ++i)
    for (size_t d = 0; d < input_buffers_[i].size(); ++d)
      if (UOpRef old_buffer = compiler::BufferOfView(input_buffers_[i][d]))
        for (size_t item = 0; item < items_.size(); ++item)
          for (size_t arg = 0; arg < items_[item].buffers.size(); ++arg)
            if (items_[item].buffers[arg] == old_buffer) input_slots_.push_back({item, arg, i, d});
  // A variable is matched by name, as kernels take it: a value bound inside the function instead of
  // passed in stays the captured one.
  for (size_t i = 0; i < specs_.size(); ++i)
    if (specs_[i].variable)
      for (size_t item = 0; item < items_.size(); ++item)
        for (size_t k = 0; k < items_[item].variables.size(); ++k)
          if (items_[item].variables[k]->arg_as<std::string>() == specs_[i].variable->arg_as<std::string>())
            variable_slots_.push_back({item, k, i});
  replay_items_ = items_;
  return outputs_;
}

std::vector<Tensor> Jit::Replay(const std::vector<Tensor>& inputs) {
  runtime::TraceSpan span("jit", "Jit replay");
  if (span.active()) span.Arg(runtime::TraceArg::Num("kernels", static_cast<double>(captured_kernels())));
  absl::InlinedVector<std::vector<UOpRef>, 8> views(inputs.size());  // the usual few inputs: no heap array
  for (size_t i = 0; i < inputs.size(); ++i) {
    std::vector<UOpRef>& now = views[i];
    now = InputViews(inputs[i]);
    const std::vector<UOpRef>& captured = input_buffers_[i];
    bool same_layout = now.size() == captured.size();
    for (size_t d = 0; same_layout && d < now.size(); ++d) same_layout = now[d]->shape() == captured[d]->shape();
    if (!same_layout)
      throw Error("Jit: input " + std::to_string(i) + " is sharded differently from the captured call (another "
                  "axis or split); make a new Jit for it");
  }
  // Slots in input order: an earlier input's buffer seen again as a later input's is the later's.
  for (const InputSlot& s : input_slots_)
    replay_items_[s.item].buffers[s.arg] = compiler::BufferOfView(views[s.input][s.view]);
  for (const VariableSlot& s : variable_slots_)
    replay_items_[s.item].var_values[s.value] = inputs[s.input].uop()->src(1)->const_int();
  // Back to the captured buffers after the run, so the Jit holds no caller's buffer between calls.
  auto restore = [&] {
    for (const InputSlot& s : input_slots_) replay_items_[s.item].buffers[s.arg] = items_[s.item].buffers[s.arg];
  };
  try {
    compiler::RunItems(replay_items_, /*replay=*/true);
  } catch (...) {
    restore();
    throw;
  }
  restore();
  return outputs_;
}

namespace {

// The one buffer view of each input: a saved Jit is single-device.
std::vector<UOpRef> SingleViews(const std::vector<std::vector<UOpRef>>& per_input) {
  std::vector<UOpRef> views;
  for (size_t i = 0; i < per_input.size(); ++i) {
    if (per_input[i].size() != 1)
      throw Error("Jit::save: input " + std::to_string(i) + " is sharded over " + std::to_string(per_input[i].size()) +
                  " devices; only single-device Jits can be saved");
    views.push_back(per_input[i][0]);
  }
  return views;
}

void NameTensors(const std::vector<std::string>& names, std::vector<compiler::JitFile::Tensor>& tensors,
                 const char* what) {
  if (names.empty()) return;
  if (names.size() != tensors.size())
    throw Error("Jit::save: " + std::to_string(names.size()) + " " + what + " names for " +
                std::to_string(tensors.size()) + " " + what + "s; give one name each, or none");
  for (size_t i = 0; i < names.size(); ++i) tensors[i].name = names[i];
}

bool AllEmpty(const std::vector<std::string>& names) {
  return std::all_of(names.begin(), names.end(), [](const std::string& n) { return n.empty(); });
}

}  // namespace

void Jit::save(const std::string& path, const Names& names) const {
  compiler::JitFile file;
  if (saved_) {
    file = saved_->Snapshot();
  } else {
    if (!captured())
      throw Error("Jit::save: the function is captured on its second call and has been called " +
                  std::to_string(calls_) + " time(s); call it twice before saving");
    std::vector<UOpRef> outputs;
    for (const Tensor& t : outputs_) outputs.push_back(t.uop());
    file = compiler::SaveCapture(items_, SingleViews(input_buffers_), outputs);
  }
  NameTensors(names.inputs, file.inputs, "input");
  NameTensors(names.outputs, file.outputs, "output");
  compiler::WriteJitFileBytes(path, compiler::EncodeJitFile(file));
}

Jit Jit::load(const std::string& path) {
  compiler::JitFile file = compiler::DecodeJitFile(compiler::ReadJitFileBytes(path), path);
  Jit jit(nullptr);
  jit.saved_ = std::make_shared<compiler::SavedJit>(std::move(file), path);
  const compiler::JitFile& bound = jit.saved_->file();
  for (const compiler::JitFile::Tensor& in : bound.inputs) {
    std::optional<DType> dtype = DTypeFromName(in.dtype);
    if (!dtype) throw Error("Jit::load: " + path + " has an input of dtype '" + in.dtype + "', unknown to this build");
    jit.specs_.push_back({in.shape, *dtype, bound.devices[bound.buffers[in.buffer].device].name});
    jit.names_.inputs.push_back(in.name);
  }
  for (const compiler::JitFile::Tensor& out : bound.outputs) jit.names_.outputs.push_back(out.name);
  if (AllEmpty(jit.names_.inputs) && AllEmpty(jit.names_.outputs)) jit.names_ = {};
  jit.calls_ = 2;
  return jit;
}

std::vector<Tensor> Jit::RunSaved(const std::vector<Tensor>& inputs) {
  runtime::TraceSpan span("jit", "Jit replay (saved)");
  if (span.active()) span.Arg(runtime::TraceArg::Num("kernels", static_cast<double>(captured_kernels())));
  std::vector<std::vector<UOpRef>> views;
  for (const Tensor& t : inputs) views.push_back(InputViews(t));
  std::vector<UOpRef> nodes = saved_->Run(SingleViews(views));
  const compiler::JitFile& file = saved_->file();
  std::vector<Tensor> out;
  for (size_t o = 0; o < nodes.size(); ++o) {
    const compiler::JitFile::Tensor& sig = file.outputs[o];
    Tensor t(nodes[o], file.devices[file.buffers[sig.buffer].device].name);
    out.push_back(t.shape() == sig.shape ? t : t.reshape(sig.shape));
  }
  return out;
}

}  // namespace tg
