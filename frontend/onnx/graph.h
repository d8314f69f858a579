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

struct Node {
  std::string op;
  std::string domain;   // "" for ai.onnx
  int64_t opset = 1;    // the model's version of |domain|
  std::string name;     // may be empty; described() makes one up
  std::vector<std::string> inputs;   // "" = an absent optional input
  std::vector<std::string> outputs;  // "" = an output the model does not want
  std::map<std::string, AttrValue> attrs;
  size_t index = 0;     // position in its graph, for messages
  std::string described() const;  // `node 3 "conv1" (Conv)`
};

// A constant known on the host: an initializer or Constant whose ints ops like Reshape read without
// running a kernel.
using HostInts = std::vector<int64_t>;

struct Graph {
  std::string name;
  std::vector<Node> nodes;
  std::map<std::string, Tensor> initializers;
  std::map<std::string, HostInts> host_ints;  // integer initializers (and small Constants) as host values
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
