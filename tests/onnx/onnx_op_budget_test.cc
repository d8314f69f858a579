// Ops whose output size comes from a tensor's values (ConstantOfShape, Expand, Tile, Range, Resize, Pad,
// OneHot, the windows) check that size against the load budget (TG_LOAD_MAX_BYTES) before they build
// anything: a hostile model is a tg::Error naming the node's op, the field and the size, not an
// allocation the machine cannot make. Under the budget the same ops run as before.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "frontend/onnx/onnx.h"
#include "frontend/tg.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/frontend/scoped_env.h"
#include "tests/onnx/model_builder.h"

namespace tg {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using namespace tg::onnx_test;

constexpr int64_t kBudget = 1 << 20;  // 1 MiB
constexpr int64_t kHuge = int64_t{1} << 20;

// One node |op| reading |inputs| (initializers, plus "x" as a 2x2 float graph input when named), writing y.
::onnx::ModelProto OneNode(const std::string& op, const std::vector<std::string>& inputs,
                           const std::vector<::onnx::TensorProto>& initializers,
                           const std::function<void(::onnx::NodeProto&)>& attrs = {}) {
  ::onnx::GraphProto g;
  for (const std::string& name : inputs)
    if (name == "x") *g.add_input() = Value("x", ::onnx::TensorProto::FLOAT, {2, 2}, {});
  *g.add_output() = Value("y", ::onnx::TensorProto::FLOAT, {}, {});
  for (const ::onnx::TensorProto& t : initializers) *g.add_initializer() = t;
  ::onnx::NodeProto n = Node(op, inputs, {"y"}, "n");
  if (attrs) attrs(n);
  *g.add_node() = n;
  return Model(g, 18);
}

// What running |m| once under the 1 MiB budget says: the error, or "ran".
std::string RunUnderBudget(const ::onnx::ModelProto& m) {
  tg::testing::ScopedEnv env("TG_LOAD_MAX_BYTES", std::to_string(kBudget));
  try {
    onnx::Model model = onnx::load_from_bytes(m.SerializeAsString());
    std::map<std::string, Tensor> in;
    for (const auto& i : model.inputs()) in.emplace(i.name, Tensor::ones({2, 2}));
    std::map<std::string, Tensor> out = model.run(in);
    out.at("y").realize();
    return "ran";
  } catch (const Error& e) {
    return e.what();
  }
}

// The error names the op, the field and the bytes, and says what is allowed.
auto Refused(const std::string& op, const std::string& field, uint64_t bytes) {
  return AllOf(HasSubstr("(" + op + ", opset 18)"), HasSubstr(field),
               HasSubstr(" is " + std::to_string(bytes) + " bytes, more than the load budget of " +
                         std::to_string(kBudget) + " bytes (TG_LOAD_MAX_BYTES"));
}

TEST(OnnxOpBudget, ConstantOfShape) {
  EXPECT_THAT(RunUnderBudget(OneNode("ConstantOfShape", {"s"}, {Int64Tensor("s", {2}, {kHuge, kHuge})})),
              Refused("ConstantOfShape", "input 0 (shape): (1048576, 1048576) float32", uint64_t(kHuge) * kHuge * 4));
  // A shape whose element count is past uint64 still reads as a refusal, never a wrapped small size.
  EXPECT_THAT(RunUnderBudget(OneNode("ConstantOfShape", {"s"}, {Int64Tensor("s", {3}, {kHuge << 20, kHuge << 20, 7})})),
              HasSubstr("more than the load budget"));
  EXPECT_THAT(RunUnderBudget(OneNode("ConstantOfShape", {"s"}, {Int64Tensor("s", {2}, {-1, 4})})),
              HasSubstr("input 0 (shape): (-1, 4) float32: dims must not be negative"));
  EXPECT_EQ(RunUnderBudget(OneNode("ConstantOfShape", {"s"}, {Int64Tensor("s", {2}, {256, 256})})), "ran");
}

TEST(OnnxOpBudget, Expand) {
  EXPECT_THAT(RunUnderBudget(OneNode("Expand", {"x", "s"}, {Int64Tensor("s", {3}, {kHuge, 2, 2})})),
              Refused("Expand", "input 1 (shape) broadcast with (2, 2): (1048576, 2, 2) float32", uint64_t(kHuge) * 16));
  EXPECT_EQ(RunUnderBudget(OneNode("Expand", {"x", "s"}, {Int64Tensor("s", {3}, {4, 2, 2})})), "ran");
}

TEST(OnnxOpBudget, Tile) {
  EXPECT_THAT(RunUnderBudget(OneNode("Tile", {"x", "r"}, {Int64Tensor("r", {2}, {kHuge, 1})})),
              Refused("Tile", "input 1 (repeats) times (2, 2): (2097152, 2) float32", uint64_t(kHuge) * 16));
  EXPECT_EQ(RunUnderBudget(OneNode("Tile", {"x", "r"}, {Int64Tensor("r", {2}, {3, 2})})), "ran");
}

TEST(OnnxOpBudget, Range) {
  auto range = [](int64_t limit) {
    return OneNode("Range", {"a", "b", "d"},
                   {Int64Tensor("a", {}, {0}), Int64Tensor("b", {}, {limit}), Int64Tensor("d", {}, {1})});
  };
  EXPECT_THAT(RunUnderBudget(range(kHuge * kHuge)),
              Refused("Range", "(start, limit, delta) = (0, 1099511627776, 1): (1099511627776) int64",
                      uint64_t(kHuge) * kHuge * 8));
  EXPECT_EQ(RunUnderBudget(range(1000)), "ran");
}

TEST(OnnxOpBudget, ResizeBySizesAndScales) {
  ::onnx::TensorProto scales;
  scales.set_name("sc");
  scales.set_data_type(::onnx::TensorProto::FLOAT);
  scales.add_dims(2);
  scales.add_float_data(1e6f);
  scales.add_float_data(1e6f);
  EXPECT_THAT(RunUnderBudget(OneNode("Resize", {"x", "", "sc"}, {scales})),
              Refused("Resize", "scales/sizes: (2000000, 2000000) float32", uint64_t(2000000) * 2000000 * 4));
  EXPECT_THAT(RunUnderBudget(OneNode("Resize", {"x", "", "", "sz"}, {Int64Tensor("sz", {2}, {kHuge, 3})})),
              Refused("Resize", "scales/sizes: (1048576, 3) float32", uint64_t(kHuge) * 12));
  EXPECT_EQ(RunUnderBudget(OneNode("Resize", {"x", "", "", "sz"}, {Int64Tensor("sz", {2}, {4, 6})})), "ran");
}

TEST(OnnxOpBudget, Pad) {
  EXPECT_THAT(RunUnderBudget(OneNode("Pad", {"x", "p"}, {Int64Tensor("p", {4}, {0, 0, kHuge, 0})})),
              Refused("Pad", "input 1 (pads) around (2, 2): (1048578, 2) float32", uint64_t(kHuge + 2) * 8));
  EXPECT_EQ(RunUnderBudget(OneNode("Pad", {"x", "p"}, {Int64Tensor("p", {4}, {1, 1, 1, 1})})), "ran");
}

TEST(OnnxOpBudget, OneHot) {
  auto one_hot = [](int64_t depth) {
    return OneNode("OneHot", {"i", "d", "v"},
                   {Int64Tensor("i", {2}, {0, 1}), Int64Tensor("d", {}, {depth}), Int64Tensor("v", {2}, {0, 1})});
  };
  EXPECT_THAT(RunUnderBudget(one_hot(kHuge)), Refused("OneHot", "input 1 (depth) 1048576: (2, 1048576) int64",
                                                      uint64_t(kHuge) * 16));
  EXPECT_EQ(RunUnderBudget(one_hot(10)), "ran");
}

TEST(OnnxOpBudget, Window) {
  EXPECT_THAT(RunUnderBudget(OneNode("HannWindow", {"n"}, {Int64Tensor("n", {}, {kHuge})})),
              Refused("HannWindow", "input 0 (size): (1048576) float64", uint64_t(kHuge) * 8));
  EXPECT_EQ(RunUnderBudget(OneNode("HannWindow", {"n"}, {Int64Tensor("n", {}, {16})})), "ran");
}

}  // namespace
}  // namespace tg
