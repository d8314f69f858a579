// Errors a user can cause are tg::Error with a message that names the problem and the fix.
#include <cstdint>
#include <limits>

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

TEST(UserError, IncompatibleShapesNameBothShapes) {
  Tensor a = Tensor::ones({2, 3}), b = Tensor::ones({4});
  EXPECT_THAT(ErrorOf([&] { (void)(a + b); }), AllOf(HasSubstr("(2, 3)"), HasSubstr("(4)"), HasSubstr("add")));
}

TEST(UserError, BadAxisNamesTheRank) {
  Tensor a = Tensor::ones({2, 3});
  EXPECT_THAT(ErrorOf([&] { (void)a.sum({2}); }), AllOf(HasSubstr("axis 2"), HasSubstr("rank 2")));
  EXPECT_THAT(ErrorOf([&] { (void)a.max({-3}); }), HasSubstr("rank 2"));
}

TEST(UserError, ReshapeToTheWrongSize) {
  Tensor a = Tensor::ones({2, 3});
  EXPECT_THAT(ErrorOf([&] { (void)a.reshape({4, 2}); }), AllOf(HasSubstr("(2, 3)"), HasSubstr("(4, 2)")));
}

// Found by the ONNX fuzzer: Reshape to (INT64_MAX, 3) overflowed the element count (undefined behaviour).
TEST(UserError, ReshapeToMoreElementsThanInt64CountsIsAnError) {
  Tensor a = Tensor::zeros({2, 3});
  int64_t huge = std::numeric_limits<int64_t>::max();
  EXPECT_THAT(ErrorOf([&] { (void)a.reshape({huge, 3}); }), HasSubstr("more elements than an int64 counts"));
  EXPECT_THAT(ErrorOf([&] { (void)a.reshape({huge, 2, -1}); }), HasSubstr("more elements than an int64 counts"));
  EXPECT_EQ(Tensor::zeros({0, 3}).reshape({huge, 0}).shape(), (Shape{huge, 0}));  // no elements: no overflow
}

TEST(UserError, MatmulMismatchAndWrongReadType) {
  EXPECT_THAT(ErrorOf([] { (void)Tensor::ones({2, 3}).matmul(Tensor::ones({4, 2})); }), HasSubstr("3 != 4"));
  EXPECT_THAT(ErrorOf([] { (void)Tensor::ones({2}).to_vector<int32_t>(); }), HasSubstr("float32"));
  EXPECT_THAT(ErrorOf([] { (void)Tensor::ones({2}).item<float>(); }), HasSubstr("exactly one"));
}

TEST(UserError, UnknownDeviceListsTheDevicesThatExist) {
  EXPECT_THAT(ErrorOf([] { (void)Tensor::ones({2}, dtypes::float32, "NOSUCHDEVICE"); }), HasSubstr("CPU"));
}

TEST(UserError, FromVectorSizeMismatch) {
  EXPECT_THAT(ErrorOf([] { (void)Tensor::from_vector<float>({1, 2, 3}, Shape{2, 2}); }),
              AllOf(HasSubstr("3 values"), HasSubstr("(2, 2)")));
}

}  // namespace
}  // namespace tg
