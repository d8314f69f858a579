// fashion_mnist: trains a small CNN on Fashion-MNIST with Adam under tg::Jit, then reports test accuracy.
// The README's main command:   ./bazelw run -c opt //apps:fashion_mnist [-- --help]
#include <algorithm>
#include <cstdio>
#include <numeric>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "apps/device_flag.h"
#include "apps/fashion_mnist_data.h"
#include "apps/mnist_cnn.h"
#include "apps/progress.h"
#include "frontend/dist/dist.h"
#include "frontend/nn/nn.h"
#include "frontend/tg.h"

ABSL_FLAG(std::string, device, "", "device to train on (CPU, OPENCL, CUDA, ...; default: TG_DEVICE or the first)");
ABSL_FLAG(int, epochs, 3, "passes over the 60000 training images");
ABSL_FLAG(int, batch, 128, "training batch size");
ABSL_FLAG(double, lr, 3e-3, "Adam learning rate (decays linearly to 10% over the run)");
ABSL_FLAG(std::string, save, "", "write the trained model to this safetensors file");
ABSL_FLAG(std::string, load, "", "start from this safetensors file (with --epochs=0: evaluate only)");
ABSL_FLAG(std::string, data, tg::apps::kFashionMnistDir, "folder with the four IDX .gz files");
ABSL_FLAG(int, seed, 1337, "seed for initialisation and shuffling");
ABSL_FLAG(int, max_steps, 0, "stop each epoch after this many steps (0 = whole epoch; for smoke tests)");
ABSL_FLAG(int, train_limit, 0, "train on the first N training images only (0 = all 60000; for tests)");
ABSL_FLAG(int, test_limit, 0, "evaluate on the first N test images only, a multiple of 1000 (0 = all 10000)");
ABSL_FLAG(bool, distributed, false,
          "data-parallel over MPI: run under `mpirun -np N`; --batch is per rank (global batch N x batch), "
          "each rank trains on its own shard, rank 0 alone prints and saves");
ABSL_FLAG(bool, check_replicas, false, "with --distributed: check after every step that every rank holds bitwise "
          "the same parameters (a tg::Error otherwise)");

namespace {

using tg::Tensor;
using tg::apps::MnistCnn;
using tg::apps::MnistSplit;

constexpr int64_t kEvalBatch = 1000;

// Test accuracy with the running BatchNorm statistics, in fixed-size batches under a JIT of its own.
// One training-mode forward pass and backward pass of |model| on a batch: {loss, batch accuracy}, with
// the parameters' gradients filled in.
std::pair<Tensor, Tensor> ForwardBackward(MnistCnn& model, const Tensor& x, const Tensor& y) {
  Tensor logits = model(x);
  Tensor loss = logits.sparse_categorical_crossentropy(y);
  loss.backward();
  Tensor acc = (logits.argmax(-1).cast(tg::dtypes::int32) == y).cast(tg::dtypes::float32).mean();
  return {loss, acc};
}

double Evaluate(MnistCnn& model, const MnistSplit& test, const std::string& device) {
  tg::Jit predict([&](const std::vector<Tensor>& in) {
    return std::vector<Tensor>{(model(in[0]).argmax(-1).cast(tg::dtypes::int32) == in[1]).sum()};
  });
  int64_t correct = 0, seen = 0;
  std::vector<int64_t> idx(kEvalBatch);
  for (int64_t start = 0; start + kEvalBatch <= test.size; start += kEvalBatch) {
    std::iota(idx.begin(), idx.end(), start);
    auto [x, y] = test.Batch(idx, device);
    correct += predict({x, y})[0].cast(tg::dtypes::int64).item<int64_t>();
    seen += kEvalBatch;
  }
  return seen ? static_cast<double>(correct) / seen : 0.0;
}

// One pass over |train| in a shuffled order, |steps| batches; returns the mean loss.
double TrainEpoch(tg::Jit& step, const MnistSplit& train, int64_t batch, int64_t steps, std::mt19937_64& rng,
                  const std::string& device, const std::string& label, tg::nn::LRScheduler& schedule) {
  std::vector<int64_t> order(train.size);
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), rng);
  tg::apps::Progress bar(label, steps);
  double loss_sum = 0;
  for (int64_t s = 0; s < steps; ++s) {
    std::vector<int64_t> idx(order.begin() + s * batch, order.begin() + (s + 1) * batch);
    auto [x, y] = train.Batch(idx, device);
    std::vector<Tensor> out = step({x, y});
    float loss = out[0].item<float>(), acc = out[1].item<float>();
    schedule.step();
    loss_sum += loss;
    bar.Update(s + 1, {{"loss", loss}, {"acc", acc}});
  }
  bar.Finish();
  return loss_sum / std::max<int64_t>(steps, 1);
}

// ---- --distributed: the same model, optimizer and schedule on every rank; each rank
// trains on its shard of every epoch (DistributedSampler) and averages gradients before each step
// (DistributedOptimizer), so the ranks' parameters stay identical. The step runs as two JITs, with the
// host allreduce between them: a captured JIT cannot read data.
struct DistributedTrainer {
  DistributedTrainer(MnistCnn& model, tg::nn::Optimizer& adam)
      : opt(adam),
        backward([this, &model](const std::vector<Tensor>& in) {
          tg::Training on;
          opt.zero_grad();
          auto [loss, acc] = ForwardBackward(model, in[0], in[1]);
          std::vector<Tensor> out = {loss, acc, opt.flat_gradients()};
          out.insert(out.end(), opt.buffers().begin(), opt.buffers().end());  // running statistics
          return out;
        }),
        update([this](const std::vector<Tensor>& in) {
          tg::Training on;
          return opt.schedule_step(in[0]);
        }) {}

  // One step on this rank's batch; returns this rank's {loss, accuracy}.
  std::pair<float, float> Step(const Tensor& x, const Tensor& y) {
    std::vector<Tensor> out = backward({x, y});
    update({opt.average(out[2])});
    opt.sync_buffers();  // running statistics: each rank saw other data
    return {out[0].item<float>(), out[1].item<float>()};
  }

  tg::dist::DistributedOptimizer opt;
  tg::Jit backward, update;
};

double TrainEpochDistributed(DistributedTrainer& trainer, const MnistSplit& train, int64_t batch, int64_t steps,
                             const std::vector<int64_t>& shard, const std::string& device, const std::string& label,
                             tg::nn::LRScheduler& schedule, bool check_replicas) {
  std::optional<tg::apps::Progress> bar;
  if (tg::dist::is_main_process()) bar.emplace(label, steps);
  double loss_sum = 0;
  for (int64_t s = 0; s < steps; ++s) {
    std::vector<int64_t> idx(shard.begin() + s * batch, shard.begin() + (s + 1) * batch);
    auto [x, y] = train.Batch(idx, device);
    auto [loss, acc] = trainer.Step(x, y);
    if (check_replicas) tg::dist::check_replicas(trainer.opt.replicated());
    schedule.step();
    loss_sum += loss;
    if (bar) bar->Update(s + 1, {{"loss", loss}, {"acc", acc}});
  }
  if (bar) bar->Finish();
  return loss_sum / std::max<int64_t>(steps, 1);
}

// Keeps the first |limit| images of |split| (0 keeps all): a fixed subset, so a test trains and evaluates
// on the same images every run.
void KeepFirst(tg::apps::MnistSplit& split, int64_t limit, const char* flag) {
  if (limit < 0) throw tg::Error(std::string(flag) + " must be >= 0");
  if (limit == 0 || limit >= split.size) return;
  split.size = limit;
  split.pixels.resize(static_cast<size_t>(limit) * 28 * 28);
  split.labels.resize(static_cast<size_t>(limit));
}

// The dataset of --data, cut to --train_limit / --test_limit.
tg::apps::MnistDataset LoadData() {
  int test_limit = absl::GetFlag(FLAGS_test_limit);
  if (test_limit % kEvalBatch != 0)
    throw tg::Error("--test_limit must be a multiple of " + std::to_string(kEvalBatch) + ", got " +
                    std::to_string(test_limit));
  tg::apps::MnistDataset data = tg::apps::LoadFashionMnist(absl::GetFlag(FLAGS_data));
  KeepFirst(data.train, absl::GetFlag(FLAGS_train_limit), "--train_limit");
  KeepFirst(data.test, test_limit, "--test_limit");
  return data;
}

int RunDistributed() {
  const tg::dist::WorldInfo& world = tg::dist::init();
  const bool main_rank = world.rank == 0;
  std::string device = tg::apps::UseDevice(absl::GetFlag(FLAGS_device));
  int epochs = absl::GetFlag(FLAGS_epochs);
  int64_t batch = absl::GetFlag(FLAGS_batch);
  if (epochs < 0 || batch < 1) throw tg::Error("--epochs must be >= 0 and --batch >= 1");
  tg::apps::MnistDataset data = LoadData();
  tg::dist::DistributedSampler sampler(data.train.size, world.rank, world.size, /*shuffle=*/true,
                                       static_cast<uint64_t>(absl::GetFlag(FLAGS_seed)));
  if (batch > sampler.num_samples()) throw tg::Error("--batch is larger than a rank's share of the training set");
  tg::Tensor::manual_seed(absl::GetFlag(FLAGS_seed));
  MnistCnn model;
  if (!absl::GetFlag(FLAGS_load).empty())
    tg::nn::load_state_dict(model, tg::nn::safe_load(absl::GetFlag(FLAGS_load), device));
  tg::dist::broadcast(tg::nn::get_parameters(model));  // every rank starts from rank 0's model
  if (main_rank)
    std::printf("fashion_mnist: %lld train / %lld test images, %s, %lld parameters, %d ranks x batch %lld = "
                "global batch %lld, %d epochs\n",
                static_cast<long long>(data.train.size), static_cast<long long>(data.test.size), device.c_str(),
                static_cast<long long>(model.num_parameters()), world.size, static_cast<long long>(batch),
                static_cast<long long>(batch * world.size), epochs);

  tg::nn::Adam adam(tg::nn::get_parameters(model), absl::GetFlag(FLAGS_lr));
  DistributedTrainer trainer(model, adam);
  int64_t steps = sampler.num_samples() / batch;
  if (int max_steps = absl::GetFlag(FLAGS_max_steps); max_steps > 0) steps = std::min<int64_t>(steps, max_steps);
  int64_t total = std::max<int64_t>(steps * epochs, 1);
  double lr0 = absl::GetFlag(FLAGS_lr);
  tg::nn::LRScheduler schedule(adam, [&](int64_t n) { return lr0 * (1.0 - 0.9 * std::min<int64_t>(n, total) / total); });

  tg::apps::Progress total_time("total", 1);
  double acc = epochs == 0 && main_rank ? Evaluate(model, data.test, device) : 0.0;
  for (int e = 0; e < epochs; ++e) {
    std::string label = "epoch " + std::to_string(e + 1) + "/" + std::to_string(epochs);
    tg::apps::Progress timer(label, 1);
    sampler.set_epoch(e);
    TrainEpochDistributed(trainer, data.train, batch, steps, sampler.indices(), device, label, schedule,
                          absl::GetFlag(FLAGS_check_replicas));
    double train_s = timer.seconds();
    if (!main_rank) continue;  // the others wait for rank 0 at the next collective
    acc = Evaluate(model, data.test, device);
    std::printf("epoch %d: test accuracy %.2f%%  (train %.1f s, %.2f steps/s of global batch %lld, %.1f s elapsed)\n",
                e + 1, 100 * acc, train_s, steps / std::max(train_s, 1e-9),
                static_cast<long long>(batch * world.size), total_time.seconds());
  }
  tg::dist::check_replicas(trainer.opt.replicated());  // cheap, once: the ranks end as one model
  if (main_rank) {
    std::printf("test accuracy: %.2f%% after %.1f s on %d ranks\n", 100 * acc, total_time.seconds(), world.size);
    if (!absl::GetFlag(FLAGS_save).empty()) {
      tg::nn::safe_save(tg::nn::get_state_dict(model), absl::GetFlag(FLAGS_save));
      std::printf("saved %s\n", absl::GetFlag(FLAGS_save).c_str());
    }
  }
  tg::dist::barrier();
  return 0;
}

int Run() {
  std::string device = tg::apps::UseDevice(absl::GetFlag(FLAGS_device));
  int epochs = absl::GetFlag(FLAGS_epochs);
  int64_t batch = absl::GetFlag(FLAGS_batch);
  if (epochs < 0 || batch < 1) throw tg::Error("--epochs must be >= 0 and --batch >= 1");
  tg::apps::MnistDataset data = LoadData();
  if (batch > data.train.size) throw tg::Error("--batch is larger than the training set");
  tg::Tensor::manual_seed(absl::GetFlag(FLAGS_seed));
  MnistCnn model;
  if (!absl::GetFlag(FLAGS_load).empty())
    tg::nn::load_state_dict(model, tg::nn::safe_load(absl::GetFlag(FLAGS_load), device));
  std::printf("fashion_mnist: %lld train / %lld test images, %s, %lld parameters, batch %lld, %d epochs\n",
              static_cast<long long>(data.train.size), static_cast<long long>(data.test.size),
              device.c_str(),
              static_cast<long long>(model.num_parameters()), static_cast<long long>(batch), epochs);

  tg::nn::Adam opt(tg::nn::get_parameters(model), absl::GetFlag(FLAGS_lr));
  int64_t steps = data.train.size / batch;
  if (int max_steps = absl::GetFlag(FLAGS_max_steps); max_steps > 0) steps = std::min<int64_t>(steps, max_steps);
  // Linear decay to 10%: the late, small steps are what take a CNN from ~89% to 90%+.
  int64_t total = std::max<int64_t>(steps * epochs, 1);
  double lr0 = absl::GetFlag(FLAGS_lr);
  tg::nn::LRScheduler schedule(opt, [&](int64_t n) { return lr0 * (1.0 - 0.9 * std::min<int64_t>(n, total) / total); });
  tg::Jit step([&](const std::vector<Tensor>& in) {
    tg::Training on;
    opt.zero_grad();
    auto [loss, acc] = ForwardBackward(model, in[0], in[1]);
    std::vector<Tensor> out = {loss, acc};
    for (const Tensor& t : opt.schedule_step()) out.push_back(t);
    return out;
  });

  std::mt19937_64 rng(absl::GetFlag(FLAGS_seed));
  tg::apps::Progress total_time("total", 1);
  double acc = epochs == 0 ? Evaluate(model, data.test, device) : 0.0, reached_90 = -1;
  for (int e = 0; e < epochs; ++e) {
    std::string label = "epoch " + std::to_string(e + 1) + "/" + std::to_string(epochs);
    tg::apps::Progress timer(label, 1);
    TrainEpoch(step, data.train, batch, steps, rng, device, label, schedule);
    double train_s = timer.seconds();
    acc = Evaluate(model, data.test, device);
    if (acc >= 0.9 && reached_90 < 0) reached_90 = total_time.seconds();
    std::printf("epoch %d: test accuracy %.2f%%  (train %.1f s = %.2f s/epoch-equivalent, %.1f s elapsed)\n",
                e + 1, 100 * acc, train_s, train_s * data.train.size / (steps * batch), total_time.seconds());
  }
  std::printf("test accuracy: %.2f%% (%s 90%%) after %.1f s", 100 * acc, acc >= 0.9 ? ">=" : "below",
              total_time.seconds());
  if (reached_90 >= 0) std::printf("; first >= 90%% at %.1f s", reached_90);
  std::printf("\n");
  if (!absl::GetFlag(FLAGS_save).empty()) {
    tg::nn::safe_save(tg::nn::get_state_dict(model), absl::GetFlag(FLAGS_save));
    std::printf("saved %s\n", absl::GetFlag(FLAGS_save).c_str());
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "trains a small CNN on Fashion-MNIST (Debian's dataset-fashion-mnist) and reports test accuracy.\n"
      "  ./bazelw run -c opt //apps:fashion_mnist -- [--epochs=N] [--batch=N] [--lr=X] [--device=NAME]\n"
      "                                            [--save=model.safetensors] [--load=model.safetensors]\n"
      "  mpirun -np 2 bazel-bin/apps/fashion_mnist --distributed [--batch=PER_RANK] [--check_replicas]");
  absl::ParseCommandLine(argc, argv);
  const bool distributed = absl::GetFlag(FLAGS_distributed);
  try {
    return distributed ? RunDistributed() : Run();
  } catch (const tg::Error& e) {
    if (!distributed) {
      std::fprintf(stderr, "fashion_mnist: %s\n", e.what());
      return 1;
    }
    std::fprintf(stderr, "fashion_mnist (rank %d of %d): %s\n", tg::dist::rank(), tg::dist::world_size(), e.what());
    tg::dist::abort(1);  // the other ranks would wait for this one at their next collective
  }
}
