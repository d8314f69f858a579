// tg::onnx::Model: load() parses once; run() binds inputs (checking dtypes and dims, binding symbolic
// dims), then walks the nodes in order, dispatching each through OpRegistry with its model's opset.
#include <algorithm>
#include <atomic>
#include <fstream>
#include <set>
#include <sstream>

#include "absl/container/flat_hash_map.h"
#include "frontend/devices.h"
#include "frontend/host_effects.h"
#include "frontend/load_budget.h"
#include "frontend/onnx/graph.h"
#include "frontend/onnx/host_fold.h"
#include "frontend/onnx/onnx.h"
#include "frontend/onnx/onnx_tensor.h"
#include "frontend/onnx/op_registry.h"
#include "frontend/onnx/trace_cache.h"
#include "onnx/onnx_pb.h"

namespace tg::onnx {

struct Model::Impl {
  ParsedModel parsed;
  std::string device;
  mutable TraceCache traces;  // a run's graph, for the next run of the same input signature
  mutable std::atomic<uint64_t> imported{0};
};

namespace {

// The values visible while a graph runs: its own (inputs and node outputs, which shadow its
// initializers), its initializers read in place from the graph (a run copies none of them), then (for
// If branches and loop bodies) the enclosing graph's. Hash maps: a model's run looks a name up for
// every input of every node.
struct Scope {
  const Scope* outer = nullptr;
  const Graph* graph = nullptr;
  absl::flat_hash_map<std::string, Tensor> values;
  absl::flat_hash_map<std::string, HostValues> host;
  const Tensor* find(const std::string& name) const {
    for (const Scope* s = this; s != nullptr; s = s->outer) {
      if (auto it = s->values.find(name); it != s->values.end()) return &it->second;
      if (s->graph == nullptr) continue;
      if (auto it = s->graph->initializers.find(name); it != s->graph->initializers.end()) return &it->second;
    }
    return nullptr;
  }
  const HostValues* find_host(const std::string& name) const {
    for (const Scope* s = this; s != nullptr; s = s->outer) {
      if (auto it = s->host.find(name); it != s->host.end()) return &it->second;
      if (s->values.contains(name)) return nullptr;  // shadowed by a value without host values
      if (s->graph == nullptr || !s->graph->initializers.count(name)) continue;
      auto it = s->graph->host_values.find(name);
      return it == s->graph->host_values.end() ? nullptr : &it->second;
    }
    return nullptr;
  }
};

std::vector<Tensor> RunGraph(const Graph& g, Scope& scope, const std::string& device);

void RunNode(const Node& node, Scope& scope, const std::string& device) {
  std::vector<std::optional<Tensor>> inputs;
  std::vector<const HostValues*> host;
  for (const std::string& name : node.inputs) {
    if (name.empty()) {
      inputs.emplace_back();
      host.push_back(nullptr);
      continue;
    }
    const Tensor* t = scope.find(name);
    if (t == nullptr) throw Error("input \"" + name + "\" is not produced by any earlier node, initializer or graph input");
    inputs.emplace_back(*t);
    host.push_back(scope.find_host(name));
  }
  std::string why;
  OpFn fn = OpRegistry::Get().find(node.domain, node.op, node.opset, &why);
  if (fn == nullptr) throw Error("unsupported op: " + why);
  OpContext ctx(node, std::move(inputs), std::move(host), device,
                [&](const Graph& sub, const std::vector<Tensor>& bound) {
                  if (bound.size() > sub.inputs.size())
                    throw Error("the subgraph declares " + std::to_string(sub.inputs.size()) + " inputs but is given " +
                                std::to_string(bound.size()));
                  // Bound inputs shadow the subgraph's initializers and the enclosing scopes' names.
                  Scope inner{&scope, nullptr, {}, {}};
                  for (size_t i = 0; i < bound.size(); ++i) inner.values.insert_or_assign(sub.inputs[i].name, bound[i]);
                  return RunGraph(sub, inner, device);
                });
  std::vector<Tensor> outs = fn(ctx);
  for (size_t i = 0; i < node.outputs.size(); ++i) {
    if (node.outputs[i].empty()) continue;
    if (i >= outs.size())
      throw Error("output " + std::to_string(i) + " (\"" + node.outputs[i] + "\") is not produced by this op");
    scope.values.insert_or_assign(node.outputs[i], outs[i]);
    scope.host.erase(node.outputs[i]);
    if (auto h = ctx.host_outputs().find(i); h != ctx.host_outputs().end()) scope.host[node.outputs[i]] = h->second;
    else if (std::optional<HostValues> folded = FoldOnHost(ctx, outs[i])) scope.host[node.outputs[i]] = *std::move(folded);
  }
}

std::vector<Tensor> RunGraph(const Graph& g, Scope& scope, const std::string& device) {
  scope.graph = &g;  // an input the caller gave under an initializer's name overrides it (Scope::find)
  for (const Node& node : g.nodes) {
    try {
      RunNode(node, scope, device);
    } catch (const Error& e) {
      std::string msg = e.what();
      if (msg.rfind("onnx: ", 0) == 0) throw;  // already names its node (a nested subgraph's)
      throw Error("onnx: " + node.described() + ": " + msg);
    } catch (const std::exception& e) {
      throw Error("onnx: " + node.described() + ": " + e.what());
    }
  }
  std::vector<Tensor> outs;
  for (const ValueInfo& o : g.outputs) {
    const Tensor* t = scope.find(o.name);
    if (t == nullptr) throw Error("onnx: graph output \"" + o.name + "\" is never produced");
    outs.push_back(*t);
  }
  return outs;
}

// Checks |t| against the declaration |v| and binds its symbolic dims in |dims|.
void BindInput(const ValueInfo& v, const Tensor& t, std::map<std::string, int64_t>& dims) {
  if (v.kind != "tensor")
    throw Error("onnx: input \"" + v.name + "\" is a " + v.kind + "; tinygrad-cc runs tensor inputs only");
  if (t.dtype() != v.dtype)
    throw Error("onnx: input \"" + v.name + "\" must be " + v.dtype.name() + ", got " + t.dtype().name());
  if (!v.has_shape) return;
  if (t.ndim() != static_cast<int64_t>(v.shape.size()))
    throw Error("onnx: input \"" + v.name + "\" must have rank " + std::to_string(v.shape.size()) + ", got shape " +
                ShapeString(t.shape()));
  for (size_t i = 0; i < v.shape.size(); ++i) {
    const Dim& d = v.shape[i];
    int64_t got = t.shape()[i];
    if (!d.is_symbolic() && d.value != got)
      throw Error("onnx: input \"" + v.name + "\" dim " + std::to_string(i) + " must be " + std::to_string(d.value) +
                  ", got shape " + ShapeString(t.shape()));
    if (d.is_symbolic() && !d.param.empty()) {
      auto [it, fresh] = dims.emplace(d.param, got);
      if (!fresh && it->second != got)
        throw Error("onnx: input \"" + v.name + "\" dim " + std::to_string(i) + " is \"" + d.param + "\" = " +
                    std::to_string(got) + ", but another input bound \"" + d.param + "\" to " + std::to_string(it->second));
    }
  }
}

std::string DirName(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
}

std::string ReadFile(const std::string& path, const char* what) {
  std::ifstream f(path, std::ios::binary | std::ios::ate);
  if (!f) throw Error(std::string("onnx: cannot open ") + what + " " + path);
  std::streamoff size = f.tellg();
  CheckLoadBudget("onnx: " + path, std::string("the ") + what + " file", static_cast<uint64_t>(std::max<std::streamoff>(size, 0)));
  f.seekg(0);
  std::string bytes(static_cast<size_t>(std::max<std::streamoff>(size, 0)), '\0');
  f.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (f.gcount() != static_cast<std::streamsize>(bytes.size()))
    throw Error(std::string("onnx: cannot read ") + what + " " + path);
  return bytes;
}

}  // namespace

const std::vector<ValueInfo>& Model::inputs() const { return impl_->parsed.graph->inputs; }
const std::vector<ValueInfo>& Model::outputs() const { return impl_->parsed.graph->outputs; }
const std::string& Model::device() const { return impl_->device; }

int64_t Model::opset(std::string_view domain) const {
  auto it = impl_->parsed.opsets.find(domain == "ai.onnx" ? "" : std::string(domain));
  return it == impl_->parsed.opsets.end() ? 0 : it->second;
}

Model::RunCounts Model::run_counts() const { return {impl_->imported.load(), impl_->traces.reused()}; }

std::vector<Tensor> Model::run_in_order(const std::vector<Tensor>& inputs) const {
  if (inputs.size() != this->inputs().size())
    throw Error("onnx: the model takes " + std::to_string(this->inputs().size()) + " inputs, got " +
                std::to_string(inputs.size()));
  std::map<std::string, Tensor> feed;
  for (size_t i = 0; i < inputs.size(); ++i) feed.emplace(this->inputs()[i].name, inputs[i]);
  std::map<std::string, Tensor> out = run(feed);
  std::vector<Tensor> ordered;
  for (const ValueInfo& v : outputs()) ordered.push_back(out.at(v.name));
  return ordered;
}

std::map<std::string, Tensor> Model::run(const std::map<std::string, Tensor>& inputs) const {
  const Graph& g = *impl_->parsed.graph;
  Scope scope;
  std::map<std::string, int64_t> dims;
  std::set<std::string> declared;
  for (const ValueInfo& v : g.inputs) {
    declared.insert(v.name);
    auto it = inputs.find(v.name);
    if (it == inputs.end()) {
      std::string names;
      for (const ValueInfo& w : g.inputs) names += (names.empty() ? "" : ", ") + w.name;
      throw Error("onnx: input \"" + v.name + "\" is missing (the model's inputs: " + names + ")");
    }
    BindInput(v, it->second, dims);
    scope.values.insert_or_assign(v.name, it->second.device() == impl_->device ? it->second : it->second.to(impl_->device));
  }
  for (const auto& [name, t] : inputs)
    if (!declared.count(name)) {
      if (!g.initializers.count(name)) throw Error("onnx: the model has no input named \"" + name + "\"");
      scope.values.insert_or_assign(name, t.to(impl_->device));  // overriding an initializer is allowed
    }
  // Inputs overriding initializers by name are not part of a trace's signature: such runs import.
  const bool traceable = inputs.size() == g.inputs.size();
  std::vector<Tensor> given;
  for (const ValueInfo& v : g.inputs) given.push_back(scope.values.at(v.name));
  std::optional<std::vector<Tensor>> reused = traceable ? impl_->traces.Reuse(given) : std::nullopt;
  std::vector<Tensor> outs;
  if (reused) {
    outs = *std::move(reused);
  } else {
    const uint64_t effects = HostEffectsOnThisThread();
    outs = RunGraph(g, scope, impl_->device);
    ++impl_->imported;
    if (traceable && HostEffectsOnThisThread() == effects) impl_->traces.Keep(given, outs);
  }
  std::map<std::string, Tensor> result;
  for (size_t i = 0; i < g.outputs.size(); ++i) result.insert_or_assign(g.outputs[i].name, outs[i]);
  return result;
}

Model load_from_bytes(std::string_view bytes, const std::string& base_dir, std::string_view device) {
  auto impl = std::make_shared<Model::Impl>();
  impl->device = device.empty() ? default_device() : std::string(device);
  try {
    impl->parsed = ParseModel(bytes, base_dir, impl->device);
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {  // a damaged file must still surface as tg::Error
    throw Error(std::string("onnx: malformed model: ") + e.what());
  }
  Model m;
  m.impl_ = std::move(impl);
  return m;
}

Model load(const std::string& path, std::string_view device) {
  return load_from_bytes(ReadFile(path, "model"), DirName(path), device);
}

Tensor load_tensor(const std::string& path, std::string_view device) {
  std::string bytes = ReadFile(path, "tensor file");
  ::onnx::TensorProto proto;
  if (!proto.ParseFromString(bytes)) throw Error("onnx: " + path + " is not a serialized TensorProto");
  return TensorFromProto(proto, DirName(path), device.empty() ? default_device() : std::string(device));
}

}  // namespace tg::onnx
