// tg::dist on 2 ranks. Run by mpirun through mpirun.sh: every rank runs every test,
// and the collectives inside a test meet their counterparts on the other rank. Also passes as one rank.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "frontend/dist/dist.h"
#include "frontend/nn/nn.h"
#include "frontend/tg.h"
#include "tests/dist/small_net.h"

namespace tg {
namespace {

using dist::ReduceOp;
using testing::RankBatch;
using testing::SmallNet;
using testing::SplitJitStep;

class Dist : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { dist::init(); }
  int rank = dist::rank(), size = dist::world_size();
};

// Rank r holds base(i) + r at element i: the sum over ranks is size * base(i) + size(size-1)/2.
template <class T>
void CheckSumOfOneDtype(int64_t n, int rank, int size) {
  std::vector<T> values(n);
  for (int64_t i = 0; i < n; ++i) values[i] = static_cast<T>(i % 7 + rank);
  Tensor t = Tensor::from_vector(values, Shape{n});
  dist::allreduce({t}, ReduceOp::kSum);
  std::vector<T> got = t.to_vector<T>();
  for (int64_t i = 0; i < n; ++i)
    ASSERT_EQ(got[i], static_cast<T>(size * (i % 7) + size * (size - 1) / 2)) << "element " << i << " of " << n;
}

TEST_F(Dist, WorldIsWhatMpirunStarted) {
  EXPECT_GE(size, 1);
  EXPECT_GE(rank, 0);
  EXPECT_LT(rank, size);
  EXPECT_EQ(dist::is_main_process(), rank == 0);
}

TEST_F(Dist, AllreduceSumsEveryDtypeAndSize) {
  for (int64_t n : {1, 7, 1000, (1 << 18) + 3}) {
    CheckSumOfOneDtype<float>(n, rank, size);
    CheckSumOfOneDtype<double>(n, rank, size);
    CheckSumOfOneDtype<int32_t>(n, rank, size);
    CheckSumOfOneDtype<int64_t>(n, rank, size);
    CheckSumOfOneDtype<uint8_t>(n, rank, size);
    CheckSumOfOneDtype<int16_t>(n, rank, size);
  }
}

TEST_F(Dist, AllreduceOfMixedDtypesIsOneCallAndKeepsShapes) {
  Tensor a = Tensor::full({2, 3}, 1.5f * (rank + 1));
  Tensor b = Tensor::full({4}, int64_t{10} * (rank + 1), dtypes::int64);
  Tensor c = Tensor::full({3, 1}, 2.0f);
  dist::allreduce({a, b, c}, ReduceOp::kSum);
  float tri = size * (size + 1) / 2.0f;
  EXPECT_EQ(a.shape(), (Shape{2, 3}));
  EXPECT_EQ(a.to_vector<float>(), std::vector<float>(6, 1.5f * tri));
  EXPECT_EQ(b.to_vector<int64_t>(), std::vector<int64_t>(4, static_cast<int64_t>(10 * tri)));
  EXPECT_EQ(c.to_vector<float>(), std::vector<float>(3, 2.0f * size));
}

TEST_F(Dist, AllreduceAverageMaxMin) {
  Tensor avg = Tensor::from_vector<double>({1.0 * rank, 4.0});
  Tensor mx = Tensor::from_vector<int32_t>({rank, -rank});
  Tensor mn = Tensor::from_vector<float>({static_cast<float>(rank), -1.0f * rank});
  dist::allreduce({avg}, ReduceOp::kAverage);
  dist::allreduce({mx}, ReduceOp::kMax);
  dist::allreduce({mn}, ReduceOp::kMin);
  EXPECT_EQ(avg.to_vector<double>(), (std::vector<double>{(size - 1) / 2.0, 4.0}));
  EXPECT_EQ(mx.to_vector<int32_t>(), (std::vector<int32_t>{size - 1, 0}));
  EXPECT_EQ(mn.to_vector<float>(), (std::vector<float>{0.0f, -1.0f * (size - 1)}));
}

TEST_F(Dist, AllreduceHostBufferOfSixtyFourMiB) {
  std::vector<float> values(16 << 20, 0.25f * (rank + 1));
  dist::allreduce_host(values.data(), static_cast<int64_t>(values.size()), dtypes::float32, ReduceOp::kAverage);
  float expected = 0.25f * (size + 1) / 2.0f;
  EXPECT_EQ(values.front(), expected);
  EXPECT_EQ(values[values.size() / 2], expected);
  EXPECT_EQ(values.back(), expected);
}

TEST_F(Dist, AllreduceRefusesWhatMpiCannotReduce) {  // refused on every rank before anything is sent
  EXPECT_THROW(dist::allreduce({Tensor::full({2}, true, dtypes::bool_)}), Error);
  EXPECT_THROW(dist::allreduce({Tensor::ones({2}, dtypes::float16)}), Error);
  std::vector<int32_t> ints(4, 1);
  EXPECT_THROW(dist::allreduce_host(ints.data(), 4, dtypes::int32, ReduceOp::kAverage), Error);
}

TEST_F(Dist, BroadcastGivesEveryRankTheRootsValues) {
  for (int root : {0, size - 1}) {
    Tensor w = Tensor::full({3, 2}, static_cast<float>(rank + 1));
    Tensor ids = Tensor::full({5}, int64_t{100} + rank, dtypes::int64);
    dist::broadcast({w, ids}, root);
    EXPECT_EQ(w.to_vector<float>(), std::vector<float>(6, static_cast<float>(root + 1)));
    EXPECT_EQ(ids.to_vector<int64_t>(), std::vector<int64_t>(5, 100 + root));
  }
  EXPECT_THROW(dist::broadcast({Tensor::ones({1})}, size), Error);
}

TEST_F(Dist, CheckReplicasFindsARankThatDiffers) {
  dist::check_replicas({Tensor::full({4}, 3.0f)});  // equal everywhere: no error
  if (size == 1) return;
  EXPECT_THROW(dist::check_replicas({Tensor::full({4}, static_cast<float>(rank == 1))}), Error);
}

TEST_F(Dist, SamplerShardsAreDisjointAndCoverTheEpoch) {
  const int64_t n = 1000;
  for (int64_t epoch : {0, 1}) {
    dist::DistributedSampler sampler(n, rank, size, /*shuffle=*/true, /*seed=*/42);
    sampler.set_epoch(epoch);
    std::vector<int32_t> seen(n, 0);
    for (int64_t i : sampler.indices()) seen[i] += 1;
    dist::allreduce_host(seen.data(), n, dtypes::int32, ReduceOp::kSum);
    if (n % size == 0)
      for (int64_t i = 0; i < n; ++i) ASSERT_EQ(seen[i], 1) << "index " << i << ", epoch " << epoch;
  }
}

// A small model trained data-parallel (small_net.h): each rank sees its own data, and after every step
// every rank holds bitwise the same parameters and running statistics.
TEST_F(Dist, TrainingKeepsReplicasIdenticalAfterEveryStepEagerly) {
  Tensor::manual_seed(7 + rank);  // different initial weights on purpose: broadcast must fix that
  SmallNet net;
  dist::broadcast(nn::get_parameters(net));
  nn::Adam adam(nn::get_parameters(net), 1e-2);
  dist::DistributedOptimizer opt(adam);
  dist::check_replicas(opt.replicated(), "initial parameters");
  for (int step = 0; step < 4; ++step) {
    auto [x, y] = RankBatch(rank, step);
    Training on;
    opt.zero_grad();
    net(x).sparse_categorical_crossentropy(y).backward();
    opt.step();
    dist::check_replicas(opt.replicated());
  }
}

TEST_F(Dist, TrainingKeepsReplicasIdenticalAfterEveryStepUnderJit) {
  Tensor::manual_seed(11);
  SmallNet net;
  dist::broadcast(nn::get_parameters(net));
  nn::Adam adam(nn::get_parameters(net), 1e-2);
  dist::DistributedOptimizer opt(adam);
  SplitJitStep jit(net, opt);
  for (int step = 0; step < 6; ++step) {  // calls 1, 2 (capture) and 3+ (replay) of both JITs
    auto [x, y] = RankBatch(rank, step);
    std::vector<Tensor> out = jit.backward({x, y});
    jit.update({opt.average(out[1])});
    opt.sync_buffers();
    dist::check_replicas(opt.replicated());
  }
  EXPECT_TRUE(jit.backward.captured());
  EXPECT_TRUE(jit.update.captured());
}

// The update is the one of the averaged gradient: SGD with lr 1 moves each weight by minus the mean
// over the ranks of that weight's gradient.
TEST_F(Dist, TheStepUsesTheMeanOfTheRanksGradients) {
  Tensor::manual_seed(3);
  nn::Linear layer(4, 2);
  nn::SGD sgd(nn::parameters(layer), 1.0);
  dist::DistributedOptimizer opt(sgd);
  auto [x, y] = RankBatch(rank, 0);
  Tensor::manual_seed(5 + rank);
  Tensor input = Tensor::randn({8, 4});
  std::vector<float> before = layer.weight.to_vector<float>();
  Training on;
  opt.zero_grad();
  (layer(input).square().sum()).backward();
  std::vector<float> grad = layer.weight.grad().to_vector<float>();
  dist::allreduce_host(grad.data(), static_cast<int64_t>(grad.size()), dtypes::float32, ReduceOp::kAverage);
  opt.step();
  std::vector<float> after = layer.weight.to_vector<float>();
  for (size_t i = 0; i < after.size(); ++i) EXPECT_NEAR(after[i], before[i] - grad[i], 1e-5) << i;
}

}  // namespace
}  // namespace tg
