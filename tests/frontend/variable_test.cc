// tg::Variable: a value bound per call reaches the kernels as an argument, so every value of its range
// runs the kernels compiled for the first, directly and under tg::Jit; each misuse is a tg::Error naming it.
#include <cstdint>
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

}  // namespace
}  // namespace tg
