// Eight threads build and realize independent graphs on one device at once, and each thread replays a
// tg::Jit of its own: the uses the concurrency contract (docs/concurrency.md) allows. Every result must
// be bit-exact with the same graph realized on one thread first. Shared underneath: the UOp table, the
// schedule and kernel caches, the device, its allocator and program cache. Meaningful under
// --config=tsan, where a data race fails the test; the results are checked in every build.
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "frontend/nn/nn.h"
#include "frontend/tg.h"
#include "gtest/gtest.h"
#include "tests/frontend/test_util.h"

namespace tg {
namespace {

constexpr int kThreads = 8;
constexpr int kKinds = 5;
constexpr int kSeeds = 12;  // inputs per kind, in kShapes shapes: few kernels to compile, then mostly cache hits
constexpr int kShapes = 3;

// Realizes per thread: TG_STRESS_ITERS, else 500 (40 under TSan, which runs every access ~10x slower).
int ItersPerThread() {
  if (const char* env = std::getenv("TG_STRESS_ITERS")) return std::atoi(env);
#if defined(__SANITIZE_THREAD__)
  return 40;
#else
  return 500;
#endif
}

Tensor Input(const Shape& shape, uint32_t seed) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return Tensor::from_vector<float>(testing::RandomFloats(static_cast<size_t>(n), seed), shape);
}

// One small graph of kind |kind| (elementwise, reduce, matmul, movement, mixed) whose data depends on
// |seed| and whose shape on seed % kShapes.
Tensor Graph(int kind, int seed) {
  int64_t n = 3 + seed % kShapes, m = 2 + seed % kShapes;
  Tensor a = Input({n, m}, 100 + seed), b = Input({n, m}, 200 + seed);
  switch (kind) {
    case 0: return ((a * b + 1).relu() - a.abs().sqrt()).maximum(b);
    case 1: return a.sum(1) + b.max(0).sum() + (a * b).mean(0).sum();
    case 2: return a.matmul(b.transpose()) + 0.5f;
    case 3: return a.permute({1, 0}).reshape({m * n}).pad({{1, 2}}, 0.25).flip(0)[{Slice{1, -1}}] * 2;
    default: return (a.matmul(b.permute({1, 0})).exp2().sum(0) + a.sum(0).sum()).reshape({1, n}).expand({2, n});
  }
}

std::vector<uint32_t> Bits(const std::vector<float>& v) {
  std::vector<uint32_t> bits(v.size());
  std::memcpy(bits.data(), v.data(), v.size() * sizeof(float));
  return bits;
}

// A per-thread jitted step: tg::Jit may not be shared, but one on every thread must work.
Jit::Function JitStep() {
  return [](const std::vector<Tensor>& in) {
    return std::vector<Tensor>{(in[0].matmul(in[1]) + in[0].sum(1, true)).relu()};
  };
}

std::vector<uint32_t> JitReference(int seed) {
  Tensor x = Input({4, 3}, 300 + seed), w = Input({3, 5}, 400 + seed);
  return Bits(JitStep()({x, w})[0].to_vector<float>());
}

TEST(ThreadedRealize, IndependentGraphsAndOwnJitsAgreeBitExactWithOneThread) {
  std::vector<std::vector<uint32_t>> want(kKinds * kSeeds), jit_want(kSeeds);
  for (int k = 0; k < kKinds; ++k)
    for (int s = 0; s < kSeeds; ++s) want[k * kSeeds + s] = Bits(Graph(k, s).to_vector<float>());
  for (int s = 0; s < kSeeds; ++s) jit_want[s] = JitReference(s);

  const int iters = ItersPerThread();
  std::atomic<int> mismatches{0}, errors{0}, realizes{0};
  std::vector<std::string> first_error(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      Jit step(JitStep());
      try {
        for (int i = 0; i < iters; ++i) {
          int k = (t + i) % (kKinds + 1), s = (t * 7 + i * 5) % kSeeds;
          std::vector<uint32_t> got;
          if (k == kKinds) {  // the thread's own Jit: plain, capture, then replays
            got = Bits(step({Input({4, 3}, 300 + s), Input({3, 5}, 400 + s)})[0].to_vector<float>());
            if (got != jit_want[s]) ++mismatches;
          } else {
            got = Bits(Graph(k, s).to_vector<float>());
            if (got != want[k * kSeeds + s]) ++mismatches;
          }
          ++realizes;
        }
      } catch (const Error& e) {
        first_error[t] = e.what();
        ++errors;
      }
    });
  for (std::thread& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(first_error[t], "") << "thread " << t;
  EXPECT_EQ(errors.load(), 0);
  EXPECT_EQ(mismatches.load(), 0) << "of " << realizes.load() << " realizes";
  EXPECT_EQ(realizes.load(), kThreads * iters);
}

// Realized tensors may be shared read-only: every thread uses the same weights in its own graphs and
// reads them back, while none of them changes them.
TEST(ThreadedRealize, SharedRealizedTensorsAreReadOnlyInputs) {
  Tensor w = Input({6, 4}, 7).realize(), bias = Input({4}, 8).realize();
  std::vector<std::vector<uint32_t>> want(kSeeds);
  auto graph = [&](int s) { return Input({3, 6}, 500 + s).matmul(w) + bias; };
  for (int s = 0; s < kSeeds; ++s) want[s] = Bits(graph(s).to_vector<float>());
  std::vector<uint32_t> w_bits = Bits(w.to_vector<float>());

  std::atomic<int> mismatches{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < ItersPerThread() / 4; ++i) {
        int s = (t + i) % kSeeds;
        if (Bits(graph(s).to_vector<float>()) != want[s]) ++mismatches;
        if (Bits(w.to_vector<float>()) != w_bits) ++mismatches;
      }
    });
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(mismatches.load(), 0);
}

// A safe_load tensor is read from its file when a kernel first needs it. Eight threads reading it at
// once must all see the file's bytes: the first fills the buffer, the others wait for it to finish.
TEST(ThreadedRealize, LazilyLoadedTensorReadFromEightThreadsAtOnce) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  std::string path = std::string(tmp ? tmp : "/tmp") + "/threaded.safetensors";
  std::vector<float> values = testing::RandomFloats(size_t{1} << 20, 9);  // 4 MB: a fill that takes a while
  nn::safe_save({{"w", Tensor::from_vector<float>(values)}}, path);
  std::vector<uint32_t> want = Bits(values);
  for (int round = 0; round < 3; ++round) {
    nn::StateDict loaded = nn::safe_load(path);
    Tensor w = loaded.at("w");
    std::atomic<int> mismatches{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
      threads.emplace_back([&, t] {
        std::vector<float> got = t % 2 == 0 ? w.to_vector<float>() : (w * 1).to_vector<float>();
        if (Bits(got) != want) ++mismatches;
      });
    for (std::thread& th : threads) th.join();
    EXPECT_EQ(mismatches.load(), 0) << "round " << round;
  }
}

}  // namespace
}  // namespace tg
