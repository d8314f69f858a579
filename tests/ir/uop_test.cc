#include "ir/uop.h"

#include <algorithm>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace tg {
namespace {

UOpRef Buf(int64_t id, int64_t size, DType d = dtypes::float32) {
  return UOp::Make(Ops::kBuffer, d, {}, BufferArg{id, "CPU", size, nullptr});
}

// The message of the tg::Error |fn| throws, or "" when it does not throw.
template <class Fn>
std::string ErrorOf(Fn fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(UOpTest, EqualStructureIsTheSameObject) {
  UOpRef a = UOp::Const(dtypes::int32, 3);
  UOpRef b = UOp::Const(dtypes::int32, 3);
  EXPECT_EQ(a.get(), b.get());
  UOpRef x = UOp::Variable("x", 0, 10);
  EXPECT_EQ((x + 3).get(), (x + 3).get());
  EXPECT_EQ((x * 2 + 1).get(), (x * 2 + 1).get());
  EXPECT_EQ(Buf(7, 4).get(), Buf(7, 4).get());
}

TEST(UOpTest, DifferentArgOrDtypeIsADifferentObject) {
  EXPECT_NE(UOp::Const(dtypes::int32, 3).get(), UOp::Const(dtypes::int32, 4).get());
  EXPECT_NE(UOp::Const(dtypes::int32, 3).get(), UOp::Const(dtypes::int64, 3).get());
  EXPECT_NE(UOp::Const(dtypes::float32, 0.0).get(), UOp::Const(dtypes::float32, -0.0).get());
  UOpRef x = UOp::Variable("x", 0, 10);
  EXPECT_NE((x + 3).get(), (x * 3).get());
  EXPECT_NE((x + 3).get(), (3 + x).get());  // source order is structure
  EXPECT_NE(Buf(7, 4).get(), Buf(8, 4).get());
  UOpRef b = Buf(9, 6);
  EXPECT_NE(b->reshape({2, 3}).get(), b->reshape({3, 2}).get());
}

TEST(UOpTest, BufferIdentityIgnoresStorage) {
  auto storage = std::make_shared<int>(5);
  UOpRef with = UOp::Make(Ops::kBuffer, dtypes::float32, {}, BufferArg{42, "CPU", 4, storage});
  EXPECT_EQ(with.get(), Buf(42, 4).get());
}

TEST(UOpTest, MakeNewInternsLikeMake) {
  UOpRef fresh = UOp::MakeNew(Ops::kBuffer, dtypes::float32, {}, BufferArg{4242, "CPU", 4, nullptr});
  EXPECT_EQ(Buf(4242, 4).get(), fresh.get());  // entered: a later Make finds it
  // A node that was not new after all is the live one, as Make would have returned.
  UOpRef again = UOp::MakeNew(Ops::kBuffer, dtypes::float32, {}, BufferArg{4242, "CPU", 4, nullptr});
  EXPECT_EQ(again.get(), fresh.get());
  size_t live = UOp::LiveCount();
  again.reset();
  EXPECT_EQ(UOp::LiveCount(), live);
}

TEST(UOpTest, NodesAreFreedWhenUnreferenced) {
  size_t before = UOp::LiveCount();
  {
    UOpRef x = UOp::Variable("fresh_var_for_free_test", 0, 1000);
    UOpRef e = (x * 12345 + 678) % 91011;
    EXPECT_GE(UOp::LiveCount(), before + 6);  // x, its two bounds, 12345, *, 678, +, 91011, %
    std::weak_ptr<const UOp> watch = e;
    e.reset();
    EXPECT_TRUE(watch.expired());
  }
  EXPECT_EQ(UOp::LiveCount(), before);
}

TEST(UOpTest, DeepChainBuildsAndFreesWithoutRecursion) {
  size_t before = UOp::LiveCount();
  {
    UOpRef x = UOp::Variable("deep", 0, 1);
    UOpRef chain = x;
    for (int i = 0; i < 200000; ++i) chain = chain + x;
    EXPECT_EQ(chain->toposort().size(), 200000u + 3);  // the adds, x, x's two bound consts
  }
  EXPECT_EQ(UOp::LiveCount(), before);
}

TEST(UOpTest, ConcurrentMakeInterns) {
  std::vector<const UOp*> seen(8);
  std::vector<UOpRef> keep(8);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      UOpRef v = UOp::Variable("shared", 0, 9);
      for (int i = 0; i < 2000; ++i) v = v * 3 + 1 - v;  // churn: many nodes die and are rebuilt
      keep[t] = v;
      seen[t] = v.get();
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 1; t < 8; ++t) EXPECT_EQ(seen[t], seen[0]);
}

TEST(UOpTest, ConstStoresTheDtypeKind) {
  EXPECT_TRUE(std::holds_alternative<double>(UOp::Const(dtypes::float32, int64_t{2})->arg()));
  EXPECT_TRUE(std::holds_alternative<int64_t>(UOp::Const(dtypes::int8, 2.9)->arg()));
  EXPECT_EQ(UOp::Const(dtypes::int8, 2.9)->const_int(), 2);
  EXPECT_TRUE(std::holds_alternative<bool>(UOp::Const(dtypes::bool_, int64_t{5})->arg()));
  EXPECT_EQ(UOp::Const(dtypes::uint8, int64_t{-1})->const_int(), 255);
  UOpRef x = UOp::Variable("x", 0, 4);
  EXPECT_EQ(x->const_like(7)->dtype(), x->dtype());
  EXPECT_TRUE(UOp::Const(dtypes::float32, 0.0)->is_const_value(int64_t{0}));
  EXPECT_THROW(x->const_value(), Error);
  EXPECT_THROW(x->arg_as<int64_t>(), Error);
  EXPECT_EQ(x->arg_as<std::string>(), "x");
}

TEST(UOpTest, OperatorsBuildTheDocumentedOps) {
  UOpRef i = UOp::Variable("i", 0, 9);
  UOpRef f = UOp::Make(Ops::kDefineVar, dtypes::float32, {}, std::string("f"));
  EXPECT_EQ((i / 2)->op(), Ops::kIdiv);
  EXPECT_EQ((f / 2)->op(), Ops::kFdiv);
  EXPECT_EQ((f / 2)->src(1)->const_value(), ConstValue(2.0));  // a number becomes a CONST of the other side
  UOpRef isub = i - 3;
  ASSERT_EQ(isub->op(), Ops::kAdd);
  EXPECT_EQ(isub->src(1)->op(), Ops::kMul);  // a + b*(-1)
  UOpRef fsub = f - f;
  EXPECT_EQ(fsub->src(1)->op(), Ops::kNeg);
  EXPECT_EQ(lt(i, 3)->dtype(), dtypes::bool_);
  EXPECT_EQ(ne(i, i)->op(), Ops::kCmpNe);
  EXPECT_EQ(lt(i, 3)->where(f, f * 2)->dtype(), dtypes::float32);
  EXPECT_EQ((1 + i)->src(0)->const_int(), 1);
  EXPECT_EQ(maximum(i, 0)->op(), Ops::kMax);
  EXPECT_EQ(logical_and(lt(i, 3), lt(i, 5))->op(), Ops::kAnd);
}

TEST(UOpTest, MovementShapes) {
  UOpRef b = Buf(100, 24);
  EXPECT_EQ(b->shape(), Shape({24}));
  UOpRef r = b->reshape({2, 3, 4});
  EXPECT_EQ(r->shape(), Shape({2, 3, 4}));
  EXPECT_EQ(r->numel(), 24);
  EXPECT_EQ(r->permute({2, 0, 1})->shape(), Shape({4, 2, 3}));
  EXPECT_EQ(r->reshape({2, 1, 12})->expand({2, 5, 12})->shape(), Shape({2, 5, 12}));
  EXPECT_EQ(r->pad({{1, 0}, {0, 2}, {3, 3}})->shape(), Shape({3, 5, 10}));
  EXPECT_EQ(r->shrink({{0, 1}, {1, 3}, {0, 4}})->shape(), Shape({1, 2, 4}));
  EXPECT_EQ(r->flip({true, false, true})->shape(), Shape({2, 3, 4}));
  EXPECT_EQ(r->reduce(Ops::kAdd, {-1, 0})->shape(), Shape({1, 3, 1}));
  EXPECT_EQ(r->reduce(Ops::kAdd, {-1, 0}).get(), r->reduce(Ops::kAdd, {0, 2}).get());
  EXPECT_EQ(r->cast(dtypes::float16)->shape(), Shape({2, 3, 4}));
  EXPECT_EQ(UOp::Make(Ops::kCopy, dtypes::float32, {r}, std::string("OPENCL"))->shape(), Shape({2, 3, 4}));
  EXPECT_EQ(UOp::Const(dtypes::float32, 1.0)->shape(), Shape{});
}

TEST(UOpTest, ElementwiseShapesMixScalars) {
  UOpRef r = Buf(101, 6)->reshape({2, 3});
  EXPECT_EQ((r + 1.0)->shape(), Shape({2, 3}));
  EXPECT_EQ((2.0 * r)->shape(), Shape({2, 3}));
  EXPECT_EQ((r * r)->shape(), Shape({2, 3}));
  EXPECT_EQ(lt(r, r)->shape(), Shape({2, 3}));
}

TEST(UOpTest, ShapeErrorsNameTheOpAndShapes) {
  UOpRef r = Buf(102, 6)->reshape({2, 3});
  EXPECT_EQ(ErrorOf([&] { r->reshape({4, 2}); }),
            "RESHAPE on shape (2, 3): cannot reshape to (4, 2): element counts differ (6 vs 8)");
  EXPECT_EQ(ErrorOf([&] { r + r->reshape({3, 2}); }),
            "ADD: source shapes differ: (2, 3) vs (3, 2) (broadcast them to one shape first)");
  EXPECT_EQ(ErrorOf([&] { r->expand({4, 3}); }),
            "EXPAND on shape (2, 3): cannot expand to (4, 3): axis 0 is 2, only size-1 axes expand");
  EXPECT_EQ(ErrorOf([&] { r->permute({0, 0}); }), "PERMUTE on shape (2, 3): invalid permutation (0, 0)");
  EXPECT_EQ(ErrorOf([&] { r->shrink({{0, 3}, {0, 3}}); }),
            "SHRINK on shape (2, 3): axis 0 range [0, 3) is outside [0, 2]");
  EXPECT_NE(ErrorOf([&] { r->pad({{1, 1}}); }).find("two numbers per axis"), std::string::npos);
  EXPECT_EQ(ErrorOf([&] { r->reduce(Ops::kAdd, {2}); }), "REDUCE on shape (2, 3): axis 2 is out of range");
  EXPECT_NE(ErrorOf([&] { r->flip({true}); }).find("FLIP"), std::string::npos);
  EXPECT_NE(ErrorOf([&] { UOp::Make(Ops::kAdd, dtypes::float32, {r}); }).find("ADD needs 2 sources"),
            std::string::npos);
}

TEST(UOpTest, RangeAnalysis) {
  UOpRef r = UOp::Range(8, 0);
  EXPECT_EQ(r->vmin(), 0);
  EXPECT_EQ(r->vmax(), 7);
  UOpRef v = UOp::Variable("v", -3, 5);
  EXPECT_EQ(v->vmin(), -3);
  EXPECT_EQ(v->vmax(), 5);
  EXPECT_EQ((r * 4 + 3)->vmin(), 3);
  EXPECT_EQ((r * 4 + 3)->vmax(), 31);
  EXPECT_EQ((r * -2)->vmin(), -14);
  EXPECT_EQ((r * v)->vmin(), -21);
  EXPECT_EQ((r * v)->vmax(), 35);
  EXPECT_EQ((v / 2)->vmin(), -1);  // C truncation: -3/2 == -1
  EXPECT_EQ((v / 2)->vmax(), 2);
  EXPECT_EQ((v % 4)->vmin(), -3);  // C remainder takes the sign of the dividend
  EXPECT_EQ((v % 4)->vmax(), 3);
  EXPECT_EQ((r % 100)->vmax(), 7);
  EXPECT_EQ(maximum(v, 0)->vmin(), 0);
  EXPECT_EQ(lt(r, 8)->vmin(), 1);
  EXPECT_EQ(lt(r, 7)->vmax(), 1);
  EXPECT_EQ(lt(r, 7)->vmin(), 0);
  EXPECT_EQ(lt(r, 0)->vmax(), 0);
  EXPECT_EQ(lt(r, 4)->where(r, v + 100)->vmax(), 105);
  EXPECT_EQ((-v)->vmin(), -5);
  EXPECT_EQ(UOp::Special("gidx0", 16)->vmax(), 15);
  EXPECT_EQ((r + 1)->cast(dtypes::int8)->vmax(), 8);
  UOpRef big = UOp::Variable("big", 0, 2000000000);
  EXPECT_EQ((big * 4)->vmax(), DTypeMaxInt(dtypes::int32));  // would wrap in int32: unknown
  EXPECT_EQ((big * 4)->vmin(), DTypeMinInt(dtypes::int32));
}

TEST(UOpTest, ToposortAndStr) {
  UOpRef x = UOp::Variable("x", 0, 3);
  UOpRef e = (x + 1) * (x + 1);
  std::vector<UOpRef> order = e->toposort();
  EXPECT_EQ(order.back().get(), e.get());
  EXPECT_EQ(order.size(), 6u);  // min, max, x, 1, x+1, e
  std::string dump = e->str();
  EXPECT_NE(dump.find("DEFINE_VAR"), std::string::npos);
  EXPECT_NE(dump.find("MUL"), std::string::npos);
  EXPECT_EQ(std::count(dump.begin(), dump.end(), '\n'), 6);
}

}  // namespace
}  // namespace tg
