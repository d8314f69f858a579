// Every class of bad argument to the Tensor ops (creation, math, binary, reduce, nn families) is a tg::Error that
// names the op and what was wrong. One test per class: counts, ranges, axes, dtypes, shapes, modes.
#include "frontend/tg.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tg {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

template <class F>
std::string ErrorOf(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected a tg::Error";
  return "";
}

TEST(OpErrors, CreationCountsAndRanges) {
  EXPECT_THAT(ErrorOf([] { (void)Tensor::linspace(0, 1, -3); }), HasSubstr("linspace"));
  EXPECT_THAT(ErrorOf([] { (void)Tensor::eye(-1); }), HasSubstr("eye"));
  EXPECT_THAT(ErrorOf([] { (void)Tensor::randint({3}, 5, 5); }), HasSubstr("randint"));
  EXPECT_THAT(ErrorOf([] { (void)Tensor::full({2, -1}, 1.0f); }), HasSubstr("negative"));
  EXPECT_THAT(ErrorOf([] { (void)Tensor::arange(0, 5, 0); }), HasSubstr("step"));
}

TEST(OpErrors, RandomDistributionArguments) {
  EXPECT_THAT(ErrorOf([] { (void)Tensor::randperm(-2); }), HasSubstr("randperm"));
  Tensor probs = Tensor::from_vector<float>({0.2f, 0.8f});
  EXPECT_THAT(ErrorOf([&] { (void)probs.multinomial(3, false); }), HasSubstr("multinomial"));
  EXPECT_THAT(ErrorOf([] { (void)Tensor::ones({2, 2, 2}).multinomial(1); }), HasSubstr("multinomial"));
}

TEST(OpErrors, ReductionAxes) {
  Tensor t = Tensor::ones({2, 3});
  EXPECT_THAT(ErrorOf([&] { (void)t.softmax(2); }), AllOf(HasSubstr("softmax"), HasSubstr("rank 2")));
  EXPECT_THAT(ErrorOf([&] { (void)t.cumsum(-3); }), AllOf(HasSubstr("cumsum"), HasSubstr("rank 2")));
  EXPECT_THAT(ErrorOf([&] { (void)t.var({5}); }), HasSubstr("rank 2"));
  EXPECT_THAT(ErrorOf([&] { (void)t.argmax(4); }), HasSubstr("rank 2"));
}

TEST(OpErrors, DtypeRequirements) {
  Tensor f = Tensor::ones({4}), i = Tensor::ones({4}, dtypes::int32);
  EXPECT_THAT(ErrorOf([&] { (void)f.lshift(1); }), HasSubstr("lshift"));
  EXPECT_THAT(ErrorOf([&] { (void)f.bitcast(dtypes::int64); }), HasSubstr("bitcast"));
  EXPECT_THAT(ErrorOf([&] { (void)i.requires_grad(true); }), HasSubstr("float"));
}

TEST(OpErrors, ModesAndOptionsAreChecked) {
  Tensor t = Tensor::ones({4});
  EXPECT_THAT(ErrorOf([&] { (void)t.div(t, "round"); }), AllOf(HasSubstr("div"), HasSubstr("round")));
  EXPECT_THAT(ErrorOf([&] { (void)t.gelu("exact-ish"); }), HasSubstr("gelu"));
  Tensor logits = Tensor::ones({2, 3});
  Tensor labels = Tensor::from_vector<int32_t>({0, 1});
  EXPECT_THAT(ErrorOf([&] { (void)logits.sparse_categorical_crossentropy(labels, -1, 0.0, "average"); }),
              HasSubstr("average"));
}

TEST(OpErrors, ShapesThatDoNotMatch) {
  Tensor logits = Tensor::ones({2, 3});
  EXPECT_THAT(ErrorOf([&] { (void)logits.cross_entropy(Tensor::ones({3, 3})); }), HasSubstr("cross_entropy"));
  EXPECT_THAT(ErrorOf([&] { (void)Tensor::ones({2, 3}).lerp(Tensor::ones({4}), 0.5); }),
              AllOf(HasSubstr("(2, 3)"), HasSubstr("(4)")));
  Tensor q = Tensor::ones({1, 2, 4, 8});
  EXPECT_THAT(ErrorOf([&] { (void)q.scaled_dot_product_attention(Tensor::ones({1, 2, 4, 7}), q); }),
              HasSubstr("scaled_dot_product_attention"));
}

}  // namespace
}  // namespace tg
