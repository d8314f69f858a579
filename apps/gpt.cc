// gpt: trains a small byte-level GPT (apps/char_gpt.h) with AdamW and a cosine schedule under tg::Jit,
// printing the loss as it falls, then samples text from it (README.md).
//   ./bazelw run -c opt //apps:gpt [-- --steps=N --text=FILE --save=gpt.safetensors --help]
#include <chrono>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "apps/char_gpt.h"
#include "apps/device_flag.h"
#include "apps/progress.h"
#include "frontend/nn/nn.h"
#include "frontend/tg.h"

ABSL_FLAG(std::string, device, "", "device to train on (CPU, OPENCL, CUDA, ...; default: TG_DEVICE or the first)");
ABSL_FLAG(std::string, text, "", "training text file (default: /usr/share/common-licenses/*, concatenated)");
ABSL_FLAG(int, steps, 600, "training steps (0 with --load: sample only)");
ABSL_FLAG(int, batch, 16, "sequences per step");
ABSL_FLAG(int, context, 64, "context length in bytes");
ABSL_FLAG(int, dim, 64, "model width");
ABSL_FLAG(int, layers, 2, "transformer blocks");
ABSL_FLAG(int, heads, 4, "attention heads");
ABSL_FLAG(double, lr, 3e-3, "AdamW peak learning rate (cosine decay to 10% over --steps)");
ABSL_FLAG(std::string, save, "", "write the trained model to this safetensors file");
ABSL_FLAG(std::string, load, "", "start from this safetensors file (its shape overrides --context/--dim/...)");
ABSL_FLAG(std::string, prompt, "This License", "text the sample continues");
ABSL_FLAG(int, sample, 300, "bytes to sample after training");
ABSL_FLAG(double, temperature, 0.8, "sampling temperature (0 = greedy)");
ABSL_FLAG(int, top_k, 20, "sample among the k likeliest bytes (0 = all)");
ABSL_FLAG(int, seed, 1337, "seed for initialisation, batches and sampling");

namespace {

using tg::Tensor;

// Trains |steps| steps; prints the loss every ~10% (and the mean of the last stretch, which is smoother).
void Train(tg::apps::CharGpt& model, const std::string& text, int steps, std::mt19937_64& rng) {
  int64_t batch = absl::GetFlag(FLAGS_batch), context = model.config.context;
  tg::nn::AdamW opt(tg::nn::parameters(model), absl::GetFlag(FLAGS_lr), 0.9, 0.99, 1e-8, 0.01);
  tg::nn::LRScheduler schedule = tg::nn::CosineAnnealingLR(opt, steps, absl::GetFlag(FLAGS_lr) * 0.1);
  tg::Jit step([&](const std::vector<Tensor>& in) {
    tg::Training on;
    opt.zero_grad();
    Tensor logits = model(in[0]);
    Tensor loss = logits.reshape({-1, model.config.vocab}).sparse_categorical_crossentropy(in[1].reshape({-1}));
    loss.backward();
    std::vector<Tensor> out = {loss};
    for (const Tensor& t : opt.schedule_step()) out.push_back(t);
    return out;
  });
  tg::apps::Progress bar("train", steps);
  double recent = 0;
  int recent_n = 0;
  for (int s = 0; s < steps; ++s) {
    auto [x, y] = tg::apps::SampleBatch(text, batch, context, rng);
    float loss = step({x, y})[0].item<float>();
    schedule.step();
    recent += loss, ++recent_n;
    bar.Update(s + 1, {{"loss", loss}, {"avg", recent / recent_n}, {"lr", opt.get_lr()}});
    if ((s + 1) % std::max(1, steps / 10) == 0) recent = 0, recent_n = 0;
  }
  bar.Finish();
  std::printf("%.0f tokens/s (%lld tokens per step)\n", bar.steps_per_second() * batch * context,
              static_cast<long long>(batch * context));
}

int Run() {
  std::string device = tg::apps::UseDevice(absl::GetFlag(FLAGS_device));
  tg::apps::GptConfig config{256, absl::GetFlag(FLAGS_context), absl::GetFlag(FLAGS_dim), absl::GetFlag(FLAGS_layers),
                             absl::GetFlag(FLAGS_heads)};
  std::string load = absl::GetFlag(FLAGS_load), save = absl::GetFlag(FLAGS_save);
  if (!load.empty()) config = tg::apps::GptConfig::FromMetadata(tg::nn::safe_load_metadata(load));
  tg::Tensor::manual_seed(absl::GetFlag(FLAGS_seed));
  std::mt19937_64 rng(absl::GetFlag(FLAGS_seed));
  tg::apps::CharGpt model(config);
  if (!load.empty()) tg::nn::load_state_dict(model, tg::nn::safe_load(load));
  int steps = absl::GetFlag(FLAGS_steps);
  if (steps > 0) {
    std::string text = tg::apps::LoadCorpus(absl::GetFlag(FLAGS_text));
    if (static_cast<int64_t>(text.size()) <= config.context + 1) throw tg::Error("gpt: text shorter than --context");
    int64_t params = 0;
    for (const Tensor& t : tg::nn::parameters(model)) params += t.numel();
    std::printf("gpt: %zu bytes of text, %s, %lld parameters (%lld layers, dim %lld, %lld heads, context %lld)\n",
                text.size(), device.c_str(), static_cast<long long>(params), static_cast<long long>(config.layers),
                static_cast<long long>(config.dim), static_cast<long long>(config.heads),
                static_cast<long long>(config.context));
    Train(model, text, steps, rng);
  }
  if (!save.empty()) {
    tg::nn::safe_save(tg::nn::get_state_dict(model), save, config.ToMetadata());
    std::printf("saved %s\n", save.c_str());
  }
  const auto start = std::chrono::steady_clock::now();
  std::string sample = tg::apps::Sample(model, absl::GetFlag(FLAGS_prompt), absl::GetFlag(FLAGS_sample),
                                        absl::GetFlag(FLAGS_temperature), absl::GetFlag(FLAGS_top_k), rng);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("---- sample ----\n%s\n----------------\n", sample.c_str());
  // Bytes within the context come from the KV-cache decoder (one tg::Jit capture for every position).
  std::printf("sampled %d bytes, %.0f tokens/s\n", absl::GetFlag(FLAGS_sample),
              seconds > 0 ? absl::GetFlag(FLAGS_sample) / seconds : 0.0);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "trains a small byte-level GPT on text (default: Debian's licence texts) and samples from it.\n"
      "  ./bazelw run -c opt //apps:gpt -- [--steps=N] [--text=FILE] [--save=F] [--load=F] [--device=NAME]");
  absl::ParseCommandLine(argc, argv);
  try {
    return Run();
  } catch (const tg::Error& e) {
    std::fprintf(stderr, "gpt: %s\n", e.what());
    return 1;
  }
}
