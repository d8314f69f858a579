// The "tg-uops" dialect's renderer (plugins/abi/tg_uops.h): every line it writes is an op and dtype the
// dialect names, with sources that come before it; reduces are accumulators; what the dialect cannot
// say (vectors) is refused; and the dialect's tables agree with the compiler's names.
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "compiler/codegen/codegen.h"
#include "compiler/render/renderer.h"
#include "compiler/schedule/schedule.h"
#include "compiler/target.h"
#include "frontend/tg.h"
#include "gtest/gtest.h"
#include "ir/error.h"
#include "plugins/abi/tg_uops.h"

namespace tg::compiler {
namespace {

UOpRef OnlyKernelAst(const Tensor& t) {
  Schedule s = CreateSchedule({t.uop()}, {t.device()});
  EXPECT_EQ(s.items.size(), 1u);
  return s.items.at(0).ast;
}

// A CPU as a plugin would describe one that runs only the interpreter.
runtime::DeviceInfo InterpreterCpu() {
  runtime::DeviceInfo info;
  info.name = "CPU";
  info.device_type = TG_DEVICE_TYPE_CPU;
  info.compute_units = 2;
  info.preferred_vector_width = 8;
  info.source_dialects = {TG_UOPS_DIALECT};
  return info;
}

struct Line {
  std::string op, dtype, arg;
  std::vector<int> sources;
};

std::vector<Line> Parse(const std::string& text, std::string* header) {
  std::vector<std::string> lines = absl::StrSplit(text, '\n', absl::SkipEmpty());
  *header = lines.at(0);
  std::vector<Line> out;
  for (size_t i = 1; i < lines.size(); ++i) {
    std::istringstream in(lines[i]);
    Line l;
    in >> l.op >> l.dtype >> l.arg;
    for (int s; in >> s;) l.sources.push_back(s);
    out.push_back(l);
  }
  return out;
}

std::set<std::string> DialectOps() {
  return {
#define TG_TEST_OP(name) #name,
      TG_UOPS_OPS(TG_TEST_OP)
#undef TG_TEST_OP
  };
}

std::set<std::string> DialectDTypes() {
  return {
#define TG_TEST_DTYPE(name, bytes) #name,
      TG_UOPS_DTYPES(TG_TEST_DTYPE)
#undef TG_TEST_DTYPE
  };
}

std::vector<Line> Render(const Tensor& t, std::string* header) {
  GeneratedKernel k = GenerateKernel(OnlyKernelAst(t), InterpreterCpu());
  EXPECT_EQ(k.source.dialect, TG_UOPS_DIALECT);
  return Parse(k.source.source, header);
}

TEST(UopsRenderer, EveryLineIsADialectOpWithEarlierSources) {
  Tensor a = Tensor::randn({37, 53}), b = Tensor::randn({53});
  Tensor x = Tensor::from_vector<int32_t>({3, -7, 12, 5}, {4});
  std::vector<Tensor> kernels = {(a * b + 1).relu().sum({1}), (a > 0.1f).where(a, b * 2).max({0}),
                                 (x * 3 + 1) / 2 % 5, a.cast(dtypes::float16).exp2(),
                                 a.cast(dtypes::bfloat16).cast(dtypes::float32) * 2};
  for (const Tensor& t : kernels) {
    std::string header;
    std::vector<Line> lines = Render(t, &header);
    EXPECT_EQ(header.rfind("tg-uops " + std::to_string(TG_UOPS_VERSION) + " ", 0), 0u) << header;
    for (size_t i = 0; i < lines.size(); ++i) {
      EXPECT_TRUE(DialectOps().count(lines[i].op)) << "line " << i << ": " << lines[i].op;
      EXPECT_TRUE(DialectDTypes().count(lines[i].dtype)) << "line " << i << ": " << lines[i].dtype;
      for (int s : lines[i].sources) EXPECT_LT(s, static_cast<int>(i)) << "line " << i;
    }
  }
}

TEST(UopsRenderer, AReduceIsAnAccumulatorUpdatedInItsLoop) {
  std::string header;
  std::vector<Line> lines = Render(Tensor::randn({16, 300}).sum({1}), &header);
  int acc = -1, assign = -1, reduce = -1, open_ranges = 0, ranges_at_assign = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    const Line& l = lines[i];
    if (l.op == "RANGE") ++open_ranges;
    if (l.op == "END") --open_ranges;
    if (l.op == "DEFINE_ACC") acc = static_cast<int>(i);
    if (l.op == "ASSIGN") {
      assign = static_cast<int>(i);
      ranges_at_assign = open_ranges;
      EXPECT_EQ(l.sources.at(0), acc);
    }
    if (l.op == "REDUCE") {
      reduce = static_cast<int>(i);
      EXPECT_EQ(l.sources, std::vector<int>{acc});
    }
  }
  EXPECT_EQ(open_ranges, 0);
  ASSERT_GE(acc, 0);
  EXPECT_GT(assign, acc);
  EXPECT_GT(reduce, assign);
  EXPECT_GE(ranges_at_assign, 1);
}

TEST(UopsRenderer, RefusesVectorDtypes) {
  runtime::DeviceInfo cpu = InterpreterCpu();
  UOpRef ast = OnlyKernelAst(Tensor::randn({64, 64}) + 1);
  // The first tier's target makes no vectors; opts that ask for them anyway cannot be rendered.
  Target target = Target::For(cpu);
  target.vectors = true;
  try {
    GenerateKernel(ast, target, {{OptOp::kUpcast, 1, 4}});
    FAIL() << "a vector kernel rendered as tg-uops";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no vector dtypes"), std::string::npos) << e.what();
  }
}

TEST(UopsRenderer, DialectNamesAreTheCompilersNames) {
  std::set<std::string> compiler_ops;
  for (int i = 0; i < kNumOps; ++i) compiler_ops.insert(std::string(OpName(static_cast<Ops>(i))));
  for (const std::string& op : DialectOps()) EXPECT_TRUE(compiler_ops.count(op)) << op;
  EXPECT_EQ(DialectDTypes().size(), static_cast<size_t>(ScalarType::kFloat64) + 1);
}

TEST(UopsRenderer, ADeviceThatListsTheDialectHasAFirstTier) {
  runtime::DeviceInfo cpu = InterpreterCpu();
  cpu.source_dialects = {"c", TG_UOPS_DIALECT};
  Target target = Target::For(cpu);
  ASSERT_NE(target.first_tier(), nullptr);
  EXPECT_EQ(target.dialect(), "c");
  EXPECT_EQ(target.first_tier()->dialect(), TG_UOPS_DIALECT);
  EXPECT_FALSE(target.first_tier()->vectors);
  cpu.source_dialects = {"c"};
  EXPECT_EQ(Target::For(cpu).first_tier(), nullptr);
}

}  // namespace
}  // namespace tg::compiler
