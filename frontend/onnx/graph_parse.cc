// ModelProto -> Graph. Protobuf (libonnx_proto) does the wire format; this file turns its messages into
// our structs and checks what protobuf cannot: attribute kinds, names, opsets, ops we implement.
#include <set>

#include "frontend/onnx/graph.h"
#include "frontend/onnx/onnx_tensor.h"
#include "frontend/onnx/op_registry.h"
#include "onnx/onnx_pb.h"

namespace tg::onnx {
namespace {

std::string CanonicalDomain(const std::string& d) { return d == "ai.onnx" ? "" : d; }
std::string ShownDomain(const std::string& d) { return d.empty() ? "ai.onnx" : d; }

struct Context {
  const std::map<std::string, int64_t>& opsets;
  const std::string& base_dir;
  std::string device;
};

std::shared_ptr<const Graph> ParseGraph(const ::onnx::GraphProto& g, const Context& ctx, int depth);

ValueInfo ParseValueInfo(const ::onnx::ValueInfoProto& v) {
  ValueInfo info;
  info.name = v.name();
  const ::onnx::TypeProto* type = &v.type();
  if (type->has_sequence_type()) info.kind = "sequence";
  else if (type->has_optional_type()) info.kind = "optional";
  else if (type->has_map_type()) info.kind = "map";
  if (info.kind != "tensor" || !type->has_tensor_type()) {
    if (info.kind == "tensor" && !v.has_type()) info.kind = "tensor";
    else if (info.kind == "tensor") info.kind = "other";
    return info;
  }
  const auto& tt = type->tensor_type();
  try {
    info.dtype = DTypeFromOnnx(tt.elem_type());
  } catch (const Error&) {
    info.kind = "unsupported " + OnnxTypeName(tt.elem_type()) + " tensor";
  }
  if (tt.has_shape()) {
    info.has_shape = true;
    for (const auto& d : tt.shape().dim()) {
      Dim dim;
      if (d.has_dim_value() && d.dim_value() >= 0) dim.value = d.dim_value();
      else if (d.has_dim_param()) dim.param = d.dim_param();
      info.shape.push_back(dim);
    }
  }
  return info;
}

// |host| receives a small TENSOR attribute's values (see TensorFromProto).
AttrValue ParseAttr(const ::onnx::AttributeProto& a, const Context& ctx, int depth, HostValues* host) {
  using A = ::onnx::AttributeProto;
  A::AttributeType type = a.type();
  if (type == A::UNDEFINED) {  // IR version < 3 models leave type unset: infer it from the field present
    if (a.has_f()) type = A::FLOAT;
    else if (a.has_i()) type = A::INT;
    else if (a.has_s()) type = A::STRING;
    else if (a.has_t()) type = A::TENSOR;
    else if (a.has_g()) type = A::GRAPH;
    else if (a.floats_size()) type = A::FLOATS;
    else if (a.ints_size()) type = A::INTS;
    else if (a.strings_size()) type = A::STRINGS;
  }
  switch (type) {
    case A::FLOAT: return static_cast<double>(a.f());
    case A::INT: return static_cast<int64_t>(a.i());
    case A::STRING: return a.s();
    case A::TENSOR: return TensorFromProto(a.t(), ctx.base_dir, ctx.device, host);
    case A::GRAPH: return ParseGraph(a.g(), ctx, depth + 1);
    case A::FLOATS: return std::vector<double>(a.floats().begin(), a.floats().end());
    case A::INTS: return std::vector<int64_t>(a.ints().begin(), a.ints().end());
    case A::STRINGS: return std::vector<std::string>(a.strings().begin(), a.strings().end());
    default:
      throw Error("attribute \"" + a.name() + "\" has type " + A::AttributeType_Name(type) +
                  ", which is not supported (allowed: FLOAT, INT, STRING, TENSOR, GRAPH, FLOATS, INTS, STRINGS)");
  }
}

Node ParseNode(const ::onnx::NodeProto& n, size_t index, const Context& ctx, int depth) {
  Node node;
  node.op = n.op_type();
  node.domain = CanonicalDomain(n.domain());
  node.name = n.name();
  node.index = index;
  node.inputs.assign(n.input().begin(), n.input().end());
  node.outputs.assign(n.output().begin(), n.output().end());
  auto it = ctx.opsets.find(node.domain);
  node.opset = it != ctx.opsets.end() ? it->second : 1;
  try {
    if (node.op.empty()) throw Error("op_type is empty");
    for (const auto& a : n.attribute()) {
      HostValues host;
      node.attrs[a.name()] = ParseAttr(a, ctx, depth, &host);
      const Tensor* t = std::get_if<Tensor>(&node.attrs[a.name()]);
      if (t != nullptr && static_cast<int64_t>(host.size()) == t->numel()) node.host_attrs[a.name()] = std::move(host);
    }
    std::string why;
    if (OpRegistry::Get().find(node.domain, node.op, node.opset, &why) == nullptr)
      throw Error("unsupported op \"" + node.op + "\" (domain " + ShownDomain(node.domain) + ", opset " +
                  std::to_string(node.opset) + "): " + why);
  } catch (const Error& e) {
    throw Error("onnx: " + node.described() + ": " + e.what());
  }
  return node;
}

std::shared_ptr<const Graph> ParseGraph(const ::onnx::GraphProto& g, const Context& ctx, int depth) {
  if (depth > 32) throw Error("onnx: subgraphs are nested more than 32 deep");
  auto graph = std::make_shared<Graph>();
  graph->name = g.name();
  for (const auto& init : g.initializer()) {
    HostValues host;
    try {
      graph->initializers.insert_or_assign(init.name(), TensorFromProto(init, ctx.base_dir, ctx.device, &host));
    } catch (const Error& e) {
      throw Error(std::string("onnx: initializer of graph \"") + g.name() + "\": " + e.what());
    }
    if (static_cast<int64_t>(host.size()) == graph->initializers.at(init.name()).numel())
      graph->host_values[init.name()] = std::move(host);
  }
  for (const auto& v : g.input())
    if (!graph->initializers.count(v.name())) graph->inputs.push_back(ParseValueInfo(v));
  for (const auto& v : g.output()) graph->outputs.push_back(ParseValueInfo(v));
  for (int i = 0; i < g.node_size(); ++i) graph->nodes.push_back(ParseNode(g.node(i), i, ctx, depth));
  return graph;
}

}  // namespace

std::vector<int64_t> HostValues::as_ints() const {
  if (!is_float) return ints;
  std::vector<int64_t> out;
  for (double v : floats) out.push_back(static_cast<int64_t>(v));
  return out;
}

std::vector<double> HostValues::as_floats() const {
  if (is_float) return floats;
  return std::vector<double>(ints.begin(), ints.end());
}

std::string Node::described() const {
  return "node " + std::to_string(index) + (name.empty() ? "" : " \"" + name + "\"") + " (" + op +
         (domain.empty() ? "" : ", domain " + domain) + ", opset " + std::to_string(opset) + ")";
}

ParsedModel ParseModel(std::string_view bytes, const std::string& base_dir, std::string_view device) {
  if (bytes.size() > static_cast<size_t>(INT32_MAX))
    throw Error("onnx: the model is " + std::to_string(bytes.size()) +
                " bytes; protobuf reads at most 2 GiB (store large weights as external data)");
  ::onnx::ModelProto proto;
  if (!proto.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
    throw Error("onnx: not a valid ONNX model (protobuf ModelProto failed to parse " + std::to_string(bytes.size()) +
                " bytes: truncated or corrupt file?)");
  if (!proto.has_graph()) throw Error("onnx: the model has no graph (is this an ONNX ModelProto file?)");
  ParsedModel out;
  for (const auto& o : proto.opset_import()) out.opsets[CanonicalDomain(o.domain())] = o.version();
  if (proto.opset_import_size() == 0) out.opsets[""] = 1;  // IR version < 3: opset 1 is implied
  Context ctx{out.opsets, base_dir, std::string(device)};
  out.graph = ParseGraph(proto.graph(), ctx, 0);
  return out;
}

}  // namespace tg::onnx
