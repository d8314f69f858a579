// BEAM search: the opts it returns are legal and the kernels they make compute the right values;
// the opt text the disk cache stores round-trips; NOOPT and an unset BEAM keep their meaning.
#include <cmath>
#include <cstdlib>
#include <random>

#include "compiler/codegen/beam.h"
#include "compiler/codegen/codegen.h"
#include "compiler/schedule/schedule.h"
#include "frontend/tg.h"
#include "gtest/gtest.h"
#include "runtime/device_registry.h"

namespace tg::compiler {
namespace {

class BeamTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (const char* tmp = std::getenv("TEST_TMPDIR")) setenv("TG_CACHE_DIR", tmp, 1);
    setenv("BEAM_TIMEOUT_S", "3", 1);  // bounds the test, not the legality of the result
    setenv("BEAM_MAX_CANDIDATES", "60", 1);
  }
  void TearDown() override {
    unsetenv("BEAM");
    unsetenv("NOOPT");
  }
  static runtime::Device& Cpu() { return *runtime::DeviceRegistry::Global().GetDevice("CPU").value(); }
};

std::vector<float> Random(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-1, 1);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

std::vector<float> ReferenceMatmul(const std::vector<float>& a, const std::vector<float>& b, int m, int k, int n) {
  std::vector<float> c(m * n, 0);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j)
      for (int x = 0; x < k; ++x) c[i * n + j] += a[i * k + x] * b[x * n + j];
  return c;
}

TEST_F(BeamTest, MatmulOptsAreLegalAndComputeTheRightValues) {
  const int m = 32, k = 48, n = 64;
  std::vector<float> av = Random(m * k, 1), bv = Random(k * n, 2);
  Tensor a = Tensor::from_vector<float>(av, Shape{m, k}, "CPU"), b = Tensor::from_vector<float>(bv, Shape{k, n}, "CPU");
  Tensor c = a.matmul(b);
  Schedule s = CreateSchedule({c.uop()}, {c.device()});
  ASSERT_EQ(s.items.size(), 1u);
  BeamResult r = BeamSearch(s.items[0].ast, Cpu(), 2);
  EXPECT_GT(r.candidates, 1);
  EXPECT_GT(r.us, 0);
  EXPECT_GT(r.unoptimized_us, 0);
  EXPECT_NO_THROW(GenerateKernel(s.items[0].ast, Cpu().info(), r.opts)) << OptsToString(r.opts);

  setenv("BEAM", "2", 1);  // realize now searches (or reads the winner from disk) and runs it
  std::vector<float> got = c.to_vector<float>(), want = ReferenceMatmul(av, bv, m, k, n);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) ASSERT_NEAR(got[i], want[i], 1e-4) << i;
}

TEST_F(BeamTest, ReductionWithBeamIsCorrect) {
  // Rows of 12: the heuristic's 16-lane reduce vectors do not apply (today gcc takes minutes on
  // those kernels, which the starting beam would compile).
  std::vector<float> xv = Random(64 * 12, 3);
  setenv("BEAM", "1", 1);
  Tensor x = Tensor::from_vector<float>(xv, Shape{64, 12}, "CPU");
  std::vector<float> got = x.softmax(-1).sum({1}).to_vector<float>();
  for (float v : got) EXPECT_NEAR(v, 1.0f, 1e-5);
}

// A kernel that takes a variable and loops to a symbolic length is timed with the variable at its largest
// value, and the winner's kernel computes the right values for any value.
TEST_F(BeamTest, KernelsWithVariablesAreSearchedAndCorrect) {
  std::vector<float> xv = Random(16 * 12, 4);
  Variable n("n", 0, 12);
  Tensor x = Tensor::from_vector<float>(xv, Shape{16, 12}, "CPU");
  setenv("BEAM", "1", 1);
  for (int64_t len : {5, 12, 0}) {
    Tensor m = n.bind(len).tensor();
    std::vector<float> got = (x.shrink_to(1, m).sum({1}) * m.cast(dtypes::float32)).to_vector<float>();
    for (int r = 0; r < 16; ++r) {
      float want = 0;
      for (int c = 0; c < len; ++c) want += xv[r * 12 + c];
      ASSERT_NEAR(got[r], want * len, 1e-4) << "row " << r << " length " << len;
    }
  }
}

TEST_F(BeamTest, ChooseOptsFollowsTheKnobs) {
  Tensor a = Tensor::rand({16, 16});
  Schedule s = CreateSchedule({(a + 1).uop()}, {a.device()});
  const UOpRef& ast = s.items.at(0).ast;
  EXPECT_FALSE(ChooseOpts(ast, Cpu()).has_value());  // BEAM unset: the heuristic decides
  setenv("NOOPT", "1", 1);
  setenv("BEAM", "2", 1);
  std::optional<std::vector<Opt>> none = ChooseOpts(ast, Cpu());
  ASSERT_TRUE(none.has_value());
  EXPECT_TRUE(none->empty());  // NOOPT wins over BEAM
}

TEST(BeamOpts, TextRoundTripsAndGarbageIsRejected) {
  std::vector<Opt> opts = {{OptOp::kUpcast, 0, 4}, {OptOp::kUnroll, 2, 8}, {OptOp::kLocal, 1, 16},
                           {OptOp::kThread, 0, 3}};
  EXPECT_EQ(OptsToString(opts), "UPCAST:0:4;UNROLL:2:8;LOCAL:1:16;THREAD:0:3");
  EXPECT_EQ(ParseOpts(OptsToString(opts)), opts);
  EXPECT_EQ(ParseOpts(""), std::vector<Opt>{});
  EXPECT_FALSE(ParseOpts("UPCAST:0").has_value());
  EXPECT_FALSE(ParseOpts("SPLAT:0:4").has_value());
  EXPECT_FALSE(ParseOpts("UPCAST:0:4x").has_value());
}

}  // namespace
}  // namespace tg::compiler
