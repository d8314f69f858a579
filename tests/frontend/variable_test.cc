// tg::Variable: a value bound per call reaches the kernels as an argument, so every value of its range
// runs the kernels compiled for the first, directly and under tg::Jit; each misuse is a tg::Error naming it.
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "frontend/tg.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tg {
namespace {

using ::testing::HasSubstr;

std::string ErrorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no tg::Error)";
}

const std::vector<float> kX = {1, 2, 3, 4, 5, 6, 7, 8};

// sum of x[i] for i <= pos: a reduce masked by the variable.
Tensor PrefixSum(const Tensor& x, const Tensor& pos) {
  Tensor i = Tensor::arange(static_cast<int64_t>(kX.size())).cast(dtypes::int32);
  return (i <= pos).where(x, 0.0f).sum();
}

TEST(Variable, OneKernelServesEveryValue) {
  Variable pos("pos", 0, 7);
  Tensor x = Tensor::from_vector(kX);
  auto run = [&](int64_t p) {
    Tensor v = pos.bind(p).tensor();
    return std::make_pair((x * v.cast(dtypes::float32) + 1).to_vector<float>(), PrefixSum(x, v).item<float>());
  };
  run(0);  // compiles
  uint64_t made = programs_made();
  for (int64_t p : {3, 7, 1}) {
    auto [scaled, prefix] = run(p);
    for (size_t i = 0; i < kX.size(); ++i) EXPECT_FLOAT_EQ(scaled[i], kX[i] * p + 1) << "p=" << p << " i=" << i;
    EXPECT_FLOAT_EQ(prefix, (p + 1) * (p + 2) / 2.0f) << "p=" << p;
  }
  EXPECT_EQ(programs_made(), made) << "a new value of the variable compiled a kernel";
}

TEST(Variable, WritesOneSlotOfAStateBufferInPlace) {
  Variable pos("slot", 0, 7);
  Tensor cache = Tensor::zeros({8}).contiguous().realize();
  Tensor i = Tensor::arange(8).cast(dtypes::int32);
  for (int64_t p : {2, 5, 0}) {
    Tensor at = pos.bind(p).tensor();
    cache.assign((i == at).where(at.cast(dtypes::float32) + 10, cache)).realize();
  }
  EXPECT_THAT(cache.to_vector<float>(), ::testing::ElementsAre(10, 0, 12, 0, 0, 15, 0, 0));
}

TEST(Variable, UnderJitEveryValueReplaysTheCapture) {
  Variable pos("pos", 0, 7);
  Tensor x = Tensor::from_vector(kX);
  Jit step([](const std::vector<Tensor>& in) {
    return std::vector<Tensor>{PrefixSum(in[0], in[1]), in[0] * in[1].cast(dtypes::float32)};
  });
  step({x, pos.bind(0).tensor()});
  step({x, pos.bind(1).tensor()});  // captured
  ASSERT_TRUE(step.captured());
  uint64_t made = programs_made();
  for (int64_t p : {4, 7, 2}) {
    std::vector<Tensor> out = step({x, pos.bind(p).tensor()});
    EXPECT_FLOAT_EQ(out[0].item<float>(), (p + 1) * (p + 2) / 2.0f) << "p=" << p;
    EXPECT_FLOAT_EQ(out[1].to_vector<float>()[7], 8.0f * p) << "p=" << p;
  }
  EXPECT_EQ(programs_made(), made);
  EXPECT_THAT(ErrorOf([&] { step({x, Tensor::from_vector<int32_t>({3}).reshape({})}); }),
              HasSubstr("captured with variable 'pos' [0, 7]"));
  EXPECT_THAT(ErrorOf([&] { step({x, Variable("other", 0, 7).bind(3).tensor()}); }), HasSubstr("variable 'other'"));
  EXPECT_THAT(ErrorOf([&] { step.save(::testing::TempDir() + "/variable.tgjit"); }), HasSubstr("variable 'pos'"));
}

TEST(Variable, AnUnboundVariableIsAnErrorNamingIt) {
  Variable pos("pos", 0, 7);
  Tensor x = Tensor::from_vector(kX);
  std::string error = ErrorOf([&] { (x + pos.tensor().cast(dtypes::float32)).to_vector<float>(); });
  EXPECT_THAT(error, HasSubstr("variable 'pos'"));
  EXPECT_THAT(error, HasSubstr("not bound"));
}

TEST(Variable, AValueOutsideTheRangeIsAnErrorNamingIt) {
  Variable pos("pos", 0, 7);
  std::string error = ErrorOf([&] { pos.bind(8); });
  EXPECT_THAT(error, HasSubstr("variable 'pos' [0, 7]"));
  EXPECT_THAT(error, HasSubstr("cannot bind 8"));
  EXPECT_THAT(ErrorOf([&] { pos.bind(-1); }), HasSubstr("outside its range"));
}

TEST(Variable, BadRangesAndNamesAreRefused) {
  EXPECT_THAT(ErrorOf([] { Variable("n", 5, 4); }), HasSubstr("range [5, 4] is not allowed"));
  EXPECT_THAT(ErrorOf([] { Variable("n", 0, int64_t{1} << 40); }), HasSubstr("within int32"));
  EXPECT_THAT(ErrorOf([] { Variable("", 0, 1); }), HasSubstr("name is empty"));
}

TEST(Variable, OneRealizeBindsAVariableOnce) {
  Variable pos("pos", 0, 7);
  std::string error = ErrorOf([&] { (pos.bind(1).tensor() + pos.bind(2).tensor()).item<int32_t>(); });
  EXPECT_THAT(error, HasSubstr("'pos' is bound to 1 and to 2"));
  // The same value twice is one binding.
  EXPECT_EQ((pos.bind(3).tensor() + pos.bind(3).tensor()).item<int32_t>(), 6);
}

TEST(Variable, OneNameHasOneRange) {
  Tensor a = Variable("n", 0, 7).bind(1).tensor(), b = Variable("n", 0, 9).bind(1).tensor();
  EXPECT_THAT(ErrorOf([&] { (a + b).item<int32_t>(); }), HasSubstr("'n' is used with two ranges"));
}

// ---- symbolic lengths: shrink_to ----

constexpr float kNan = std::numeric_limits<float>::quiet_NaN();

// 1..n then NaN: a reduce that read past the length would turn NaN.
Tensor PoisonedAfter(int64_t n, int64_t total) {
  std::vector<float> v(total, kNan);
  for (int64_t i = 0; i < n; ++i) v[i] = static_cast<float>(i + 1);
  return Tensor::from_vector(v);
}

TEST(SymbolicLength, AReduceStopsAtTheLengthWithOneKernel) {
  Variable n("n", 0, 8);
  Tensor x = PoisonedAfter(8, 8);
  x.shrink_to(0, n.bind(2).tensor()).sum().item<float>();  // compiles both kernels
  x.shrink_to(0, n.bind(2).tensor()).max().item<float>();
  uint64_t made = programs_made();
  for (int64_t k : {0, 3, 8, 5}) {
    Tensor poisoned = PoisonedAfter(k, 8);
    EXPECT_FLOAT_EQ(poisoned.shrink_to(0, n.bind(k).tensor()).sum().item<float>(), k * (k + 1) / 2.0f) << "n=" << k;
    EXPECT_FLOAT_EQ(poisoned.shrink_to(0, n.bind(k).tensor()).max().item<float>(), k == 0 ? -INFINITY : k) << "n=" << k;
  }
  EXPECT_EQ(programs_made(), made) << "a new length compiled a kernel";
}

// Attention over the first pos + 1 slots of a cache whose later slots hold NaN.
Tensor Attend(const Tensor& q, const Tensor& keys, const Tensor& values, const Tensor& length) {
  Tensor k = keys.shrink_to(0, length), v = values.shrink_to(0, length);  // (slots, d)
  Tensor scores = q.reshape({1, -1}).matmul(k.transpose()) * 0.5f;        // (1, slots)
  return scores.softmax(1).matmul(v).reshape({-1});                       // (d)
}

TEST(SymbolicLength, AttentionOverAGrowingCacheMatchesTheConcreteCut) {
  constexpr int64_t kSlots = 16, kDim = 4;
  Variable pos("pos", 0, kSlots - 1);
  Tensor::manual_seed(7);
  std::vector<float> kd = Tensor::randn({kSlots, kDim}).to_vector<float>(), vd = Tensor::randn({kSlots, kDim}).to_vector<float>();
  Tensor q = Tensor::from_vector<float>({0.3f, -1.0f, 0.5f, 2.0f});
  Jit step([](const std::vector<Tensor>& in) { return std::vector<Tensor>{Attend(in[0], in[1], in[2], in[3] + 1)}; });
  uint64_t replay_compiles = 0;
  for (int64_t p = 0; p < kSlots; ++p) {
    // The slots after p hold NaN: the kernels must never read them.
    std::vector<float> kp = kd, vp = vd;
    for (int64_t i = (p + 1) * kDim; i < kSlots * kDim; ++i) kp[i] = vp[i] = kNan;
    Tensor keys = Tensor::from_vector(kp, Shape{kSlots, kDim}), values = Tensor::from_vector(vp, Shape{kSlots, kDim});
    uint64_t before = programs_made();
    std::vector<float> got = step({q, keys, values, pos.bind(p).tensor()})[0].to_vector<float>();
    if (p >= 2) replay_compiles += programs_made() - before;  // the first call ran, the second captured
    Tensor kc = Tensor::from_vector(kd, Shape{kSlots, kDim}).shrink({{0, p + 1}, {0, kDim}});
    Tensor vc = Tensor::from_vector(vd, Shape{kSlots, kDim}).shrink({{0, p + 1}, {0, kDim}});
    std::vector<float> want = (q.reshape({1, -1}).matmul(kc.transpose()) * 0.5f).softmax(1).matmul(vc).reshape({-1}).to_vector<float>();
    for (int64_t i = 0; i < kDim; ++i) EXPECT_NEAR(got[i], want[i], 1e-5) << "pos " << p << " i " << i;
  }
  EXPECT_EQ(replay_compiles, 0u) << "a replay at a new position compiled a kernel";
}

TEST(SymbolicLength, ARealizedIntermediateKeepsItsLength) {
  Variable n("n", 0, 8);
  Tensor doubled = (PoisonedAfter(5, 8).shrink_to(0, n.bind(5).tensor()) * 2).realize();
  EXPECT_FLOAT_EQ(doubled.sum().item<float>(), 30.0f);
}

TEST(SymbolicLength, MovesThatWouldShowAbsentElementsAreRefused) {
  Variable n("n", 0, 4);
  Tensor x = Tensor::ones({4, 3}).shrink_to(0, n.bind(2).tensor());
  EXPECT_THAT(ErrorOf([&] { x.pad({{0, 1}, {0, 0}}); }), HasSubstr("a pad"));
  EXPECT_THAT(ErrorOf([&] { x.flip({0}); }), HasSubstr("a flip"));
  EXPECT_THAT(ErrorOf([&] { x.shrink({{1, 4}, {0, 3}}); }), HasSubstr("a shrink"));
  EXPECT_THAT(ErrorOf([&] { x.reshape({12}); }), HasSubstr("splits or merges it"));
  EXPECT_THAT(ErrorOf([&] { x.to_vector<float>(); }), HasSubstr("symbolic length"));
  EXPECT_EQ(x.reshape({1, 4, 3}).permute({0, 2, 1}).sum({2}).sum().item<float>(), 6.0f);  // kept whole: allowed
  Tensor y = Tensor::ones({4, 3}).shrink_to(0, Variable("m", 0, 4).bind(2).tensor());
  EXPECT_THAT(ErrorOf([&] { (x + y).sum().item<float>(); }), HasSubstr("two different symbolic lengths"));
}

TEST(SymbolicLength, BadLengthsAreRefused) {
  Variable n("n", 0, 9);
  Tensor x = Tensor::ones({8});
  EXPECT_THAT(ErrorOf([&] { x.shrink_to(0, n.bind(1).tensor()); }), HasSubstr("outside axis 0's 0..8"));
  EXPECT_THAT(ErrorOf([&] { x.shrink_to(0, Tensor::from_vector<int32_t>({3}).reshape({})); }), HasSubstr("reads tensor data"));
  EXPECT_THAT(ErrorOf([&] { x.shrink_to(0, Tensor::full({}, 2.0f)); }), HasSubstr("int32 scalar"));
  EXPECT_THAT(ErrorOf([&] { x.shrink_to(1, Variable("m", 0, 8).bind(1).tensor()); }), HasSubstr("outside a tensor of rank 1"));
}

}  // namespace
}  // namespace tg
