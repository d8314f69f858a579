// tg::onnx end to end on models built in the test: inputs()/outputs() with symbolic dims, run() with
// dims bound per call, initializers from raw_data, typed fields and external files, If branches,
// opset-versioned dispatch, and the errors a user meets (missing input, bad dims, unsupported op).
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>

#include "frontend/onnx/onnx.h"
#include "frontend/tg.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/frontend/scoped_env.h"
#include "tests/onnx/model_builder.h"

namespace tg {
namespace {

using ::testing::Each;
using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;
using ::testing::Pointwise;
using ::testing::FloatNear;
using namespace tg::onnx_test;

std::string TempDir() {
  const char* d = std::getenv("TEST_TMPDIR");
  return d ? d : "/tmp";
}

std::string Bytes(const ::onnx::ModelProto& m) { return m.SerializeAsString(); }

// y = relu(x @ W + b): x ("batch", 3); W from raw_data, b from float_data.
::onnx::ModelProto Linear() {
  ::onnx::GraphProto g;
  *g.add_input() = Value("x", ::onnx::TensorProto::FLOAT, {-1, 3}, {"batch"});
  *g.add_output() = Value("y", ::onnx::TensorProto::FLOAT, {-1, 2}, {"batch"});
  *g.add_initializer() = FloatTensor("W", {3, 2}, {1, -1, 2, 0, 0, 1});
  *g.add_initializer() = FloatTensor("b", {2}, {0.5f, -4}, /*raw=*/false);
  *g.add_node() = Node("MatMul", {"x", "W"}, {"xw"});
  *g.add_node() = Node("Add", {"xw", "b"}, {"z"});
  *g.add_node() = Node("Relu", {"z"}, {"y"});
  return Model(g);
}

TEST(OnnxModel, DescribesInputsAndOutputs) {
  onnx::Model m = onnx::load_from_bytes(Bytes(Linear()));
  ASSERT_EQ(m.inputs().size(), 1u);  // initializers are not inputs
  EXPECT_EQ(m.inputs()[0].name, "x");
  EXPECT_EQ(m.inputs()[0].dtype, dtypes::float32);
  ASSERT_EQ(m.inputs()[0].shape.size(), 2u);
  EXPECT_TRUE(m.inputs()[0].shape[0].is_symbolic());
  EXPECT_EQ(m.inputs()[0].shape[0].param, "batch");
  EXPECT_EQ(m.inputs()[0].shape[1].value, 3);
  EXPECT_EQ(m.outputs()[0].name, "y");
  EXPECT_EQ(m.opset(), 13);
  EXPECT_EQ(m.opset("ai.onnx"), 13);
}

TEST(OnnxModel, RunsWithDynamicBatch) {
  onnx::Model m = onnx::load_from_bytes(Bytes(Linear()));
  Tensor x1 = Tensor::from_vector<float>({1, 2, 3}, Shape{1, 3});
  EXPECT_THAT(m.run({{"x", x1}}).at("y").to_vector<float>(), ElementsAre(5.5f, 0.f));  // (5+.5, relu(2-4))
  Tensor x2 = Tensor::from_vector<float>({1, 2, 3, 0, 0, 10}, Shape{2, 3});
  Tensor y2 = m.run({{"x", x2}}).at("y");
  EXPECT_EQ(y2.shape(), (Shape{2, 2}));
  EXPECT_THAT(y2.to_vector<float>(), ElementsAre(5.5f, 0.f, 0.5f, 6.f));
}

// An initializer given as an input overrides the model's value for that run only, in kernels and where
// an op reads its values on the host (Reshape's shape); the next run without it uses the model's again.
TEST(OnnxModel, AnInitializerGivenAsAnInputOverridesItForThatRun) {
  ::onnx::GraphProto g;
  *g.add_input() = Value("x", ::onnx::TensorProto::FLOAT, {2, 3});
  *g.add_output() = Value("y", ::onnx::TensorProto::FLOAT, {});
  *g.add_initializer() = FloatTensor("b", {1}, {10});
  *g.add_initializer() = Int64Tensor("shape", {2}, {3, 2});
  *g.add_node() = Node("Add", {"x", "b"}, {"xb"});
  *g.add_node() = Node("Reshape", {"xb", "shape"}, {"y"});
  onnx::Model m = onnx::load_from_bytes(Bytes(Model(g)));
  Tensor x = Tensor::from_vector<float>({0, 1, 2, 3, 4, 5}, Shape{2, 3});
  Tensor y = m.run({{"x", x}}).at("y");
  EXPECT_EQ(y.shape(), (Shape{3, 2}));
  EXPECT_THAT(y.to_vector<float>(), ElementsAre(10, 11, 12, 13, 14, 15));
  Tensor overridden = m.run({{"x", x}, {"b", Tensor::from_vector<float>({-1}, Shape{1})},
                             {"shape", Tensor::from_vector<int64_t>({6}, Shape{1})}})
                          .at("y");
  EXPECT_EQ(overridden.shape(), (Shape{6}));
  EXPECT_THAT(overridden.to_vector<float>(), ElementsAre(-1, 0, 1, 2, 3, 4));
  Tensor again = m.run({{"x", x}}).at("y");
  EXPECT_EQ(again.shape(), (Shape{3, 2}));
  EXPECT_THAT(again.to_vector<float>(), ElementsAre(10, 11, 12, 13, 14, 15));
}

TEST(OnnxModel, InputErrorsNameTheInput) {
  onnx::Model m = onnx::load_from_bytes(Bytes(Linear()));
  try {
    m.run({});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("input \"x\" is missing"));
  }
  try {
    m.run({{"x", Tensor::zeros({2, 4})}});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("dim 1 must be 3"));
  }
  EXPECT_THROW(m.run({{"x", Tensor::zeros({2, 3}, dtypes::int32)}}), Error);
}

// Ops that read the dim of their axis need data of rank >= 1; a scalar used to read dim 0 past the end
// of an empty shape (Gather's case found by onnx_fuzzer under UBSan). Each op on scalar data.
TEST(OnnxModel, AxisOpsOnAScalarAreErrors) {
  struct Case {
    const char* op;
    std::vector<std::string> extra_inputs;  // initializers below, after the scalar "x"
    std::vector<std::pair<std::string, int64_t>> attrs;
  };
  const Case cases[] = {
      {"Gather", {"i"}, {}},         {"GatherElements", {"i"}, {}}, {"ScatterElements", {"i", "u"}, {}},
      {"Compress", {"b"}, {{"axis", 0}}}, {"Split", {}, {}},       {"ArgMax", {}, {{"select_last_index", 1}}},
  };
  for (const Case& k : cases) {
    ::onnx::GraphProto g;
    *g.add_input() = Value("x", ::onnx::TensorProto::FLOAT, {});
    *g.add_output() = Value("y", ::onnx::TensorProto::FLOAT, {});
    *g.add_initializer() = Int64Tensor("i", {2}, {0, -1});
    *g.add_initializer() = FloatTensor("u", {2}, {1, 2});
    *g.add_initializer() = Int64Tensor("b", {1}, {1});
    std::vector<std::string> inputs = {"x"};
    inputs.insert(inputs.end(), k.extra_inputs.begin(), k.extra_inputs.end());
    ::onnx::NodeProto node = Node(k.op, inputs, {"y"}, "op");
    for (const auto& [name, v] : k.attrs) IntAttr(node, name, v);
    *g.add_node() = node;
    onnx::Model m = onnx::load_from_bytes(Bytes(Model(g)));
    try {
      m.run({{"x", Tensor::full({}, 1.0)}});
      ADD_FAILURE() << k.op << ": no error";
    } catch (const Error& e) {
      EXPECT_THAT(e.what(), HasSubstr("rank >= 1")) << k.op;
    }
  }
}

TEST(OnnxModel, SymbolicDimBoundConsistently) {
  ::onnx::GraphProto g;
  *g.add_input() = Value("a", ::onnx::TensorProto::FLOAT, {-1}, {"n"});
  *g.add_input() = Value("b", ::onnx::TensorProto::FLOAT, {-1}, {"n"});
  *g.add_output() = Value("c", ::onnx::TensorProto::FLOAT, {-1}, {"n"});
  *g.add_node() = Node("Add", {"a", "b"}, {"c"});
  onnx::Model m = onnx::load_from_bytes(Bytes(Model(g)));
  EXPECT_THAT(m.run({{"a", Tensor::ones({2})}, {"b", Tensor::ones({2})}}).at("c").to_vector<float>(), ElementsAre(2, 2));
  try {
    m.run({{"a", Tensor::ones({2})}, {"b", Tensor::ones({3})}});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("\"n\""));
  }
}

TEST(OnnxModel, ExternalDataBesideTheModel) {
  ::onnx::ModelProto model = Linear();
  auto* w = model.mutable_graph()->mutable_initializer(0);
  std::string payload = w->raw_data();
  w->clear_raw_data();
  w->set_data_location(::onnx::TensorProto::EXTERNAL);
  auto add = [&](const char* k, const std::string& v) {
    auto* e = w->add_external_data();
    e->set_key(k);
    e->set_value(v);
  };
  add("location", "weights.bin");
  add("offset", "16");
  add("length", std::to_string(payload.size()));
  std::string dir = TempDir();
  std::ofstream(dir + "/weights.bin", std::ios::binary) << std::string(16, 'x') << payload;
  std::ofstream(dir + "/linear.onnx", std::ios::binary) << model.SerializeAsString();
  onnx::Model m = onnx::load(dir + "/linear.onnx");
  EXPECT_THAT(m.run({{"x", Tensor::from_vector<float>({1, 2, 3}, Shape{1, 3})}}).at("y").to_vector<float>(),
              ElementsAre(5.5f, 0.f));
  // From bytes there is no directory to look in: a clear error, not a guess.
  try {
    onnx::load_from_bytes(model.SerializeAsString());
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("weights.bin"));
  }
}

// out = cond ? x * 2 : x + 1, the branches reading x from the enclosing graph.
TEST(OnnxModel, IfRunsTheChosenBranch) {
  ::onnx::GraphProto then_g, else_g, g;
  *then_g.add_initializer() = FloatTensor("two", {}, {2});
  *then_g.add_node() = Node("Mul", {"x", "two"}, {"t"});
  *then_g.add_output() = Value("t", ::onnx::TensorProto::FLOAT, {2});
  *else_g.add_initializer() = FloatTensor("one", {}, {1});
  *else_g.add_node() = Node("Add", {"x", "one"}, {"e"});
  *else_g.add_output() = Value("e", ::onnx::TensorProto::FLOAT, {2});
  *g.add_input() = Value("cond", ::onnx::TensorProto::BOOL, {});
  *g.add_input() = Value("x", ::onnx::TensorProto::FLOAT, {2});
  *g.add_output() = Value("out", ::onnx::TensorProto::FLOAT, {2});
  ::onnx::NodeProto n = Node("If", {"cond"}, {"out"});
  for (auto [name, sub] : {std::pair{"then_branch", &then_g}, std::pair{"else_branch", &else_g}}) {
    auto* a = n.add_attribute();
    a->set_name(name);
    a->set_type(::onnx::AttributeProto::GRAPH);
    *a->mutable_g() = *sub;
  }
  *g.add_node() = n;
  onnx::Model m = onnx::load_from_bytes(Bytes(Model(g)));
  Tensor x = Tensor::from_vector<float>({3, 4});
  auto run = [&](bool c) { return m.run({{"cond", Tensor::from_vector<bool>({c}, Shape{})}, {"x", x}}).at("out").to_vector<float>(); };
  EXPECT_THAT(run(true), ElementsAre(6, 8));
  EXPECT_THAT(run(false), ElementsAre(4, 5));
}

// Softmax changed meaning at opset 13: before, it flattened to 2-D from |axis| (default 1).
TEST(OnnxModel, DispatchFollowsTheModelsOpset) {
  ::onnx::GraphProto g;
  *g.add_input() = Value("x", ::onnx::TensorProto::FLOAT, {1, 2, 2});
  *g.add_output() = Value("y", ::onnx::TensorProto::FLOAT, {1, 2, 2});
  *g.add_node() = Node("Softmax", {"x"}, {"y"});
  Tensor x = Tensor::from_vector<float>({0, 0, 0, 0}, Shape{1, 2, 2});
  auto y11 = onnx::load_from_bytes(Bytes(Model(g, 11))).run({{"x", x}}).at("y").to_vector<float>();
  auto y13 = onnx::load_from_bytes(Bytes(Model(g, 13))).run({{"x", x}}).at("y").to_vector<float>();
  EXPECT_THAT(y11, Pointwise(FloatNear(1e-6), std::vector<float>{.25f, .25f, .25f, .25f}));
  EXPECT_THAT(y13, Pointwise(FloatNear(1e-6), std::vector<float>{.5f, .5f, .5f, .5f}));
}

TEST(OnnxModel, ShapeArithmeticStaysOnTheHost) {
  // Reshape(x, Concat(Gather(Shape(x), 0), [-1])): the pattern every exported model has.
  ::onnx::GraphProto g;
  *g.add_input() = Value("x", ::onnx::TensorProto::FLOAT, {-1, 2, 3}, {"n"});
  *g.add_output() = Value("y", ::onnx::TensorProto::FLOAT, {-1, 6}, {"n"});
  *g.add_initializer() = Int64Tensor("zero", {}, {0});
  *g.add_initializer() = Int64Tensor("minus1", {1}, {-1});
  *g.add_node() = Node("Shape", {"x"}, {"s"});
  *g.add_node() = Node("Gather", {"s", "zero"}, {"n0"});
  *g.add_node() = Node("Unsqueeze", {"n0", "zero"}, {"n1"});
  *g.add_node() = Node("Concat", {"n1", "minus1"}, {"shape"});
  IntAttr(*g.mutable_node(3), "axis", 0);
  *g.add_node() = Node("Reshape", {"x", "shape"}, {"y"});
  onnx::Model m = onnx::load_from_bytes(Bytes(Model(g)));
  EXPECT_EQ(m.run({{"x", Tensor::zeros({4, 2, 3})}}).at("y").shape(), (Shape{4, 6}));
}

// Resize's roi and scales and Reshape's shape as Constant nodes, the way exporters write them (PP-OCR
// does): their values are known on the host, so a tg::Jit captures the model without reading a tensor.
TEST(OnnxModel, ConstantsReadByOpsStayOnTheHostUnderJit) {
  ::onnx::GraphProto g;
  *g.add_input() = Value("x", ::onnx::TensorProto::FLOAT, {1, 1, 2, 2});
  *g.add_output() = Value("y", ::onnx::TensorProto::FLOAT, {1, 16});
  *g.add_node() = Node("Constant", {}, {"roi"});
  TensorAttr(*g.mutable_node(0), "value", FloatTensor("", {0}, {}));
  *g.add_node() = Node("Constant", {}, {"scales"});
  TensorAttr(*g.mutable_node(1), "value", FloatTensor("", {4}, {1, 1, 2, 2}));
  *g.add_node() = Node("Constant", {}, {"shape"});
  TensorAttr(*g.mutable_node(2), "value", Int64Tensor("", {2}, {1, -1}));
  *g.add_node() = Node("Resize", {"x", "roi", "scales"}, {"big"});
  *g.add_node() = Node("Reshape", {"big", "shape"}, {"y"});
  onnx::Model m = onnx::load_from_bytes(Bytes(Model(g, 11)));
  Jit jit([&](const std::vector<Tensor>& in) { return m.run_in_order(in); });
  Tensor x = Tensor::from_vector<float>({1, 2, 3, 4}, Shape{1, 1, 2, 2});
  std::vector<float> want = {1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4};  // nearest, 2x
  for (int call = 0; call < 3; ++call) {
    std::vector<Tensor> out = jit({x});
    EXPECT_THAT(out.at(0).to_vector<float>(), ElementsAreArray(want)) << "call " << call;
  }
  EXPECT_TRUE(jit.captured());
}

// The shape chains exporters write between a Shape and the Reshape reading it (PaddleOCR's classifier:
// Shape -> Cast -> Slice -> Cast, Concat with a cast constant; others: Gather, Mul, Unsqueeze) are
// evaluated on the host, so a tg::Jit captures the model without reading a tensor.
TEST(OnnxModel, ShapeChainsStayOnTheHostUnderJit) {
  ::onnx::GraphProto g;
  *g.add_input() = Value("x", ::onnx::TensorProto::FLOAT, {2, 3, 4, 4});
  *g.add_output() = Value("y", ::onnx::TensorProto::FLOAT, {2, 3});
  *g.add_output() = Value("z", ::onnx::TensorProto::FLOAT, {6, 16});
  *g.add_initializer() = Int64Tensor("zero", {1}, {0});
  *g.add_initializer() = Int64Tensor("one", {1}, {1});
  *g.add_initializer() = Int64Tensor("one_scalar", {}, {1});
  *g.add_initializer() = Int64Tensor("two", {}, {2});
  auto add = [&](::onnx::NodeProto n) { *g.add_node() = std::move(n); return g.mutable_node(g.node_size() - 1); };
  add(Node("GlobalAveragePool", {"x"}, {"pooled"}));
  add(Node("Shape", {"pooled"}, {"s"}));
  IntAttr(*add(Node("Cast", {"s"}, {"s32"})), "to", ::onnx::TensorProto::INT32);
  add(Node("Slice", {"s32", "zero", "one", "zero"}, {"batch"}));
  IntAttr(*add(Node("Cast", {"batch"}, {"batch64"})), "to", ::onnx::TensorProto::INT64);
  TensorAttr(*add(Node("Constant", {}, {"fill"})), "value", FloatTensor("", {1}, {-1}));
  IntAttr(*add(Node("Cast", {"fill"}, {"minus1"})), "to", ::onnx::TensorProto::INT64);
  IntAttr(*add(Node("Concat", {"batch64", "minus1"}, {"shape"})), "axis", 0);
  add(Node("Reshape", {"pooled", "shape"}, {"y"}));
  add(Node("Shape", {"x"}, {"xs"}));
  add(Node("Gather", {"xs", "one_scalar"}, {"channels"}));
  add(Node("Mul", {"channels", "two"}, {"rows"}));
  add(Node("Unsqueeze", {"rows", "zero"}, {"rows1"}));
  add(Node("Sub", {"zero", "one"}, {"rest"}));
  IntAttr(*add(Node("Concat", {"rows1", "rest"}, {"shape2"})), "axis", 0);
  add(Node("Reshape", {"x", "shape2"}, {"z"}));
  onnx::Model m = onnx::load_from_bytes(Bytes(Model(g, 13)));
  Jit jit([&](const std::vector<Tensor>& in) { return m.run_in_order(in); });
  std::vector<float> xd(2 * 3 * 4 * 4);
  for (size_t i = 0; i < xd.size(); ++i) xd[i] = static_cast<float>(i % 16);
  Tensor x = Tensor::from_vector<float>(xd, Shape{2, 3, 4, 4});
  for (int call = 0; call < 3; ++call) {
    std::vector<Tensor> out = jit({x});
    EXPECT_EQ(out.at(0).shape(), (Shape{2, 3})) << "call " << call;
    EXPECT_THAT(out.at(0).to_vector<float>(), Each(FloatNear(7.5f, 1e-5f))) << "call " << call;
    EXPECT_EQ(out.at(1).shape(), (Shape{6, 16})) << "call " << call;
  }
  EXPECT_TRUE(jit.captured());
}

TEST(OnnxModel, UnsupportedOpNamesOpDomainOpsetAndNode) {
  ::onnx::GraphProto g;
  *g.add_input() = Value("x", ::onnx::TensorProto::FLOAT, {2});
  *g.add_output() = Value("y", ::onnx::TensorProto::FLOAT, {2});
  ::onnx::NodeProto n = Node("FancyOp", {"x"}, {"y"}, "my_fancy_node");
  n.set_domain("com.example");
  *g.add_node() = n;
  ::onnx::ModelProto model = Model(g);
  auto* o = model.add_opset_import();
  o->set_domain("com.example");
  o->set_version(3);
  try {
    onnx::load_from_bytes(Bytes(model));
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("FancyOp"));
    EXPECT_THAT(e.what(), HasSubstr("com.example"));
    EXPECT_THAT(e.what(), HasSubstr("opset 3"));
    EXPECT_THAT(e.what(), HasSubstr("my_fancy_node"));
  }
}

// ConvTranspose with kernel == stride (PaddleOCR's upsampling head) is lowered as one matmul that scatters
// a kh x kw patch per input pixel; kernel 2 stride 1 takes the general lowering. Both must match the
// definition y[n, o, h*s + i, w*s + j] += x[n, c, h, w] * W[c, o, i, j], plus the bias.
std::vector<float> ConvTransposeByDefinition(const std::vector<float>& x, const std::vector<float>& w,
                                             const std::vector<float>& b, int64_t c, int64_t h, int64_t wd,
                                             int64_t o, int64_t k, int64_t s) {
  int64_t oh = (h - 1) * s + k, ow = (wd - 1) * s + k;
  std::vector<float> y(o * oh * ow);
  for (int64_t oc = 0; oc < o; ++oc)
    for (int64_t i = 0; i < oh * ow; ++i) y[oc * oh * ow + i] = b[oc];
  for (int64_t ic = 0; ic < c; ++ic)
    for (int64_t yy = 0; yy < h; ++yy)
      for (int64_t xx = 0; xx < wd; ++xx)
        for (int64_t oc = 0; oc < o; ++oc)
          for (int64_t i = 0; i < k; ++i)
            for (int64_t j = 0; j < k; ++j)
              y[(oc * oh + yy * s + i) * ow + xx * s + j] +=
                  x[(ic * h + yy) * wd + xx] * w[((ic * o + oc) * k + i) * k + j];
  return y;
}

TEST(OnnxModel, ConvTransposeWithKernelEqualToStrideMatchesItsDefinition) {
  const int64_t c = 3, h = 2, wd = 3, o = 2, k = 2;
  std::vector<float> x(c * h * wd), w(c * o * k * k), b = {0.25f, -1.5f};
  for (size_t i = 0; i < x.size(); ++i) x[i] = 0.5f * static_cast<float>(i % 7) - 1.0f;
  for (size_t i = 0; i < w.size(); ++i) w[i] = 0.25f * static_cast<float>(i % 5) - 0.5f;
  for (int64_t stride : {2, 1}) {  // 2: the matmul lowering; 1: the general one
    int64_t oh = (h - 1) * stride + k, ow = (wd - 1) * stride + k;
    ::onnx::GraphProto g;
    *g.add_input() = Value("x", ::onnx::TensorProto::FLOAT, {1, c, h, wd});
    *g.add_output() = Value("y", ::onnx::TensorProto::FLOAT, {1, o, oh, ow});
    *g.add_initializer() = FloatTensor("W", {c, o, k, k}, w);
    *g.add_initializer() = FloatTensor("B", {o}, b);
    ::onnx::NodeProto n = Node("ConvTranspose", {"x", "W", "B"}, {"y"});
    IntsAttr(n, "kernel_shape", {k, k});
    IntsAttr(n, "strides", {stride, stride});
    *g.add_node() = n;
    Tensor y = onnx::load_from_bytes(Bytes(Model(g, 11))).run({{"x", Tensor::from_vector(x, Shape{1, c, h, wd})}}).at("y");
    EXPECT_EQ(y.shape(), (Shape{1, o, oh, ow})) << "stride " << stride;
    EXPECT_THAT(y.to_vector<float>(), Pointwise(FloatNear(1e-5f), ConvTransposeByDefinition(x, w, b, c, h, wd, o, k, stride)))
        << "stride " << stride;
  }
}

TEST(OnnxModel, MissingFileAndNotAModel) {
  EXPECT_THROW(onnx::load(TempDir() + "/does_not_exist.onnx"), Error);
  EXPECT_THROW(onnx::load_from_bytes("this is not protobuf at all \xff\xff\xff"), Error);
}

// Sizes the file declares are checked against the load budget (TG_LOAD_MAX_BYTES) before anything is
// allocated: the model file's size, each initializer's dims, an external data range.
TEST(OnnxModel, DeclaredSizesPastTheLoadBudgetAreRefusedByField) {
  std::string bytes = Bytes(Linear());
  std::string path = TempDir() + "/budget.onnx";
  std::ofstream(path, std::ios::binary) << bytes;
  auto error = [](int budget, const std::function<void()>& load) {
    tg::testing::ScopedEnv env("TG_LOAD_MAX_BYTES", std::to_string(budget));
    try {
      load();
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("loaded");
  };
  EXPECT_THAT(error(10, [&] { onnx::load(path); }),
              HasSubstr("budget.onnx: the model file is " + std::to_string(bytes.size()) +
                        " bytes, more than the load budget of 10 bytes"));
  EXPECT_THAT(error(20, [&] { onnx::load_from_bytes(bytes); }),  // W is 3x2 float32: 24 bytes
              HasSubstr("tensor \"W\": float32 dims (3, 2) is 24 bytes, more than the load budget of 20 bytes"));
  EXPECT_EQ(error(24, [&] { onnx::load_from_bytes(bytes); }), "loaded");

  // External data whose declared length is not what the dims need is refused before it is read.
  std::ofstream(TempDir() + "/budget_w.bin", std::ios::binary) << std::string(64, '\0');
  ::onnx::ModelProto m = Linear();
  ::onnx::TensorProto* w = m.mutable_graph()->mutable_initializer(0);
  w->clear_raw_data();
  w->set_data_location(::onnx::TensorProto::EXTERNAL);
  for (auto [k, v] : {std::pair<const char*, const char*>{"location", "budget_w.bin"}, {"length", "48"}}) {
    auto* kv = w->add_external_data();
    kv->set_key(k);
    kv->set_value(v);
  }
  std::string ext = TempDir() + "/budget_ext.onnx";
  std::ofstream(ext, std::ios::binary) << Bytes(m);
  EXPECT_THAT(error(1 << 20, [&] { onnx::load(ext); }),
              HasSubstr("tensor \"W\": external data length is 48 bytes, its dims need 24"));
}

}  // namespace
}  // namespace tg
