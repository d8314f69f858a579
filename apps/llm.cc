// llm: text generation with a LLaMA-family model (llama, mistral, qwen2) from a Hugging Face folder
// (config.json, tokenizer.json, model.safetensors or its shards) or a GGUF file (weights F32/F16/BF16 or
// quantized Q8_0/Q4_0/Q4_K/Q6_K, kept quantized on the device; the tokenizer from its metadata), streamed as it
// is generated, with a KV cache decoded under tg::Jit; tokens/s of the prompt and of the generation and
// the device memory's peak are printed at the end (README.md's Apps section). E.g. with a downloaded
// Qwen2.5-0.5B-Instruct folder, or a GGUF file of it:
//   ./bazelw run -c opt //apps:llm -- --model=$PWD/Qwen2.5-0.5B-Instruct --chat=auto --prompt="Hi!"
//   ./bazelw run -c opt //apps:llm -- --model=$PWD/qwen2.5-0.5b-instruct-q8_0.gguf --chat=auto --prompt="Hi!"
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "apps/device_flag.h"
#include "apps/llm_chat.h"
#include "apps/llm_checkpoint.h"
#include "apps/llm_config.h"
#include "apps/llm_gguf.h"
#include "apps/llm_model.h"
#include "apps/llm_sampler.h"
#include "apps/llm_tokenizer.h"
#include "frontend/tg.h"

ABSL_FLAG(std::string, model, "",
          "a Hugging Face model folder (config.json, tokenizer.json, *.safetensors) or a .gguf file (of a split "
          "model, its first part PREFIX-00001-of-0000N.gguf)");
ABSL_FLAG(std::string, prompt, "The", "text to continue (or, with --chat, the user's message)");
ABSL_FLAG(std::string, chat, "none", "chat template: none, auto, chatml, llama3, llama2, mistral");
ABSL_FLAG(std::string, system, "", "system prompt (with --chat)");
ABSL_FLAG(int, tokens, 128, "most tokens to generate (generation also stops at an end-of-turn token)");
ABSL_FLAG(double, temperature, 0.0, "sampling temperature (0 = greedy)");
ABSL_FLAG(int, top_k, 0, "sample among the k likeliest tokens (0 = all)");
ABSL_FLAG(double, top_p, 1.0, "sample among the likeliest tokens holding this much probability");
ABSL_FLAG(double, repetition_penalty, 1.0, "> 1 makes tokens already in the text less likely");
ABSL_FLAG(uint64_t, seed, 0, "sampling seed");
ABSL_FLAG(int, context, 0, "positions in the KV cache (0 = the config's max_position_embeddings, at most 4096)");
ABSL_FLAG(std::string, device, "", "device to run on (default: TG_DEVICE or the first)");

namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point since) { return std::chrono::duration<double>(Clock::now() - since).count(); }

// The length of the longest prefix of |s| that does not end inside a UTF-8 character.
size_t CompleteUtf8(const std::string& s) {
  size_t i = s.size(), back = 0;
  while (i > 0 && back < 4 && (static_cast<unsigned char>(s[i - 1]) & 0xC0) == 0x80) --i, ++back;
  if (i == 0) return s.size();
  unsigned char lead = static_cast<unsigned char>(s[i - 1]);
  size_t want = lead < 0x80 ? 1 : (lead >> 5) == 6 ? 2 : (lead >> 4) == 14 ? 3 : (lead >> 3) == 30 ? 4 : 1;
  return back + 1 >= want ? s.size() : i - 1;
}

// What --model names: its config, weights and tokenizer, from a folder or a GGUF file.
struct Model {
  tg::apps::LlmConfig config;
  tg::nn::StateDict weights;
  tg::apps::LlmTokenizer tokenizer;
  std::string vocab_source;  // where config.vocab_size comes from, for the mismatch error
};

Model LoadModel(const std::string& path) {
  if (tg::apps::IsGgufPath(path)) {
    if (!std::filesystem::is_regular_file(path)) throw tg::Error("--model=" + path + " is not a file");
    tg::apps::LlmGguf gguf = tg::apps::LoadLlmGguf(path);
    tg::apps::LlmTokenizer tokenizer = tg::apps::LlmTokenizer::FromGguf(gguf.header, path);
    return {gguf.config, std::move(gguf.weights), std::move(tokenizer), "token_embd.weight's rows"};
  }
  if (!std::filesystem::is_directory(path))
    throw tg::Error("--model=" + path + " is not a folder (expected config.json, tokenizer.json and *.safetensors in it) "
                    "nor a .gguf file");
  tg::apps::LlmConfig config = tg::apps::LoadLlmConfig(path + "/config.json");
  tg::apps::LlmTokenizer tokenizer = tg::apps::LlmTokenizer::Load(path + "/tokenizer.json");
  return {config, tg::apps::LoadLlmCheckpoint(path), std::move(tokenizer), "config.json's vocab_size"};
}

// The most device memory the run held (weights, KV cache, activations, the allocator's cache), where the
// device's plugin reports it.
void PrintMemoryPeak() {
  try {
    tg::MemoryStats m = tg::memory_stats();
    std::fprintf(stderr, "device memory: peak %.1f MB\n", m.peak_bytes_in_use / 1e6);
  } catch (const tg::Error&) {  // a plugin without tg.memory_stats: nothing to say
  }
}

int Run() {
  const std::string path = absl::GetFlag(FLAGS_model);
  if (path.empty()) throw tg::Error("--model is required: a Hugging Face model folder or a .gguf file (see --help)");
  tg::apps::Sampler sampler({absl::GetFlag(FLAGS_temperature), absl::GetFlag(FLAGS_top_k), absl::GetFlag(FLAGS_top_p),
                             absl::GetFlag(FLAGS_repetition_penalty), absl::GetFlag(FLAGS_seed)});
  tg::apps::UseDevice(absl::GetFlag(FLAGS_device));  // first: a GGUF file's blocks are loaded to the device
  Model loaded = LoadModel(path);
  const tg::apps::LlmConfig& config = loaded.config;
  tg::apps::LlmTokenizer& tokenizer = loaded.tokenizer;
  if (tokenizer.size() > config.vocab_size)
    throw tg::Error(path + ": the tokenizer has ids up to " + std::to_string(tokenizer.size() - 1) + " but " +
                    loaded.vocab_source + " is " + std::to_string(config.vocab_size) +
                    ": the tokenizer does not belong to this model");
  tg::apps::ChatFormat chat = tg::apps::ParseChatFormat(absl::GetFlag(FLAGS_chat), tokenizer);
  const int context_flag = absl::GetFlag(FLAGS_context);
  if (context_flag < 0) throw tg::Error("--context must be >= 0 (0 = the model's), not " + std::to_string(context_flag));
  int64_t context = context_flag > 0 ? context_flag : std::min<int64_t>(config.max_positions, 4096);
  tg::apps::LlmModel model(config, std::move(loaded.weights), context);

  const std::string prompt = absl::GetFlag(FLAGS_prompt);
  std::vector<int> ids = tokenizer.Encode(tg::apps::ApplyChatTemplate(chat, absl::GetFlag(FLAGS_system), prompt));
  if (ids.empty()) throw tg::Error("--prompt is empty and the tokenizer adds no BOS token");
  if (static_cast<int64_t>(ids.size()) >= model.context())
    throw tg::Error("the prompt's " + std::to_string(ids.size()) + " tokens fill the context of " +
                    std::to_string(model.context()) + " (see --context)");
  if (chat == tg::apps::ChatFormat::kNone) std::printf("%s", prompt.c_str());
  std::fflush(stdout);

  Clock::time_point start = Clock::now();
  std::vector<float> logits = model.Prefill(ids);
  const double prompt_s = Seconds(start);
  const std::vector<int> stops = tg::apps::StopTokens(config, tokenizer);
  const std::string prompt_text = tokenizer.Decode(ids);
  std::vector<int> text = ids;
  size_t printed = prompt_text.size();
  int generated = 0;
  start = Clock::now();
  while (generated < absl::GetFlag(FLAGS_tokens)) {
    logits.resize(std::min<size_t>(logits.size(), tokenizer.size()));  // rows past the tokenizer's are padding
    int next = sampler.Next(logits, text);
    ++generated;
    if (std::find(stops.begin(), stops.end(), next) != stops.end()) break;
    text.push_back(next);
    std::string all = tokenizer.Decode(text);
    size_t complete = CompleteUtf8(all);
    if (complete > printed) std::fwrite(all.data() + printed, 1, complete - printed, stdout), printed = complete;
    std::fflush(stdout);
    if (model.pos() >= model.context()) break;
    logits = model.Step(next);
  }
  const double gen_s = Seconds(start);
  std::string all = tokenizer.Decode(text);
  if (all.size() > printed) std::fwrite(all.data() + printed, 1, all.size() - printed, stdout);
  std::printf("\n");
  std::fflush(stdout);
  std::fprintf(stderr, "prompt: %zu tokens in %.3f s (%.1f tokens/s); generation: %d tokens in %.3f s (%.1f tokens/s)\n",
               ids.size(), prompt_s, ids.size() / std::max(prompt_s, 1e-9), generated, gen_s,
               generated / std::max(gen_s, 1e-9));
  PrintMemoryPeak();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "LLaMA-family text generation: --model=FOLDER (config.json, tokenizer.json, *.safetensors) or\n"
      "  --model=FILE.gguf (F32/F16/BF16/Q8_0/Q4_0/Q4_K/Q6_K weights) [--prompt=TEXT]\n"
      "  [--chat=auto --system=TEXT] [--tokens=N] [--temperature=T --top_k=K --top_p=P --repetition_penalty=R\n"
      "  --seed=S] (greedy by default) [--context=N] [--device=D]");
  absl::ParseCommandLine(argc, argv);
  try {
    return Run();
  } catch (const tg::Error& e) {
    std::fprintf(stderr, "llm: %s\n", e.what());
    return 1;
  }
}
