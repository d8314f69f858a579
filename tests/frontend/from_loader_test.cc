// Tensor::from_loader: bytes are read on first realize, exactly once, and a tensor with no elements
// (nothing to read, no device memory behind it) realizes, reads and joins graphs like any other.
#include <cstring>
#include <vector>

#include "frontend/tg.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tg {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

// A loader that counts its calls and writes |values|.
Tensor CountingLoader(const Shape& shape, std::vector<float> values, int* reads) {
  return Tensor::from_loader(shape, dtypes::float32, [values, reads](void* dst, size_t n) {
    ++*reads;
    std::memcpy(dst, values.data(), n);
  });
}

TEST(FromLoader, ReadsOnceOnFirstRealize) {
  int reads = 0;
  Tensor t = CountingLoader({3}, {1, 2, 3}, &reads);
  Tensor doubled = t * 2;
  EXPECT_EQ(reads, 0);
  EXPECT_THAT(doubled.to_vector<float>(), ElementsAre(2, 4, 6));
  EXPECT_THAT(t.to_vector<float>(), ElementsAre(1, 2, 3));
  EXPECT_EQ(reads, 1);
}

// A loaded tensor is stored data before its bytes are read; a computation on it is not until realized,
// and a view that reorders it never is (realizing it runs a kernel).
TEST(FromLoader, IsStoredBeforeItIsRead) {
  int reads = 0;
  Tensor t = CountingLoader({2, 3}, {1, 2, 3, 4, 5, 6}, &reads);
  EXPECT_TRUE(t.is_stored());
  EXPECT_TRUE(t.reshape({3, 2}).is_stored());
  EXPECT_FALSE(t.permute({1, 0}).is_stored());
  EXPECT_FALSE(t.shrink({{0, 1}, {0, 3}}).is_stored());
  Tensor doubled = t * 2;
  EXPECT_FALSE(doubled.is_stored());
  EXPECT_EQ(reads, 0);
  doubled.realize();
  EXPECT_TRUE(doubled.is_stored());
  EXPECT_EQ(reads, 1);
}

TEST(FromLoader, EmptyTensorRealizesAndReadsNothing) {
  for (const Shape& shape : {Shape{0}, Shape{3, 0}, Shape{0, 17}}) {
    int reads = 0;
    Tensor t = CountingLoader(shape, {}, &reads);
    t.realize();
    EXPECT_EQ(t.shape(), shape);
    EXPECT_THAT(t.to_vector<float>(), IsEmpty());
    EXPECT_THAT(t.to_bytes(), IsEmpty());
    EXPECT_EQ(reads, 0);
  }
}

TEST(FromLoader, EmptyTensorInsideAGraph) {
  int reads = 0;
  Tensor empty = CountingLoader({0}, {}, &reads);
  EXPECT_THAT((empty + 1).to_vector<float>(), IsEmpty());
  EXPECT_THAT(Tensor::from_vector<float>({4, 5}).cat({empty}).to_vector<float>(), ElementsAre(4, 5));
  EXPECT_THAT(empty.sum().to_vector<float>(), ElementsAre(0));
  EXPECT_EQ(reads, 0);
}

TEST(FromLoader, EmptyTensorRealizedWithOthers) {
  int reads = 0;
  Tensor empty = CountingLoader({0}, {}, &reads), full = CountingLoader({2}, {7, 8}, &reads);
  Tensor::realize_all({empty, full});
  EXPECT_THAT(full.to_vector<float>(), ElementsAre(7, 8));
  EXPECT_THAT(empty.to_vector<float>(), IsEmpty());
  EXPECT_EQ(reads, 1);
}

TEST(FromLoader, EmptyTensorOfEveryLoaderDType) {
  for (DType dtype : {dtypes::uint16, dtypes::bfloat16, dtypes::int8, dtypes::float16}) {
    Tensor t = Tensor::from_loader({0, 4}, dtype, [](void*, size_t) { FAIL() << "nothing to read"; });
    EXPECT_THAT(t.to_bytes(), IsEmpty()) << dtype.name();
  }
}

// A loader's entry outlives its tensor until the next registration purges it; a buffer made meanwhile at
// the dead buffer's address (the allocator reuses it) must neither take its bytes nor its fill.
TEST(FromLoader, DroppedUnreadLoaderNeverFillsALaterBuffer) {
  for (int i = 0; i < 64; ++i) {
    int reads = 0;
    { Tensor dropped = CountingLoader({2}, {9, 9}, &reads); }
    Tensor empty = CountingLoader({0}, {}, &reads);
    Tensor kept = Tensor::from_vector<float>({1, 2});
    EXPECT_THAT(empty.to_vector<float>(), IsEmpty());
    EXPECT_THAT(Tensor::empty({0}).to_vector<float>(), IsEmpty());
    ASSERT_THAT((kept + 0).to_vector<float>(), ElementsAre(1, 2)) << "round " << i;
    EXPECT_EQ(reads, 0);
  }
}

}  // namespace
}  // namespace tg
