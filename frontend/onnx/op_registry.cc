// OpRegistry and OpContext. Dispatch follows ONNX's rule: an op's behaviour at opset N is that of the
// latest version of it introduced at or before N.
#include "frontend/onnx/op_registry.h"

#include <cmath>
#include <cstdint>
#include <limits>

#include "frontend/load_budget.h"

namespace tg::onnx {

OpContext::OpContext(const Node& node, std::vector<std::optional<Tensor>> inputs,
                     std::vector<const HostValues*> host_inputs, std::string device, SubgraphRunner run_subgraph)
    : node_(node), inputs_(std::move(inputs)), host_inputs_(std::move(host_inputs)), device_(std::move(device)),
      run_subgraph_(std::move(run_subgraph)) {}

void OpContext::fail(const std::string& message) const { throw Error(message); }

void OpContext::check_output_budget(const std::string& field, const Shape& dims, DType dtype) const {
  const std::string what = field + ": " + ShapeString(dims) + " " + dtype.name();
  // Saturates instead of wrapping: dims whose product is past uint64 must still read as too many bytes.
  uint64_t bytes = dtype.itemsize();
  for (int64_t d : dims) {
    if (d < 0) fail(what + ": dims must not be negative");
    uint64_t u = static_cast<uint64_t>(d);
    bytes = u != 0 && bytes > std::numeric_limits<uint64_t>::max() / u ? std::numeric_limits<uint64_t>::max() : bytes * u;
  }
  CheckLoadBudget(node_.op, what, bytes);
}

const Tensor& OpContext::in(size_t i) const {
  if (!has(i))
    fail("input " + std::to_string(i) + " is required but " +
         (i < node_.inputs.size() ? "empty" : "not given (the node has " + std::to_string(node_.inputs.size()) + ")"));
  return *inputs_[i];
}

std::vector<Tensor> OpContext::all_inputs() const {
  std::vector<Tensor> out;
  for (const auto& t : inputs_)
    if (t) out.push_back(*t);
  return out;
}

std::vector<int64_t> OpContext::ints(size_t i) const {
  if (host_known(i)) return host_inputs_[i]->as_ints();
  const Tensor& t = in(i);
  if (t.dtype().is_float()) {
    std::vector<int64_t> out;
    for (double v : t.cast(dtypes::float64).to_vector<double>()) out.push_back(static_cast<int64_t>(v));
    return out;
  }
  return t.cast(dtypes::int64).to_vector<int64_t>();
}

std::vector<double> OpContext::floats(size_t i) const {
  if (host_known(i)) return host_inputs_[i]->as_floats();
  return in(i).cast(dtypes::float64).to_vector<double>();
}

namespace {
template <class T>
const T* Attr(const Node& node, const std::string& name, const char* want) {
  auto it = node.attrs.find(name);
  if (it == node.attrs.end()) return nullptr;
  if (const T* v = std::get_if<T>(&it->second)) return v;
  throw Error("attribute \"" + name + "\" must be " + want);
}
}  // namespace

int64_t OpContext::attr_int(const std::string& name, int64_t fallback) const {
  auto it = node_.attrs.find(name);
  if (it != node_.attrs.end())
    if (const double* f = std::get_if<double>(&it->second)) return static_cast<int64_t>(*f);  // lenient: 1.0 for 1
  const int64_t* v = Attr<int64_t>(node_, name, "an int");
  return v ? *v : fallback;
}

double OpContext::attr_float(const std::string& name, double fallback) const {
  auto it = node_.attrs.find(name);
  if (it != node_.attrs.end())
    if (const int64_t* i = std::get_if<int64_t>(&it->second)) return static_cast<double>(*i);
  const double* v = Attr<double>(node_, name, "a float");
  return v ? *v : fallback;
}

std::string OpContext::attr_string(const std::string& name, const std::string& fallback) const {
  const std::string* v = Attr<std::string>(node_, name, "a string");
  return v ? *v : fallback;
}

std::optional<std::vector<int64_t>> OpContext::attr_ints(const std::string& name) const {
  auto it = node_.attrs.find(name);
  if (it != node_.attrs.end())
    if (const int64_t* i = std::get_if<int64_t>(&it->second)) return std::vector<int64_t>{*i};
  const std::vector<int64_t>* v = Attr<std::vector<int64_t>>(node_, name, "a list of ints");
  return v ? std::optional(*v) : std::nullopt;
}

std::optional<std::vector<double>> OpContext::attr_floats(const std::string& name) const {
  auto it = node_.attrs.find(name);
  if (it != node_.attrs.end())
    if (const double* f = std::get_if<double>(&it->second)) return std::vector<double>{*f};
  const std::vector<double>* v = Attr<std::vector<double>>(node_, name, "a list of floats");
  return v ? std::optional(*v) : std::nullopt;
}

std::optional<Tensor> OpContext::attr_tensor(const std::string& name) const {
  const Tensor* v = Attr<Tensor>(node_, name, "a tensor");
  return v ? std::optional(*v) : std::nullopt;
}

const HostValues* OpContext::attr_host_values(const std::string& name) const {
  auto it = node_.host_attrs.find(name);
  return it == node_.host_attrs.end() ? nullptr : &it->second;
}

const Graph& OpContext::attr_graph(const std::string& name) const {
  const auto* v = Attr<std::shared_ptr<const Graph>>(node_, name, "a graph");
  if (v == nullptr) fail("attribute \"" + name + "\" (a graph) is required");
  return **v;
}

void OpRegistry::add(const std::string& domain, const std::string& op, int64_t since, OpFn fn) {
  table_[{domain, op}][since] = fn;
}

OpFn OpRegistry::find(const std::string& domain, const std::string& op, int64_t opset, std::string* why) const {
  auto it = table_.find({domain, op});
  if (it == table_.end()) {
    *why = "tinygrad-cc does not implement this op";
    return nullptr;
  }
  auto v = it->second.upper_bound(opset);
  if (v == it->second.begin()) {
    *why = "tinygrad-cc implements it from opset " + std::to_string(it->second.begin()->first) + " on";
    return nullptr;
  }
  return std::prev(v)->second;
}

std::vector<std::string> OpRegistry::ops(const std::string& domain) const {
  std::vector<std::string> out;
  for (const auto& [key, versions] : table_)
    if (key.first == domain) out.push_back(key.second);
  return out;
}

const OpRegistry& OpRegistry::Get() {
  static const OpRegistry* registry = [] {
    auto* r = new OpRegistry;
    RegisterElementwiseOps(*r);
    RegisterReduceOps(*r);
    RegisterMovementOps(*r);
    RegisterIndexOps(*r);
    RegisterNnOps(*r);
    RegisterMiscOps(*r);
    RegisterResizeOps(*r);
    RegisterQuantOps(*r);
    RegisterRnnOps(*r);
    RegisterControlFlowOps(*r);
    return r;
  }();
  return *registry;
}

int NormAxis(int64_t axis, int64_t ndim, const OpContext& ctx) {
  int64_t a = axis < 0 ? axis + ndim : axis;
  if (a < 0 || a >= std::max<int64_t>(ndim, 1))
    ctx.fail("axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(ndim) +
             " (allowed: [" + std::to_string(-ndim) + ", " + std::to_string(ndim - 1) + "])");
  return static_cast<int>(a);
}

int NormDimAxis(int64_t axis, const Tensor& x, const OpContext& ctx) {
  if (x.ndim() == 0) ctx.fail("data must have rank >= 1 to take axis " + std::to_string(axis) + ", got a scalar");
  return NormAxis(axis, x.ndim(), ctx);
}

Tensor ConstLike(const Tensor& like, double value, DType dtype) {
  return Tensor::full({}, value, dtype, like.device());
}

std::vector<Tensor> One(Tensor t) { return {std::move(t)}; }

}  // namespace tg::onnx
