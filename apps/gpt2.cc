// gpt2: GPT-2 text generation from a safetensors checkpoint and its vocab.json / merges.txt, with a KV
// cache, greedy or top-k sampling (README.md). E.g. with Hugging Face's gpt2 files downloaded, on one line:
//   ./bazelw run -c opt //apps:gpt2 -- --model=$PWD/model.safetensors --vocab=$PWD/vocab.json
//       --merges=$PWD/merges.txt --prompt="Hello, I'm a language model," --tokens=30 --top_k=40
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "apps/bpe_tokenizer.h"
#include "apps/device_flag.h"
#include "apps/gpt2_model.h"
#include "frontend/tg.h"

ABSL_FLAG(std::string, model, "", "GPT-2 weights, safetensors (Hugging Face's model.safetensors layout)");
ABSL_FLAG(std::string, vocab, "", "the tokenizer's vocab.json");
ABSL_FLAG(std::string, merges, "", "the tokenizer's merges.txt");
ABSL_FLAG(std::string, prompt, "The", "text to continue");
ABSL_FLAG(int, tokens, 20, "tokens to generate");
ABSL_FLAG(int, top_k, 0, "sample among the k likeliest tokens (0 = greedy)");
ABSL_FLAG(double, temperature, 1.0, "sampling temperature (with --top_k)");
ABSL_FLAG(int, heads, 0, "attention heads (0 = width / 64, as the released GPT-2 models)");
ABSL_FLAG(std::string, device, "", "device to run on (default: TG_DEVICE or the first)");
ABSL_FLAG(int, seed, 1337, "sampling seed");

namespace {

int Choose(const std::vector<float>& logits, int top_k, double temperature, std::mt19937_64& rng) {
  if (top_k <= 0) return static_cast<int>(std::max_element(logits.begin(), logits.end()) - logits.begin());
  std::vector<int> order(logits.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
  size_t k = std::min<size_t>(top_k, order.size());
  std::partial_sort(order.begin(), order.begin() + k, order.end(), [&](int a, int b) { return logits[a] > logits[b]; });
  std::vector<double> w(k);
  for (size_t i = 0; i < k; ++i) w[i] = std::exp((logits[order[i]] - logits[order[0]]) / std::max(temperature, 1e-6));
  return order[std::discrete_distribution<size_t>(w.begin(), w.end())(rng)];
}

int Run() {
  if (absl::GetFlag(FLAGS_model).empty() || absl::GetFlag(FLAGS_vocab).empty() || absl::GetFlag(FLAGS_merges).empty())
    throw tg::Error("--model, --vocab and --merges are required (see --help)");
  tg::apps::UseDevice(absl::GetFlag(FLAGS_device));
  tg::apps::BpeTokenizer tokenizer = tg::apps::BpeTokenizer::Load(absl::GetFlag(FLAGS_vocab), absl::GetFlag(FLAGS_merges));
  tg::apps::Gpt2 model(absl::GetFlag(FLAGS_model), absl::GetFlag(FLAGS_heads));
  std::vector<int> ids = tokenizer.Encode(absl::GetFlag(FLAGS_prompt));
  if (ids.empty()) throw tg::Error("--prompt is empty");
  std::mt19937_64 rng(absl::GetFlag(FLAGS_seed));
  // The step is a tg::Jit: the first token runs it plainly (its kernels start in the CPU's first tier,
  // docs/tiers.md), the second captures it, compiling its kernels; every later token replays the capture.
  int steps = 0;
  uint64_t programs_after_capture = 0;
  auto step = [&](int token) {
    std::vector<float> out = model.Step(token);
    if (++steps == 2) programs_after_capture = tg::programs_made();
    return out;
  };
  std::vector<float> logits = step(ids[0]);
  for (size_t i = 1; i < ids.size(); ++i) logits = step(ids[i]);  // prefill, one token at a time
  std::printf("%s", absl::GetFlag(FLAGS_prompt).c_str());
  const auto start = std::chrono::steady_clock::now();
  int generated = 0;
  for (int n = 0; n < absl::GetFlag(FLAGS_tokens) && model.pos() < model.context(); ++n) {
    int next = Choose(logits, absl::GetFlag(FLAGS_top_k), absl::GetFlag(FLAGS_temperature), rng);
    std::printf("%s", tokenizer.Decode({next}).c_str());
    std::fflush(stdout);
    if (model.pos() < model.context()) logits = step(next), ++generated;
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("\n");
  std::fflush(stdout);
  // One tg::Jit capture serves every position (the position is a tg::Variable): nothing compiles after it.
  std::fprintf(stderr, "decode: %d tokens, %.1f tokens/s; kernels compiled after the capture: %llu\n", generated,
               seconds > 0 ? generated / seconds : 0.0,
               static_cast<unsigned long long>(steps >= 2 ? tg::programs_made() - programs_after_capture : 0));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "GPT-2 inference: --model=model.safetensors --vocab=vocab.json --merges=merges.txt [--prompt=TEXT]\n"
      "  [--tokens=N] [--top_k=K --temperature=T] (greedy by default)");
  absl::ParseCommandLine(argc, argv);
  try {
    return Run();
  } catch (const tg::Error& e) {
    std::fprintf(stderr, "gpt2: %s\n", e.what());
    return 1;
  }
}
