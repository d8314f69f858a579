// The wgsl renderer, checked as text (there is no WebGPU runtime here): a few kernels against checked-in
// golden files, plus structural checks (every buffer bound, entry point and workgroup size present).
// After an intended change, regenerate the goldens and review the diff:
//   ./bazelw run //tests/compiler:wgsl_renderer_test -- --update_golden
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <regex>
#include <sstream>

#include "compiler/codegen/codegen.h"
#include "compiler/render/wgsl_renderer.h"
#include "compiler/schedule/schedule.h"
#include "frontend/tg.h"
#include "gtest/gtest.h"

namespace tg::compiler {
namespace {

bool g_update = false;
constexpr char kGoldenDir[] = "tests/compiler/golden/wgsl/";

runtime::DeviceInfo WebGpu() {
  runtime::DeviceInfo d;
  d.name = "WEBGPU";
  d.source_dialects = {"wgsl"};
  d.max_group_threads = 256;  // WebGPU's default maxComputeInvocationsPerWorkgroup
  d.max_group_size = {256, 256, 64};
  return d;
}

// Inputs come from from_vector (buffers), so each tensor below is exactly one kernel.
Tensor Input(Shape shape) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return Tensor::from_vector<float>(std::vector<float>(static_cast<size_t>(n), 1.0f), shape);
}

GeneratedKernel Only(const Tensor& t) {
  Schedule s = CreateSchedule({t.uop()}, {t.device()});
  EXPECT_EQ(s.items.size(), 1u);
  return GenerateKernel(s.items.at(0).ast, WebGpu());
}

std::string ReadGolden(const std::string& name) {
  std::ifstream in(kGoldenDir + name + ".wgsl");
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void CheckGolden(const std::string& name, const std::string& text) {
  if (g_update) {
    const char* ws = getenv("BUILD_WORKSPACE_DIRECTORY");
    std::ofstream(std::string(ws ? ws : ".") + "/" + kGoldenDir + name + ".wgsl") << text;
    return;
  }
  EXPECT_EQ(text, ReadGolden(name)) << "regenerate with --update_golden if the change is intended";
}

// Every buffer the kernel names is bound, and the entry point carries the launch's workgroup size.
void CheckStructure(const GeneratedKernel& k, int buffers) {
  const std::string& s = k.source.source;
  for (int i = 0; i < buffers; ++i)
    EXPECT_NE(s.find("@group(0) @binding(" + std::to_string(i) + ") var<storage, "), std::string::npos) << s;
  EXPECT_EQ(s.find("@binding(" + std::to_string(buffers) + ")"), std::string::npos);
  EXPECT_NE(s.find("@compute @workgroup_size(" + std::to_string(k.dims.group_size[0]) + ", " +
                   std::to_string(k.dims.group_size[1]) + ", " + std::to_string(k.dims.group_size[2]) + ")\nfn " +
                   k.name + "("),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("@binding(0) var<storage, read_write>"), std::string::npos);  // the output
  // Every data<i> used is declared.
  std::regex use("data([0-9]+)\\[");
  for (auto it = std::sregex_iterator(s.begin(), s.end(), use); it != std::sregex_iterator(); ++it)
    EXPECT_LT(std::stoi((*it)[1]), buffers);
  EXPECT_EQ(std::count(s.begin(), s.end(), '{'), std::count(s.begin(), s.end(), '}'));
}

TEST(Wgsl, Elementwise) {
  Tensor a = Input({64, 32}), b = Input({32});
  GeneratedKernel k = Only(((a * b + 1).relu() - b.sqrt()) / (a * a + 1));
  CheckStructure(k, 3);
  EXPECT_GT(k.dims.group_size[0], 1u);  // a LOCAL dim became the workgroup size
  CheckGolden("elementwise", k.source.source);
}

TEST(Wgsl, Reduce) {
  GeneratedKernel k = Only(Input({16, 40}).sum({1}));
  CheckStructure(k, 2);
  EXPECT_NE(k.source.source.find("for (var ridx"), std::string::npos);
  CheckGolden("reduce", k.source.source);
}

TEST(Wgsl, GatedLoad) {
  GeneratedKernel k = Only(Input({5, 6}).pad({{1, 2}, {0, 3}}).flip({0}));
  CheckStructure(k, 2);
  EXPECT_NE(k.source.source.find("select(0.0f, "), std::string::npos);
  CheckGolden("gated_load", k.source.source);
}

TEST(Wgsl, TypesWgslLacksAreClearErrors) {
  EXPECT_EQ(WgslType(dtypes::float32), "f32");
  EXPECT_THROW(WgslType(dtypes::float64), Error);
  Tensor d = Input({8}).cast(dtypes::float64) * 2.0;
  Schedule s = CreateSchedule({d.uop()}, {d.device()});
  EXPECT_THROW(GenerateKernel(s.items.back().ast, WebGpu()), Error);
}

}  // namespace
}  // namespace tg::compiler

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  for (int i = 1; i < argc; ++i) tg::compiler::g_update |= std::strcmp(argv[i], "--update_golden") == 0;
  return RUN_ALL_TESTS();
}
