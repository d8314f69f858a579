// The reference interpreter and the generator, checked by hand: a wrong reference would hide compiler bugs.
#include <cmath>

#include "gtest/gtest.h"
#include "tests/fuzz/program_generator.h"
#include "tests/fuzz/reference_eval.h"

namespace tg::fuzz {
namespace {

Step In(Dims d, std::vector<float> data) {
  Step s;
  s.dims = std::move(d);
  s.data = std::move(data);
  return s;
}

Step Op(StepKind kind, std::vector<int> src, Dims dims) {
  Step s;
  s.kind = kind;
  s.src = std::move(src);
  s.dims = std::move(dims);
  return s;
}

TEST(ReferenceEvalTest, MovementAndReduce) {
  Program p;
  p.steps.push_back(In({2, 3}, {1, 2, 3, 4, 5, 6}));
  Step perm = Op(StepKind::kPermute, {0}, {3, 2});
  perm.ints = {1, 0};
  p.steps.push_back(perm);
  Step pad = Op(StepKind::kPad, {1}, {3, 3});
  pad.pairs = {{0, 0}, {1, 0}};
  p.steps.push_back(pad);
  Step flip = Op(StepKind::kFlip, {2}, {3, 3});
  flip.ints = {-2};
  p.steps.push_back(flip);
  Step sum = Op(StepKind::kReduce, {3}, {3});
  sum.ints = {1};
  p.steps.push_back(sum);
  std::vector<RefArray> r = EvalProgram(p);
  EXPECT_EQ(r[1].value, (std::vector<double>{1, 4, 2, 5, 3, 6}));
  EXPECT_EQ(r[2].value, (std::vector<double>{0, 1, 4, 0, 2, 5, 0, 3, 6}));
  EXPECT_EQ(r[3].value, (std::vector<double>{0, 3, 6, 0, 2, 5, 0, 1, 4}));
  EXPECT_EQ(r[4].value, (std::vector<double>{9, 7, 5}));
}

TEST(ReferenceEvalTest, BroadcastMatmulAndUncertainCompare) {
  Program p;
  p.steps.push_back(In({2, 2}, {1, 2, 3, 4}));
  p.steps.push_back(In({2, 1}, {1, 10}));
  p.steps.push_back(Op(StepKind::kMatmul, {0, 1}, {2, 1}));
  Step add = Op(StepKind::kBinary, {0, 1}, {2, 2});  // (2,2) + (2,1)
  p.steps.push_back(add);
  Step third = Op(StepKind::kConstBinary, {0}, {2, 2});
  third.op = static_cast<int>(BinaryOp::kDiv);
  third.constant = 3;
  p.steps.push_back(third);
  Step cmp = Op(StepKind::kCompare, {4, 4}, {2, 2});  // x == x, but x carries rounding error
  cmp.op = static_cast<int>(CompareOp::kEq);
  p.steps.push_back(cmp);
  std::vector<RefArray> r = EvalProgram(p);
  EXPECT_EQ(r[2].value, (std::vector<double>{21, 43}));
  EXPECT_EQ(r[3].value, (std::vector<double>{2, 3, 13, 14}));
  EXPECT_GT(r[4].err[0], 0);
  EXPECT_EQ(r[5].err[0], 1);  // too close to call: not compared
}

TEST(ReferenceEvalTest, GeneratorIsDeterministicAndConsistent) {
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    Program a = GenerateProgram(seed), b = GenerateProgram(seed);
    ASSERT_EQ(ProgramString(a), ProgramString(b));
    std::vector<RefArray> r = EvalProgram(a);  // throws if a recorded shape disagrees
    for (const RefArray& x : r)
      for (size_t i = 0; i < x.value.size(); ++i) ASSERT_TRUE(std::isfinite(x.value[i])) << ProgramString(a);
  }
}

}  // namespace
}  // namespace tg::fuzz
