// tg::dist's NCCL path on 2 ranks without a GPU: run by mpirun.sh with
// TG_DIST_BACKEND=nccl and TG_NCCL_LIBRARY=<tests/dist's stub libnccl.so.2>, which implements NCCL on
// host pointers with MPI. CPU tensors reach it through the CPU plugin's tg.native_handles ("host"
// memory), so packing on the device, the NCCL calls, the stream sync and the write-back all run. The
// stub counts its calls: each test checks that NCCL, not tg::dist's MPI path, moved the values.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <string>
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

// The stub's call counters, through the handle tg::dist already holds (RTLD_NOLOAD: the same library).
struct StubCounters {
  StubCounters() {
    const char* path = std::getenv("TG_NCCL_LIBRARY");
    void* lib = path != nullptr ? dlopen(path, RTLD_NOW | RTLD_NOLOAD) : nullptr;
    if (lib == nullptr) return;
    calls = reinterpret_cast<int (*)(const char*)>(dlsym(lib, "tg_nccl_stub_calls"));
    last_count = reinterpret_cast<long long (*)(const char*)>(dlsym(lib, "tg_nccl_stub_last_count"));
    last_reduce_op = reinterpret_cast<int (*)()>(dlsym(lib, "tg_nccl_stub_last_reduce_op"));
  }
  int (*calls)(const char*) = nullptr;
  long long (*last_count)(const char*) = nullptr;
  int (*last_reduce_op)() = nullptr;
};

class Nccl : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { dist::init(); }
  void SetUp() override {
    ASSERT_EQ(dist::init().backend, "NCCL") << dist::init().backend_reason;
    ASSERT_NE(stub.calls, nullptr) << "the stub libnccl.so.2 is not loaded; TG_NCCL_LIBRARY=" << std::getenv("TG_NCCL_LIBRARY");
  }
  int AllReduceCalls() const { return stub.calls("ncclAllReduce"); }
  int rank = dist::rank(), size = dist::world_size();
  StubCounters stub;
};

TEST_F(Nccl, WorldNamesTheLibraryAndRunsOnTwoRanks) {
  EXPECT_EQ(size, 2) << "run by mpirun.sh 2";
  EXPECT_NE(dist::init().backend_reason.find("TG_DIST_BACKEND=nccl"), std::string::npos) << dist::init().backend_reason;
  EXPECT_NE(dist::init().backend_reason.find("2.21.6"), std::string::npos) << dist::init().backend_reason;
}

TEST_F(Nccl, AllreduceSumsSeveralDtypesWithOneCallPerDtype) {
  Tensor a = Tensor::full({2, 3}, 1.5f * (rank + 1));
  Tensor b = Tensor::full({4}, int64_t{10} * (rank + 1), dtypes::int64);
  Tensor c = Tensor::from_vector<float>({1.0f * rank, 2.0f, 3.0f}, Shape{3, 1});
  Tensor d = Tensor::from_vector<double>({0.25 * rank, -1.0});
  Tensor e = Tensor::from_vector<uint8_t>({static_cast<uint8_t>(rank + 1), 7});
  int before = AllReduceCalls();
  dist::allreduce({a, b, c, d, e}, ReduceOp::kSum);
  EXPECT_EQ(AllReduceCalls() - before, 4) << "one ncclAllReduce per dtype: float32, int64, float64, uint8";
  float tri = size * (size + 1) / 2.0f;
  EXPECT_EQ(a.shape(), (Shape{2, 3}));
  EXPECT_EQ(a.to_vector<float>(), std::vector<float>(6, 1.5f * tri));
  EXPECT_EQ(b.to_vector<int64_t>(), std::vector<int64_t>(4, static_cast<int64_t>(10 * tri)));
  EXPECT_EQ(c.shape(), (Shape{3, 1}));
  EXPECT_EQ(c.to_vector<float>(), (std::vector<float>{(size - 1) * size / 2.0f, 2.0f * size, 3.0f * size}));
  EXPECT_EQ(d.to_vector<double>(), (std::vector<double>{0.25 * (size - 1) * size / 2, -1.0 * size}));
  EXPECT_EQ(e.to_vector<uint8_t>(), (std::vector<uint8_t>{static_cast<uint8_t>(tri), static_cast<uint8_t>(7 * size)}));
}

TEST_F(Nccl, AllreduceOfLazyTensorsPacksThemIntoOneBuffer) {
  Tensor x = Tensor::arange(0, 12, 1, dtypes::float32).reshape({3, 4});
  Tensor y = (x * static_cast<float>(rank + 1)).sum({1});  // lazy: a reduce kernel, packed on the device
  Tensor z = x.permute({1, 0}) + 1.0f;                      // lazy, non-contiguous view of x
  dist::allreduce({y, z}, ReduceOp::kSum);
  EXPECT_EQ(stub.last_count("ncclAllReduce"), 3 + 12) << "both tensors in one flat buffer";
  EXPECT_EQ(y.to_vector<float>(), (std::vector<float>{6.0f * 3, 22.0f * 3, 38.0f * 3}));
  std::vector<float> zv = z.to_vector<float>();
  EXPECT_EQ(zv[0], 2.0f);        // x[0][0] + 1 on both ranks
  EXPECT_EQ(zv[1], 2.0f * 5);    // x[1][0] + 1 = 5
}

TEST_F(Nccl, AllreduceAverageMaxMin) {
  Tensor avg = Tensor::from_vector<double>({1.0 * rank, 4.0});
  Tensor avg32 = Tensor::from_vector<float>({2.0f * rank, -8.0f});
  Tensor mx = Tensor::from_vector<int32_t>({rank, -rank});
  Tensor mn = Tensor::from_vector<float>({static_cast<float>(rank), -1.0f * rank});
  dist::allreduce({avg, avg32}, ReduceOp::kAverage);
  // ncclAvg (4) from NCCL 2.10 on; before it a sum (0), divided on the device afterwards.
  const char* version = std::getenv("TG_NCCL_STUB_VERSION");
  EXPECT_EQ(stub.last_reduce_op(), version != nullptr && std::atoi(version) < 21000 ? 0 : 4);
  dist::allreduce({mx}, ReduceOp::kMax);
  dist::allreduce({mn}, ReduceOp::kMin);
  EXPECT_EQ(avg.to_vector<double>(), (std::vector<double>{(size - 1) / 2.0, 4.0}));
  EXPECT_EQ(avg32.to_vector<float>(), (std::vector<float>{static_cast<float>(size - 1), -8.0f}));
  EXPECT_EQ(mx.to_vector<int32_t>(), (std::vector<int32_t>{size - 1, 0}));
  EXPECT_EQ(mn.to_vector<float>(), (std::vector<float>{0.0f, -1.0f * (size - 1)}));
}

TEST_F(Nccl, RefusesWhatNcclCannotReduceBeforeSendingAnything) {
  int before = AllReduceCalls();
  EXPECT_THROW(dist::allreduce({Tensor::ones({2}, dtypes::int16)}), Error);
  EXPECT_THROW(dist::allreduce({Tensor::full({2}, true, dtypes::bool_)}), Error);
  EXPECT_THROW(dist::allreduce({Tensor::ones({2}, dtypes::int32)}, ReduceOp::kAverage), Error);
  EXPECT_EQ(AllReduceCalls(), before);
}

TEST_F(Nccl, BroadcastGivesEveryRankTheRootsValues) {
  for (int root : {0, size - 1}) {
    Tensor w = Tensor::full({3, 2}, static_cast<float>(rank + 1));
    Tensor ids = Tensor::full({5}, int64_t{100} + rank, dtypes::int64);
    Tensor flags = Tensor::full({3}, rank == root, dtypes::bool_);  // any dtype: bytes are broadcast
    int before = stub.calls("ncclBroadcast");
    dist::broadcast({w, ids, flags}, root);
    EXPECT_EQ(stub.calls("ncclBroadcast") - before, 3) << "one ncclBroadcast per dtype";
    EXPECT_EQ(w.to_vector<float>(), std::vector<float>(6, static_cast<float>(root + 1)));
    EXPECT_EQ(ids.to_vector<int64_t>(), std::vector<int64_t>(5, 100 + root));
    EXPECT_EQ(flags.cast(dtypes::uint8).to_vector<uint8_t>(), std::vector<uint8_t>(3, 1));
  }
  EXPECT_THROW(dist::broadcast({Tensor::ones({1})}, size), Error);
}

TEST_F(Nccl, AnNcclErrorIsATgErrorNamingTheCall) {
  setenv("TG_NCCL_STUB_FAIL", "ncclAllReduce", 1);  // on every rank: each fails the same way
  Tensor t = Tensor::ones({4});
  try {
    dist::allreduce({t});
    ADD_FAILURE() << "no tg::Error";
  } catch (const Error& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("ncclAllReduce"), std::string::npos) << m;
    EXPECT_NE(m.find("unhandled system error"), std::string::npos) << m;  // ncclGetErrorString's text
  }
  unsetenv("TG_NCCL_STUB_FAIL");
  dist::allreduce({t});  // the communicator still works
  EXPECT_EQ(t.to_vector<float>(), std::vector<float>(4, 1.0f * size));
}

// A small model trained data-parallel over NCCL: every rank holds bitwise the same parameters and
// running statistics after every step, and every step's gradients went through ncclAllReduce.
TEST_F(Nccl, TrainingKeepsReplicasBitwiseIdentical) {
  Tensor::manual_seed(7 + rank);  // different initial weights on purpose: the NCCL broadcast must fix that
  SmallNet net;
  int broadcasts = stub.calls("ncclBroadcast");
  dist::broadcast(nn::get_parameters(net));
  EXPECT_GT(stub.calls("ncclBroadcast"), broadcasts);
  nn::Adam adam(nn::get_parameters(net), 1e-2);
  dist::DistributedOptimizer opt(adam);
  dist::check_replicas(opt.replicated(), "initial parameters");
  for (int step = 0; step < 4; ++step) {
    auto [x, y] = RankBatch(rank, step);
    Training on;
    opt.zero_grad();
    net(x).sparse_categorical_crossentropy(y).backward();
    int before = AllReduceCalls();
    opt.step();
    // Gradients (one flat float32 buffer) and the running statistics: two NCCL allreduces.
    EXPECT_EQ(AllReduceCalls() - before, 2) << "step " << step;
    dist::check_replicas(opt.replicated());
  }
}

// Under tg::Jit the step is split around DistributedOptimizer::average, which reduces the flat
// gradients on the device over NCCL into a new tensor that the update JIT takes as input.
TEST_F(Nccl, TrainingUnderJitKeepsReplicasBitwiseIdentical) {
  Tensor::manual_seed(11);
  SmallNet net;
  dist::broadcast(nn::get_parameters(net));
  nn::Adam adam(nn::get_parameters(net), 1e-2);
  dist::DistributedOptimizer opt(adam);
  SplitJitStep jit(net, opt);
  for (int step = 0; step < 5; ++step) {  // calls 1, 2 (capture) and 3+ (replay) of both JITs
    auto [x, y] = RankBatch(rank, step);
    std::vector<Tensor> out = jit.backward({x, y});
    std::vector<float> flat_before = out[1].to_vector<float>();
    int before = AllReduceCalls();
    Tensor averaged = opt.average(out[1]);
    EXPECT_EQ(AllReduceCalls() - before, 1) << "step " << step;
    EXPECT_EQ(out[1].to_vector<float>(), flat_before) << "average() must leave its input alone";
    jit.update({averaged});
    opt.sync_buffers();
    dist::check_replicas(opt.replicated());
  }
  EXPECT_TRUE(jit.backward.captured());
  EXPECT_TRUE(jit.update.captured());
}

}  // namespace
}  // namespace tg
