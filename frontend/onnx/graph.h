// The parsed form of an ONNX graph: nodes with typed attributes, initializers already tensors, and the
// opset versions each node dispatches on. model.cc builds it from protobuf once; run() walks it.
#ifndef TG_FRONTEND_ONNX_GRAPH_H_
#define TG_FRONTEND_ONNX_GRAPH_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "frontend/onnx/onnx.h"
#include "frontend/tensor.h"

namespace tg::onnx {

struct Graph;

// One attribute value; the alternative says which of ONNX's AttributeType it was.
using AttrValue = std::variant<double, int64_t, std::string, Tensor, std::shared_ptr<const Graph>,
                               std::vector<double>, std::vector<int64_t>, std::vector<std::string>>;

// A small constant known on the host (an initializer, a Constant, a Shape output). Ops that read an
// input's values as parameters (Reshape's shape, Slice's ends, Resize's scales) take them from here:
// no kernel runs and no device is read, which is also what lets a tg::Jit capture such a model.
struct HostValues {
  std::vector<int64_t> ints;   // an integer or bool tensor's values, exact (INT64_MAX ends survive)
  std::vector<double> floats;  // a float tensor's values
  bool is_float = false;
  size_t size() const { return is_float ? floats.size() : ints.size(); }
  std::vector<int64_t> as_ints() const;   // floats rounded toward zero, as ONNX's int reads do
  std::vector<double> as_floats() const;
  static HostValues Ints(std::vector<int64_t> v) { return {std::move(v), {}, false}; }
  static HostValues Floats(std::vector<double> v) { return {{}, std::move(v), true}; }
};

struct Node {
  std::string op;
  std::string domain;   // "" for ai.onnx
  int64_t opset = 1;    // the model's version of |domain|
  std::string name;     // may be empty; described() makes one up
  std::vector<std::string> inputs;   // "" = an absent optional input
  std::vector<std::string> outputs;  // "" = an output the model does not want
  std::map<std::string, AttrValue> attrs;
  std::map<std::string, HostValues> host_attrs;  // a small tensor attribute's values (Constant's value)
  size_t index = 0;     // position in its graph, for messages
  std::string described() const;  // `node 3 "conv1" (Conv)`
};

struct Graph {
  std::string name;
  std::vector<Node> nodes;
  std::map<std::string, Tensor> initializers;
  std::map<std::string, HostValues> host_values;  // small initializers' values on the host
  std::vector<ValueInfo> inputs;   // without the names that have initializers
  std::vector<ValueInfo> outputs;
};

// A whole model: its main graph and the opset it imports per domain ("" = ai.onnx).
struct ParsedModel {
  std::shared_ptr<const Graph> graph;
  std::map<std::string, int64_t> opsets;
};

// Parses serialized ModelProto bytes (graph_parse.cc). Checks every node's op against the registry, so an
// unsupported op fails here, naming op, domain, opset and node. Throws tg::Error on malformed input.
ParsedModel ParseModel(std::string_view bytes, const std::string& base_dir, std::string_view device);

}  // namespace tg::onnx

#endif  // TG_FRONTEND_ONNX_GRAPH_H_
