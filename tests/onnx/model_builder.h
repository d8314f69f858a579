// Test helper: builds small ONNX ModelProtos in C++ (no python, no files checked in), so the tests of
// tests/onnx stay hermetic and each shows the whole model it runs.
#ifndef TG_TESTS_ONNX_MODEL_BUILDER_H_
#define TG_TESTS_ONNX_MODEL_BUILDER_H_

#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "onnx/onnx_pb.h"

namespace tg::onnx_test {

// A value_info of a float/int tensor; dims < 0 become the symbolic names in |params| (in order).
inline ::onnx::ValueInfoProto Value(const std::string& name, int elem_type, const std::vector<int64_t>& dims,
                                    const std::vector<std::string>& params = {}) {
  ::onnx::ValueInfoProto v;
  v.set_name(name);
  auto* t = v.mutable_type()->mutable_tensor_type();
  t->set_elem_type(elem_type);
  auto* shape = t->mutable_shape();
  size_t p = 0;
  for (int64_t d : dims) {
    auto* dim = shape->add_dim();
    if (d >= 0) dim->set_dim_value(d);
    else dim->set_dim_param(params.at(p++));
  }
  return v;
}

inline ::onnx::TensorProto FloatTensor(const std::string& name, const std::vector<int64_t>& dims,
                                       const std::vector<float>& data, bool raw = true) {
  ::onnx::TensorProto t;
  t.set_name(name);
  t.set_data_type(::onnx::TensorProto::FLOAT);
  for (int64_t d : dims) t.add_dims(d);
  if (raw) t.set_raw_data(std::string(reinterpret_cast<const char*>(data.data()), data.size() * sizeof(float)));
  else for (float f : data) t.add_float_data(f);
  return t;
}

inline ::onnx::TensorProto Int64Tensor(const std::string& name, const std::vector<int64_t>& dims,
                                       const std::vector<int64_t>& data) {
  ::onnx::TensorProto t;
  t.set_name(name);
  t.set_data_type(::onnx::TensorProto::INT64);
  for (int64_t d : dims) t.add_dims(d);
  for (int64_t v : data) t.add_int64_data(v);
  return t;
}

inline ::onnx::NodeProto Node(const std::string& op, const std::vector<std::string>& inputs,
                              const std::vector<std::string>& outputs, const std::string& name = "") {
  ::onnx::NodeProto n;
  n.set_op_type(op);
  n.set_name(name);
  for (const auto& i : inputs) n.add_input(i);
  for (const auto& o : outputs) n.add_output(o);
  return n;
}

inline void IntAttr(::onnx::NodeProto& n, const std::string& name, int64_t v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::INT);
  a->set_i(v);
}

inline void IntsAttr(::onnx::NodeProto& n, const std::string& name, const std::vector<int64_t>& v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::INTS);
  for (int64_t e : v) a->add_ints(e);
}

inline void TensorAttr(::onnx::NodeProto& n, const std::string& name, ::onnx::TensorProto t) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::TENSOR);
  *a->mutable_t() = std::move(t);
}

inline ::onnx::ModelProto Model(::onnx::GraphProto graph, int64_t opset = 13) {
  ::onnx::ModelProto m;
  m.set_ir_version(8);
  auto* o = m.add_opset_import();
  o->set_domain("");
  o->set_version(opset);
  *m.mutable_graph() = std::move(graph);
  return m;
}

}  // namespace tg::onnx_test

#endif  // TG_TESTS_ONNX_MODEL_BUILDER_H_
