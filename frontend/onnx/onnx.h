// tg::onnx: loads an .onnx file (ONNX ModelProto) and runs its graph as lazy tg::Tensor ops, so an
// imported model compiles, fuses and runs on every device like hand-written code (docs/architecture.md).
//
//   tg::onnx::Model m = tg::onnx::load("model.onnx");
//   for (const tg::onnx::ValueInfo& v : m.inputs()) ...          // names, dtypes, shapes ("batch" dims)
//   std::map<std::string, tg::Tensor> out = m.run({{"input", x}});
#ifndef TG_FRONTEND_ONNX_ONNX_H_
#define TG_FRONTEND_ONNX_ONNX_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "frontend/tensor.h"

namespace tg::onnx {

// One axis of a declared shape: a fixed size, or a symbolic name ("batch") bound by the first input
// that uses it at run(). Both empty (value -1, no name) means unknown.
struct Dim {
  int64_t value = -1;
  std::string param;
  bool is_symbolic() const { return value < 0; }
};

// A graph input or output as the model declares it.
struct ValueInfo {
  std::string name;
  DType dtype = dtypes::float32;
  bool has_shape = false;  // false: the model declares no shape (any rank is accepted)
  std::vector<Dim> shape;
  std::string kind = "tensor";  // "tensor"; "sequence", "optional", "map" are declared but not runnable
};

class Model {
 public:
  // Graph inputs the caller must give (initializers that double as inputs are left out: they have values).
  const std::vector<ValueInfo>& inputs() const;
  const std::vector<ValueInfo>& outputs() const;
  // The opset the model imports for |domain| ("" and "ai.onnx" are the default domain); 0 if not imported.
  int64_t opset(std::string_view domain = "") const;
  // The device initializers live on and inputs are moved to.
  const std::string& device() const;

  // Runs the graph once on |inputs| (by name). Any number of threads may run one Model at once, each
  // with its own inputs; a run never changes the model (docs/concurrency.md). Throws tg::Error when an input is missing, has the wrong
  // rank, a fixed dim that differs, a symbolic dim bound two ways, or when a node fails; the message
  // names the node. Returns every graph output, lazily: realize or read them to run the kernels.
  std::map<std::string, Tensor> run(const std::map<std::string, Tensor>& inputs) const;
  // The same with the inputs in inputs()'s order, returning the outputs in outputs()'s order: the model
  // as a tg::Jit function (tg::Jit jit([&](const auto& in) { return model.run_in_order(in); })).
  std::vector<Tensor> run_in_order(const std::vector<Tensor>& inputs) const;

  // How many runs imported the graph node by node, and how many reused the graph of the run before
  // with their inputs swapped in: a run of the same input signature, all inputs stored buffers, whose
  // import read no tensor data and drew no random numbers (frontend/onnx/trace_cache.h).
  struct RunCounts {
    uint64_t imported = 0;
    uint64_t reused = 0;
  };
  RunCounts run_counts() const;

  struct Impl;

 private:
  friend Model load_from_bytes(std::string_view, const std::string&, std::string_view);
  std::shared_ptr<const Impl> impl_;
};

// Parses |path| (external-data files are read from its directory). |device| "" = the default device.
// Throws tg::Error for an unreadable, truncated or malformed file, naming what was wrong.
Model load(const std::string& path, std::string_view device = "");
// The same from bytes already in memory; |base_dir| locates external data ("" = none allowed).
Model load_from_bytes(std::string_view bytes, const std::string& base_dir = "", std::string_view device = "");

// Realizes |t| and reads it as doubles whatever its dtype (float16/bfloat16 included), for printing and
// comparing outputs. int64 values past 2^53 round.
std::vector<double> values_as_double(const Tensor& t);

// Reads one serialized TensorProto (the input_0.pb / output_0.pb files of ONNX test data).
Tensor load_tensor(const std::string& path, std::string_view device = "");

}  // namespace tg::onnx

#endif  // TG_FRONTEND_ONNX_ONNX_H_
