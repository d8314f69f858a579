// ONNX Loop and Scan on models built in the test: loop-carried values, scan outputs, a condition that ends
// the loop early, both scan directions, bodies reading the enclosing graph's names, and the errors.
#include <functional>
#include <string>

#include "frontend/onnx/onnx.h"
#include "frontend/tg.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/onnx/model_builder.h"

namespace tg {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using namespace tg::onnx_test;

constexpr int kFloat = ::onnx::TensorProto::FLOAT, kInt64 = ::onnx::TensorProto::INT64, kBool = ::onnx::TensorProto::BOOL;

::onnx::ValueInfoProto Unshaped(const std::string& name, int elem_type) {
  ::onnx::ValueInfoProto v;
  v.set_name(name);
  v.mutable_type()->mutable_tensor_type()->set_elem_type(elem_type);
  return v;
}

void GraphAttr(::onnx::NodeProto& n, const std::string& name, const ::onnx::GraphProto& g) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::GRAPH);
  *a->mutable_g() = g;
}

// Loop(M, cond, x) whose body adds the outer graph's "step" to x, keeps going while iteration_num < |last|
// (when given), and scans out every new x.
onnx::Model AddingLoop(const std::string& step_name, std::optional<int64_t> last) {
  ::onnx::GraphProto body, g;
  *body.add_input() = Unshaped("i", kInt64);
  *body.add_input() = Unshaped("cond_in", kBool);
  *body.add_input() = Unshaped("x_in", kFloat);
  *body.add_node() = Node("Add", {"x_in", step_name}, {"x_out"});
  *body.add_node() = Node("Identity", {"x_out"}, {"scanned"});
  if (last) {
    *body.add_initializer() = Int64Tensor("last", {}, {*last});
    *body.add_node() = Node("Less", {"i", "last"}, {"cond_out"});
  } else {
    *body.add_node() = Node("Identity", {"cond_in"}, {"cond_out"});
  }
  *body.add_output() = Unshaped("cond_out", kBool);
  *body.add_output() = Unshaped("x_out", kFloat);
  *body.add_output() = Unshaped("scanned", kFloat);
  *g.add_input() = Unshaped("M", kInt64);
  *g.add_input() = Unshaped("cond", kBool);
  *g.add_input() = Unshaped("x", kFloat);
  *g.add_initializer() = FloatTensor("step", {}, {1});
  *g.add_output() = Unshaped("x_final", kFloat);
  *g.add_output() = Unshaped("xs", kFloat);
  ::onnx::NodeProto loop = Node("Loop", {"M", "cond", "x"}, {"x_final", "xs"});
  GraphAttr(loop, "body", body);
  *g.add_node() = loop;
  return onnx::load_from_bytes(Model(g, 13).SerializeAsString());
}

std::map<std::string, Tensor> RunLoop(const onnx::Model& m, int64_t trips) {
  return m.run({{"M", Tensor::from_vector<int64_t>({trips}, Shape{})},
                {"cond", Tensor::from_vector<bool>({true}, Shape{})},
                {"x", Tensor::from_vector<float>({0, 10})}});
}

TEST(OnnxLoop, CarriesValuesAndScansThemOut) {
  auto out = RunLoop(AddingLoop("step", std::nullopt), 3);
  EXPECT_THAT(out.at("x_final").to_vector<float>(), ElementsAre(3, 13));
  EXPECT_EQ(out.at("xs").shape(), (Shape{3, 2}));
  EXPECT_THAT(out.at("xs").to_vector<float>(), ElementsAre(1, 11, 2, 12, 3, 13));
}

TEST(OnnxLoop, TheBodysConditionEndsIt) {
  auto out = RunLoop(AddingLoop("step", 1), 10);  // iterations 0 and 1; the second returns false
  EXPECT_THAT(out.at("x_final").to_vector<float>(), ElementsAre(2, 12));
  EXPECT_EQ(out.at("xs").shape(), (Shape{2, 2}));
}

TEST(OnnxLoop, ANameInNoScopeIsAnError) {
  onnx::Model m = AddingLoop("nowhere", std::nullopt);
  try {
    RunLoop(m, 2);
    FAIL() << "the body read a name no graph defines";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("input \"nowhere\" is not produced by any earlier node, initializer or graph input"));
  }
}

// Scan(s, x): s_t = s_{t-1} + x_t, scanning out every s_t; x is (steps 3, 2).
std::map<std::string, Tensor> RunScan(int64_t direction) {
  ::onnx::GraphProto body, g;
  *body.add_input() = Unshaped("s_in", kFloat);
  *body.add_input() = Unshaped("x_t", kFloat);
  *body.add_node() = Node("Add", {"s_in", "x_t"}, {"s_out"});
  *body.add_node() = Node("Identity", {"s_out"}, {"y_t"});
  *body.add_output() = Unshaped("s_out", kFloat);
  *body.add_output() = Unshaped("y_t", kFloat);
  *g.add_input() = Unshaped("s", kFloat);
  *g.add_input() = Unshaped("x", kFloat);
  *g.add_output() = Unshaped("s_final", kFloat);
  *g.add_output() = Unshaped("ys", kFloat);
  ::onnx::NodeProto scan = Node("Scan", {"s", "x"}, {"s_final", "ys"});
  GraphAttr(scan, "body", body);
  IntAttr(scan, "num_scan_inputs", 1);
  IntsAttr(scan, "scan_input_directions", {direction});
  *g.add_node() = scan;
  onnx::Model m = onnx::load_from_bytes(Model(g, 11).SerializeAsString());
  return m.run({{"s", Tensor::from_vector<float>({0, 0})}, {"x", Tensor::from_vector<float>({1, 2, 3, 4, 5, 6}, Shape{3, 2})}});
}

TEST(OnnxScan, RunningSumBothDirections) {
  auto fwd = RunScan(0);
  EXPECT_THAT(fwd.at("s_final").to_vector<float>(), ElementsAre(9, 12));
  EXPECT_THAT(fwd.at("ys").to_vector<float>(), ElementsAre(1, 2, 4, 6, 9, 12));
  auto rev = RunScan(1);
  EXPECT_THAT(rev.at("ys").to_vector<float>(), ElementsAre(5, 6, 8, 10, 9, 12));
}

}  // namespace
}  // namespace tg
