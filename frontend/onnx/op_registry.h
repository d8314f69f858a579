// The ONNX op table: for each (domain, op) the implementations by the opset they start at, and the
// OpContext an implementation reads its inputs and attributes from. model.cc dispatches every node here.
#ifndef TG_FRONTEND_ONNX_OP_REGISTRY_H_
#define TG_FRONTEND_ONNX_OP_REGISTRY_H_

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "frontend/onnx/graph.h"
#include "frontend/tensor.h"

namespace tg::onnx {

// What one node sees while it runs. Accessors throw tg::Error naming the input or attribute; model.cc
// prefixes the node, so messages read `node 3 "conv1" (Conv, opset 13): input 1 (W) is required`.
class OpContext {
 public:
  using SubgraphRunner = std::function<std::vector<Tensor>(const Graph&, const std::vector<Tensor>&)>;
  OpContext(const Node& node, std::vector<std::optional<Tensor>> inputs, std::vector<const HostValues*> host_inputs,
            std::string device, SubgraphRunner run_subgraph);

  const Node& node() const { return node_; }
  int64_t opset() const { return node_.opset; }
  const std::string& device() const { return device_; }
  size_t num_inputs() const { return inputs_.size(); }
  size_t num_outputs() const { return node_.outputs.size(); }
  bool has(size_t i) const { return i < inputs_.size() && inputs_[i].has_value(); }
  const Tensor& in(size_t i) const;  // throws when absent
  std::optional<Tensor> opt(size_t i) const { return has(i) ? inputs_[i] : std::nullopt; }
  std::vector<Tensor> all_inputs() const;  // the present ones, for variadic ops (Sum, Concat)
  // Values of an integer (or float, rounded toward zero) input on the host. Constants, small initializers
  // and Shape outputs are known without running a kernel (HostValues); anything else is realized, which
  // a tg::Jit capture refuses.
  std::vector<int64_t> ints(size_t i) const;
  std::vector<double> floats(size_t i) const;  // same, as doubles
  bool host_known(size_t i) const { return i < host_inputs_.size() && host_inputs_[i] != nullptr; }
  const HostValues* host(size_t i) const { return host_known(i) ? host_inputs_[i] : nullptr; }

  bool has_attr(const std::string& name) const { return node_.attrs.count(name) != 0; }
  int64_t attr_int(const std::string& name, int64_t fallback) const;
  double attr_float(const std::string& name, double fallback) const;
  std::string attr_string(const std::string& name, const std::string& fallback) const;
  std::optional<std::vector<int64_t>> attr_ints(const std::string& name) const;
  std::optional<std::vector<double>> attr_floats(const std::string& name) const;
  std::optional<Tensor> attr_tensor(const std::string& name) const;
  // A small tensor attribute's values on the host, or nullptr (TensorFromProto's size limits).
  const HostValues* attr_host_values(const std::string& name) const;
  const Graph& attr_graph(const std::string& name) const;
  // Runs a subgraph attribute with this node's scope visible and |inputs| bound, in order, to its first
  // declared inputs (If's branches take none; Loop's and Scan's bodies one set per iteration); returns its
  // outputs in order.
  std::vector<Tensor> run_subgraph(const Graph& g, const std::vector<Tensor>& inputs = {}) const {
    return run_subgraph_(g, inputs);
  }

  // An op whose output is small and known on the host (Shape, Size, Constant) records it, so ops reading
  // its values need no kernel.
  void set_host_output(size_t i, HostValues values) { host_outputs_[i] = std::move(values); }
  const std::map<size_t, HostValues>& host_outputs() const { return host_outputs_; }

  // The message with "what is allowed"; the caller adds the node.
  [[noreturn]] void fail(const std::string& message) const;
  // For an op whose output size comes from a tensor's values (ConstantOfShape's shape, Tile's repeats,
  // Range's bounds, Resize's sizes): refuses |dims| of |dtype| past the load budget (frontend/load_budget.h)
  // or with a negative dim, before anything is built, so a hostile model cannot make us allocate what the
  // machine does not have. |field| says where the dims came from; the error names the op, field and bytes.
  void check_output_budget(const std::string& field, const Shape& dims, DType dtype) const;

 private:
  const Node& node_;
  std::vector<std::optional<Tensor>> inputs_;
  std::vector<const HostValues*> host_inputs_;
  std::string device_;
  SubgraphRunner run_subgraph_;
  std::map<size_t, HostValues> host_outputs_;
};

// Returns the node's outputs in order; it may return fewer than the node names only when the names
// left over are empty (unwanted optional outputs).
using OpFn = std::vector<Tensor> (*)(OpContext&);

class OpRegistry {
 public:
  static const OpRegistry& Get();  // every op family below, registered once
  // |op| of |domain| ("" = ai.onnx) behaves as |fn| from opset |since| until the next registration.
  void add(const std::string& domain, const std::string& op, int64_t since, OpFn fn);
  void add(const std::string& op, OpFn fn) { add("", op, 1, fn); }
  // The implementation for |opset|, or nullptr; |why| says whether the op is unknown or too new/old.
  OpFn find(const std::string& domain, const std::string& op, int64_t opset, std::string* why) const;
  std::vector<std::string> ops(const std::string& domain) const;

 private:
  std::map<std::pair<std::string, std::string>, std::map<int64_t, OpFn>> table_;
};

// One per ops_*.cc file.
void RegisterElementwiseOps(OpRegistry& r);
void RegisterReduceOps(OpRegistry& r);
void RegisterMovementOps(OpRegistry& r);
void RegisterIndexOps(OpRegistry& r);
void RegisterNnOps(OpRegistry& r);
void RegisterMiscOps(OpRegistry& r);
void RegisterResizeOps(OpRegistry& r);
void RegisterQuantOps(OpRegistry& r);
void RegisterRnnOps(OpRegistry& r);
void RegisterControlFlowOps(OpRegistry& r);

// Shared helpers of the op families.
int NormAxis(int64_t axis, int64_t ndim, const OpContext& ctx);  // negative axes count from the end
// NormAxis for an axis whose dim the op reads (x.shape()[axis]): a scalar has none, so it fails.
int NormDimAxis(int64_t axis, const Tensor& x, const OpContext& ctx);
Tensor ConstLike(const Tensor& like, double value, DType dtype);  // a 0-d constant on like's device
std::vector<Tensor> One(Tensor t);

}  // namespace tg::onnx

#endif  // TG_FRONTEND_ONNX_OP_REGISTRY_H_
