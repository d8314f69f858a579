// The fusion cost rules, asserted on kernel structure (what each kernel recomputes inside its reduce
// loops) and on values.
#include <algorithm>
#include <cmath>
#include <vector>

#include "compiler/schedule/schedule.h"
#include "frontend/tg.h"
#include "gtest/gtest.h"

namespace tg::compiler {
namespace {

std::vector<UOpRef> Kernels(const std::vector<Tensor>& roots) {
  std::vector<UOpRef> uops;
  std::vector<std::string> devices;
  for (const Tensor& t : roots) uops.push_back(t.uop()), devices.push_back(t.device());
  std::vector<UOpRef> asts;
  for (const ScheduleItem& item : CreateSchedule(uops, devices).items)
    if (item.kind == ScheduleItem::Kind::kKernel) asts.push_back(item.ast);
  return asts;
}

bool Contains(const UOpRef& root, Ops op) {
  for (const UOpRef& n : root->toposort())
    if (n->op() == op) return true;
  return false;
}

// How many REDUCE loops of |ast| compute an |op| inside their loop body.
int ReducesComputing(const UOpRef& ast, Ops op) {
  int n = 0;
  for (const UOpRef& u : ast->toposort()) n += u->op() == Ops::kReduce && Contains(u->src(0), op);
  return n;
}

int ReducesComputing(const std::vector<UOpRef>& asts, Ops op) {
  int n = 0;
  for (const UOpRef& ast : asts) n += ReducesComputing(ast, op);
  return n;
}

std::vector<float> Ramp(size_t n, int period, float scale) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = (static_cast<float>(i % period) - period / 2.0f) * scale;
  return v;
}

float GeluTanh(float x) {
  return 0.5f * x * (1.0f + std::tanh(std::sqrt(2.0f / 3.14159265f) * (x + 0.044715f * x * x * x)));
}

// A transformer's feed-forward: GELU(x @ w1) read by the fc2 matmul (broadcast over its 8 outputs)
// and by a second reduce. Fused, each of them would evaluate the tanh's exp2 once per output column.
TEST(RecomputeRule, ExpensiveChainReadInsideReduceLoopsIsStoredOnce) {
  Tensor x = Tensor::rand({6, 16}), w1 = Tensor::rand({16, 32}), w2 = Tensor::rand({32, 8});
  Tensor h = x.matmul(w1).gelu("tanh");
  std::vector<UOpRef> asts = Kernels({h.matmul(w2), h.sum({0})});
  EXPECT_EQ(ReducesComputing(asts, Ops::kExp2), 0);
  int computing_exp2 = 0;
  for (const UOpRef& ast : asts) computing_exp2 += Contains(ast, Ops::kExp2);
  EXPECT_EQ(computing_exp2, 1);  // one kernel stores GELU(fc1), the two reduces load it
}

TEST(RecomputeRule, ExpensiveChainReadByTwoReducesIsStoredOnce) {
  Tensor x = Tensor::rand({16, 32});
  Tensor e = x.exp();
  EXPECT_EQ(ReducesComputing(Kernels({e.sum({1}), e.max({0})}), Ops::kExp2), 0);
}

TEST(RecomputeRule, StoredChainComputesTheSameValues) {
  const int n = 5, k = 12, f = 20, m = 7;
  std::vector<float> xv = Ramp(n * k, 7, 0.3f), w1v = Ramp(k * f, 11, 0.1f), w2v = Ramp(f * m, 5, 0.2f);
  Tensor x = Tensor::from_vector(xv, Shape{n, k}), w1 = Tensor::from_vector(w1v, Shape{k, f});
  Tensor w2 = Tensor::from_vector(w2v, Shape{f, m});
  Tensor h = x.matmul(w1).gelu("tanh");
  Tensor out = h.matmul(w2), col = h.sum({0});
  Tensor::realize_all({out, col});
  std::vector<float> got = out.to_vector<float>(), got_col = col.to_vector<float>();
  std::vector<float> hv(n * f);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < f; ++j) {
      float acc = 0;
      for (int q = 0; q < k; ++q) acc += xv[i * k + q] * w1v[q * f + j];
      hv[i * f + j] = GeluTanh(acc);
    }
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < m; ++j) {
      float want = 0;
      for (int q = 0; q < f; ++q) want += hv[i * f + q] * w2v[q * m + j];
      EXPECT_NEAR(got[i * m + j], want, 1e-4f * (1 + std::fabs(want))) << i << " " << j;
    }
  for (int j = 0; j < f; ++j) {
    float want = 0;
    for (int i = 0; i < n; ++i) want += hv[i * f + j];
    EXPECT_NEAR(got_col[j], want, 1e-4f * (1 + std::fabs(want))) << j;
  }
}

// Cheap chains still ride along the loads of the reduce that reads them: one kernel per matmul.
TEST(RecomputeRule, CheapChainsStayFused) {
  Tensor a = Tensor::rand({4, 8}), b = Tensor::rand({8, 3}), bias = Tensor::rand({8}), c = Tensor::rand({3, 5});
  EXPECT_EQ(Kernels({(a * 2).matmul(b)}).size(), 1u);
  EXPECT_EQ(Kernels({(a + bias).relu().matmul(b)}).size(), 1u);
  EXPECT_EQ(Kernels({a.matmul(b).relu().matmul(c)}).size(), 2u);
  Tensor x = Tensor::rand({8, 10});
  Tensor e = (x - x.max({1}, true)).exp();  // one reduce and one elementwise kernel read it
  EXPECT_EQ(Kernels({e / e.sum({1}, true)}).size(), 3u);
}

// The reduce kernels of |roots| and the buffers each reads (its DEFINE_GLOBALs less the output).
std::vector<int> BuffersReadByReduces(const std::vector<Tensor>& roots) {
  std::vector<int> out;
  for (const UOpRef& ast : Kernels(roots)) {
    if (!Contains(ast, Ops::kReduce)) continue;
    int globals = 0;
    for (const UOpRef& u : ast->toposort()) globals += u->op() == Ops::kDefineGlobal;
    out.push_back(globals - 1);
  }
  return out;
}

// A residual add with a per-channel gate (PP-OCR's detector head, x + x * s[c]) feeding a 3 x 3
// convolution over 24 output channels: fused, the conv's loop would evaluate it 24 x 9 times per input
// element, with a load of x and of s each time. Stored, the conv reads the gated input and the weight.
TEST(RecomputeRule, CheapChainReadHundredsOfTimesByAConvIsStored) {
  Tensor x = Tensor::rand({1, 16, 6, 18}), s = Tensor::rand({1, 16, 1, 1}), w = Tensor::rand({24, 16, 3, 3});
  EXPECT_EQ(BuffersReadByReduces({(x + x * s).conv2d(w, std::nullopt, 1, 1, 1, 1)}), std::vector<int>{2});
}

// A hidden layer's bias and ReLU read by the next layer's 512 output columns: stored once (in the
// kernel of the reduce before it) rather than evaluated again for every tile of columns. Read by 3
// columns it rides along (CheapChainsStayFused).
TEST(RecomputeRule, CheapChainReadByAWideMatmulIsStored) {
  Tensor a = Tensor::rand({8, 64}), w1 = Tensor::rand({64, 32}), b = Tensor::rand({32}), w2 = Tensor::rand({32, 512});
  std::vector<int> reads = BuffersReadByReduces({(a.matmul(w1) + b).relu().matmul(w2)});
  ASSERT_EQ(reads.size(), 2u);
  EXPECT_EQ(reads[1], 2) << "the second matmul reads the stored activation and its weight";
}

TEST(RecomputeRule, StoredCheapChainComputesTheSameValues) {
  const int n = 3, k = 16, f = 8, m = 256;
  std::vector<float> av = Ramp(n * k, 7, 0.3f), w1v = Ramp(k * f, 11, 0.1f), bv = Ramp(f, 5, 0.2f), w2v = Ramp(f * m, 13, 0.05f);
  Tensor a = Tensor::from_vector(av, Shape{n, k}), w1 = Tensor::from_vector(w1v, Shape{k, f});
  Tensor b = Tensor::from_vector(bv, Shape{f}), w2 = Tensor::from_vector(w2v, Shape{f, m});
  std::vector<float> got = (a.matmul(w1) + b).relu().matmul(w2).to_vector<float>();
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < m; ++j) {
      float want = 0;
      for (int q = 0; q < f; ++q) {
        float h = bv[q];
        for (int r = 0; r < k; ++r) h += av[i * k + r] * w1v[r * f + q];
        want += std::max(h, 0.0f) * w2v[q * m + j];
      }
      EXPECT_NEAR(got[i * m + j], want, 1e-4f * (1 + std::fabs(want))) << i << " " << j;
    }
}

// A cat of reduces pads each into the joined length; fused, the joining kernel would run every
// reduce's loop for every element of the result.
TEST(ReduceThroughPad, CatOfReducesRealizesEachReduce) {
  Tensor a = Tensor::rand({6, 40}), b = Tensor::rand({5, 30}), c = Tensor::rand({3, 9});
  std::vector<UOpRef> asts = Kernels({a.sum({1}).flatten().cat({b.max({1}).flatten(), c.sum({1}).flatten()}, 0)});
  ASSERT_EQ(asts.size(), 4u);
  EXPECT_FALSE(Contains(asts.back(), Ops::kReduce));  // the joining kernel only loads
}

TEST(ReduceThroughPad, CatOfReducesComputesTheSameValues) {
  std::vector<float> av = Ramp(4 * 9, 5, 1.0f), bv = Ramp(3 * 7, 4, 0.5f);
  Tensor a = Tensor::from_vector(av, Shape{4, 9}), b = Tensor::from_vector(bv, Shape{3, 7});
  std::vector<float> got = a.sum({1}).flatten().cat({b.max({1}).flatten()}, 0).to_vector<float>();
  ASSERT_EQ(got.size(), 7u);
  for (int i = 0; i < 4; ++i) {
    float want = 0;
    for (int j = 0; j < 9; ++j) want += av[i * 9 + j];
    EXPECT_FLOAT_EQ(got[i], want);
  }
  for (int i = 0; i < 3; ++i) {
    float want = bv[i * 7];
    for (int j = 1; j < 7; ++j) want = std::max(want, bv[i * 7 + j]);
    EXPECT_FLOAT_EQ(got[4 + i], want);
  }
}

// fashion_mnist's evaluation: a 3x3 conv (a matmul of 144-wide patches) then a 2x2 max-pool. Fused,
// the conv's 144-long loop nests inside the pool's loop and runs untiled; stored, the conv kernel is
// the plain matmul and the pool only loads.
TEST(NestedReduce, LongReduceReadInsideAnotherReduceIsStored) {
  Tensor patches = Tensor::rand({2, 4, 4, 144}), w = Tensor::rand({144, 16});
  Tensor pooled = patches.matmul(w).relu().reshape({2, 2, 2, 2, 2, 16}).max({2, 4});
  std::vector<UOpRef> asts = Kernels({pooled});
  ASSERT_EQ(asts.size(), 2u);
  EXPECT_EQ(ReducesComputing(asts, Ops::kReduce), 0);  // no reduce loop holds another
}

TEST(NestedReduce, StoredInnerReduceComputesTheSameValues) {
  const int n = 2, hw = 4, k = 96, c = 3;
  std::vector<float> pv = Ramp(n * hw * hw * k, 13, 0.25f), wv = Ramp(k * c, 7, 0.5f);
  Tensor p = Tensor::from_vector(pv, Shape{n, hw, hw, k}), w = Tensor::from_vector(wv, Shape{k, c});
  std::vector<float> got = p.matmul(w).reshape({n, 2, 2, 2, 2, c}).max({2, 4}).to_vector<float>();
  ASSERT_EQ(got.size(), static_cast<size_t>(n * 2 * 2 * c));
  for (int b = 0; b < n; ++b)
    for (int y = 0; y < 2; ++y)
      for (int x = 0; x < 2; ++x)
        for (int o = 0; o < c; ++o) {
          float want = -INFINITY;
          for (int dy = 0; dy < 2; ++dy)
            for (int dx = 0; dx < 2; ++dx) {
              const float* row = &pv[(((b * hw) + y * 2 + dy) * hw + x * 2 + dx) * k];
              float acc = 0;
              for (int q = 0; q < k; ++q) acc += row[q] * wv[q * c + o];
              want = std::max(want, acc);
            }
          EXPECT_FLOAT_EQ(got[((b * 2 + y) * 2 + x) * c + o], want);
        }
}

// Short inner loops (a max over 8, a log-sum-exp over 10 classes) nest at no cost: one kernel.
TEST(NestedReduce, ShortInnerReduceStaysNested) {
  Tensor a = Tensor::rand({16, 8});
  EXPECT_EQ(Kernels({a.max({1}).sum()}).size(), 1u);
}

Schedule ScheduleOf(const Tensor& t) { return CreateSchedule({t.uop()}, {t.device()}); }

// A full sum of 1M elements: 256 partials (one kernel over 256 outputs, spread over the cores), then
// their sum.
TEST(SplitReduce, FullReductionGoesThroughPartials) {
  Tensor x = Tensor::rand({1 << 20});
  Schedule s = ScheduleOf(x.sum());
  ASSERT_EQ(s.items.size(), 2u);
  EXPECT_EQ(s.items[0].buffers[0]->arg_as<BufferArg>().size, 256);
  EXPECT_EQ(s.items[1].buffers[0]->arg_as<BufferArg>().size, 1);
}

// Batch norm's statistics: 16 channels, each over 128 x 24 x 24 values (channels last): the batch
// axis becomes the partial axis, (128, 16) partials.
TEST(SplitReduce, PerChannelStatisticsGoThroughPartials) {
  Tensor x = Tensor::rand({128, 24, 24, 16});
  Schedule s = ScheduleOf(x.sum({0, 1, 2}));
  ASSERT_EQ(s.items.size(), 2u);
  EXPECT_EQ(s.items[0].buffers[0]->arg_as<BufferArg>().size, 128 * 16);
}

TEST(SplitReduce, ShortReducesAreNotSplit) {
  Tensor x = Tensor::rand({64, 1000});
  EXPECT_EQ(ScheduleOf(x.sum({1})).items.size(), 1u);
  EXPECT_EQ(ScheduleOf(Tensor::rand({1000}).sum()).items.size(), 1u);
}

TEST(SplitReduce, SplitReducesComputeTheSameValues) {
  const int n = 3 << 16;  // 196608: split 256 x 768
  std::vector<int32_t> iv(n);
  for (int i = 0; i < n; ++i) iv[i] = (i * 7919) % 1001 - 500;
  Tensor ints = Tensor::from_vector(iv, Shape{n});
  int64_t want_sum = 0;
  int32_t want_max = iv[0];
  for (int32_t v : iv) want_sum += v, want_max = std::max(want_max, v);
  EXPECT_EQ(ints.sum().item<int32_t>(), want_sum);
  EXPECT_EQ(ints.max().item<int32_t>(), want_max);
  // Per-column sums of a (49152, 4) float matrix: the split axis is the reduced row axis.
  std::vector<float> fv(n);
  for (int i = 0; i < n; ++i) fv[i] = static_cast<float>(i % 17) * 0.5f;
  std::vector<float> got = Tensor::from_vector(fv, Shape{n / 4, 4}).sum({0}).to_vector<float>();
  ASSERT_EQ(got.size(), 4u);
  for (int c = 0; c < 4; ++c) {
    double want = 0;
    for (int r = 0; r < n / 4; ++r) want += fv[r * 4 + c];
    EXPECT_NEAR(got[c], want, 1e-5 * want) << c;
  }
}

}  // namespace
}  // namespace tg::compiler
