// The looping ONNX ops, Loop and Scan: their bodies run once per iteration, unrolled into the graph, and see
// the enclosing graphs' names as If's branches do. Loop reads its condition on the host after every
// iteration (data decides how many there are), so a model with a Loop cannot be captured by tg::Jit.
#include <algorithm>
#include <optional>
#include <string>

#include "frontend/onnx/op_registry.h"

namespace tg::onnx {
namespace {

using Ctx = OpContext;

// Runs |body| on |inputs|, given in the order of its declared inputs.
std::vector<Tensor> RunBody(const Ctx& c, const Graph& body, const std::vector<Tensor>& inputs) {
  if (inputs.size() != body.inputs.size())
    c.fail("the body takes " + std::to_string(body.inputs.size()) + " inputs; the op gives it " +
           std::to_string(inputs.size()));
  return c.run_subgraph(body, inputs);
}

// Iteration outputs joined along a new |axis|, first iteration first unless |reverse|.
Tensor Join(std::vector<Tensor> parts, int64_t axis, bool reverse) {
  if (reverse) std::reverse(parts.begin(), parts.end());
  return parts[0].stack(std::vector<Tensor>(parts.begin() + 1, parts.end()), static_cast<int>(axis));
}

bool HostTrue(const Tensor& t) { return t.cast(dtypes::int64).to_vector<int64_t>().at(0) != 0; }

std::vector<Tensor> Loop(Ctx& c) {
  const Graph& body = c.attr_graph("body");
  std::optional<int64_t> max_trips;
  if (c.has(0)) max_trips = c.ints(0).at(0);
  bool cond = c.has(1) ? c.ints(1).at(0) != 0 : true;
  std::vector<Tensor> carried;
  for (size_t i = 2; i < c.num_inputs(); ++i) carried.push_back(c.in(i));
  const size_t n_carried = carried.size();
  if (body.outputs.size() < 1 + n_carried)
    c.fail("the body must return the condition and the " + std::to_string(n_carried) + " loop-carried values; it returns " +
           std::to_string(body.outputs.size()) + " outputs");
  const size_t n_scan = body.outputs.size() - 1 - n_carried;
  std::vector<std::vector<Tensor>> scans(n_scan);
  for (int64_t i = 0; (!max_trips || i < *max_trips) && cond; ++i) {
    std::vector<Tensor> in{Tensor::from_vector<int64_t>({i}, Shape{}, c.device()),
                           Tensor::from_vector<bool>({cond}, Shape{}, c.device())};
    in.insert(in.end(), carried.begin(), carried.end());
    std::vector<Tensor> out = RunBody(c, body, in);
    cond = HostTrue(out[0]);
    std::copy(out.begin() + 1, out.begin() + 1 + static_cast<std::ptrdiff_t>(n_carried), carried.begin());
    for (size_t k = 0; k < n_scan; ++k) scans[k].push_back(out[1 + n_carried + k]);
  }
  std::vector<Tensor> result = carried;
  for (std::vector<Tensor>& s : scans) {
    if (s.empty()) c.fail("the loop ran no iteration, so its scan outputs have no shape to be empty in");
    result.push_back(Join(s, 0, false));
  }
  return result;
}

std::vector<int64_t> AxesAttr(const Ctx& c, const char* name, size_t n, int64_t fallback) {
  std::vector<int64_t> v = c.attr_ints(name).value_or(std::vector<int64_t>(n, fallback));
  if (v.size() != n) c.fail(std::string(name) + " has " + std::to_string(v.size()) + " entries, needs " + std::to_string(n));
  return v;
}

struct ScanLayout {
  std::vector<int64_t> in_axes, in_reverse, out_axes, out_reverse;
};

// Scan of opset 9 on: |states| carried through the body, |inputs| sliced along their axes, one slice per step.
std::vector<Tensor> ScanCore(const Ctx& c, const Graph& body, std::vector<Tensor> states,
                             const std::vector<Tensor>& inputs, const ScanLayout& l) {
  if (inputs.empty()) c.fail("num_scan_inputs must be at least 1");
  std::vector<int> axes;
  for (size_t j = 0; j < inputs.size(); ++j) axes.push_back(NormAxis(l.in_axes[j], inputs[j].ndim(), c));
  const int64_t steps = inputs[0].shape()[static_cast<size_t>(axes[0])];
  for (size_t j = 1; j < inputs.size(); ++j)
    if (inputs[j].shape()[static_cast<size_t>(axes[j])] != steps)
      c.fail("scan input " + std::to_string(j) + " has " + std::to_string(inputs[j].shape()[static_cast<size_t>(axes[j])]) +
             " steps along its axis; scan input 0 has " + std::to_string(steps));
  const size_t n_states = states.size();
  if (body.outputs.size() < n_states) c.fail("the body returns fewer outputs than there are state variables");
  std::vector<std::vector<Tensor>> scans(body.outputs.size() - n_states);
  for (int64_t s = 0; s < steps; ++s) {
    std::vector<Tensor> in = states;
    for (size_t j = 0; j < inputs.size(); ++j) {
      const int64_t t = l.in_reverse[j] ? steps - 1 - s : s;
      std::vector<std::pair<int64_t, int64_t>> bounds;
      for (int64_t d = 0; d < inputs[j].ndim(); ++d)
        bounds.push_back(d == axes[j] ? std::pair{t, t + 1} : std::pair{int64_t{0}, inputs[j].shape()[static_cast<size_t>(d)]});
      in.push_back(inputs[j].shrink(bounds).squeeze(axes[j]));
    }
    std::vector<Tensor> out = RunBody(c, body, in);
    std::copy(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(n_states), states.begin());
    for (size_t k = 0; k < scans.size(); ++k) scans[k].push_back(out[n_states + k]);
  }
  if (steps == 0 && !scans.empty()) c.fail("the scan has no step, so its scan outputs have no shape to be empty in");
  std::vector<Tensor> result = states;
  for (size_t k = 0; k < scans.size(); ++k)
    result.push_back(Join(scans[k], NormAxis(l.out_axes[k], scans[k][0].ndim() + 1, c), l.out_reverse[k] != 0));
  return result;
}

std::vector<Tensor> Scan(Ctx& c) {
  const Graph& body = c.attr_graph("body");
  const int64_t m = c.attr_int("num_scan_inputs", 0);
  if (m < 1 || static_cast<size_t>(m) > c.num_inputs())
    c.fail("num_scan_inputs must be in [1, " + std::to_string(c.num_inputs()) + "]; got " + std::to_string(m));
  const size_t n = c.num_inputs() - static_cast<size_t>(m);
  std::vector<Tensor> states, inputs;
  for (size_t i = 0; i < c.num_inputs(); ++i) (i < n ? states : inputs).push_back(c.in(i));
  const size_t k = body.outputs.size() >= n ? body.outputs.size() - n : 0;
  ScanLayout l{AxesAttr(c, "scan_input_axes", inputs.size(), 0), AxesAttr(c, "scan_input_directions", inputs.size(), 0),
               AxesAttr(c, "scan_output_axes", k, 0), AxesAttr(c, "scan_output_directions", k, 0)};
  return ScanCore(c, body, states, inputs, l);
}

// Scan of opset 8: axis 0 of every input is a batch, each entry scanned on its own along axis 1.
std::vector<Tensor> ScanBatched(Ctx& c) {
  if (c.has(0)) c.fail("sequence_lens is not supported; only full-length sequences (input 0 empty)");
  const Graph& body = c.attr_graph("body");
  const int64_t m = c.attr_int("num_scan_inputs", 0);
  if (m < 1 || static_cast<size_t>(m) + 1 > c.num_inputs())
    c.fail("num_scan_inputs must be in [1, " + std::to_string(c.num_inputs() - 1) + "]; got " + std::to_string(m));
  const size_t n = c.num_inputs() - 1 - static_cast<size_t>(m);
  const size_t k = body.outputs.size() >= n ? body.outputs.size() - n : 0;
  ScanLayout l{std::vector<int64_t>(static_cast<size_t>(m), 0), AxesAttr(c, "directions", static_cast<size_t>(m), 0),
               std::vector<int64_t>(k, 0), std::vector<int64_t>(k, 0)};
  const int64_t batch = c.in(1).shape().empty() ? 0 : c.in(1).shape()[0];
  auto entry = [](const Tensor& t, int64_t b) {
    std::vector<std::pair<int64_t, int64_t>> bounds{{b, b + 1}};
    for (size_t d = 1; d < t.shape().size(); ++d) bounds.emplace_back(0, t.shape()[d]);
    return t.shrink(bounds).squeeze(0);
  };
  std::vector<std::vector<Tensor>> per_output;
  for (int64_t b = 0; b < batch; ++b) {
    std::vector<Tensor> states, inputs;
    for (size_t i = 1; i < c.num_inputs(); ++i) (i <= n ? states : inputs).push_back(entry(c.in(i), b));
    std::vector<Tensor> out = ScanCore(c, body, states, inputs, l);
    per_output.resize(out.size());
    for (size_t o = 0; o < out.size(); ++o) per_output[o].push_back(out[o]);
  }
  if (per_output.empty()) c.fail("the batch is empty");
  std::vector<Tensor> result;
  for (std::vector<Tensor>& o : per_output) result.push_back(Join(o, 0, false));
  return result;
}

}  // namespace

void RegisterControlFlowOps(OpRegistry& r) {
  r.add("", "Loop", 1, Loop);
  r.add("", "Scan", 8, ScanBatched);
  r.add("", "Scan", 9, Scan);
}

}  // namespace tg::onnx
