// W12: the llm app's LlamaModel (apps/llm_model.h) on tools/bench/make_w12_model.py's random LLaMA of
// llama2.c's TinyStories-110M shape: greedy decode and prompt prefill in tokens/s, for the float32 Hugging
// Face folder and the F16 and Q8_0 GGUF files; and W12_memcpy, the host's copy bandwidth, which divided by
// the weight bytes one decoded token reads is the bound each format's decode is reported against
// (docs/benchmarks.md). Without the model files the workloads are skipped, saying how to make them.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "apps/llm_checkpoint.h"
#include "apps/llm_config.h"
#include "apps/llm_gguf.h"
#include "apps/llm_model.h"
#include "frontend/tg.h"
#include "ir/error.h"
#include "tools/bench/bench_device.h"
#include "tools/bench/timing.h"
#include "tools/bench/workload_fns.h"
#include "tools/model_dir.h"

namespace tg::bench {
namespace {

namespace fs = std::filesystem;

// make_w12_model.py's architecture.
constexpr int64_t kDim = 768, kLayers = 12, kHeads = 12, kKvHeads = 12, kFfn = 2048, kVocab = 32000;
constexpr int64_t kHeadDim = kDim / kHeads;

constexpr int kDecodePrompt = 32;   // tokens fed before the timed decode
constexpr int kDecodeTokens = 32;   // greedy steps timed: positions 32..63, one captured bucket (64)
constexpr int kPrefillTokens = 128;  // the prompt timed by the prefill workloads
constexpr int64_t kContext = 256;   // the KV cache: both prompts and the decode fit
constexpr size_t kCopyBytes = size_t{256} << 20;  // per buffer: far past any cache

struct Format {
  const char* suffix;       // "fp32": W12_llm_decode_fp32
  const char* file;         // in the model folder
  double bytes_per_weight;  // of a matrix element as stored: Q8_0 is 34-byte blocks of 32
};

const Format& FormatOf(LlmWeights w) {
  static constexpr Format kFormats[] = {
      {"fp32", "model.safetensors", 4.0}, {"f16", "w12-f16.gguf", 2.0}, {"q8_0", "w12-q8_0.gguf", 34.0 / 32.0}};
  return kFormats[static_cast<int>(w)];
}

constexpr LlmWeights kAllWeights[] = {LlmWeights::kFp32, LlmWeights::kF16, LlmWeights::kQ8_0};

std::string ModelFolder() { return tools::ModelDir() + "/w12"; }

// What one decoded token reads: every layer's seven matrices, the LM head and one embedding row in the
// file's format, the norms in float32 (GGUF keeps 1-D tensors F32). The KV cache's reads are left out
// (at 64 positions they are 1% of the weights).
double WeightBytesPerToken(const Format& f) {
  const double attention = 2.0 * kDim * kHeads * kHeadDim + 2.0 * kDim * kKvHeads * kHeadDim;
  const double matrices = kLayers * (attention + 3.0 * kDim * kFfn) + kVocab * kDim + kDim;
  const double norms = (2.0 * kLayers + 1) * kDim;
  return matrices * f.bytes_per_weight + norms * 4.0;
}

// Why the model for |w| cannot be loaded here, or "" when it can.
std::string MissingReason(LlmWeights w) {
  const std::string make = "run /usr/bin/python3 tools/bench/make_w12_model.py (writes " + ModelFolder() +
                           ", ~1 GB, ~20 s) or set TG_MODEL_DIR";
  for (const char* file : {"config.json", FormatOf(w).file}) {
    std::string path = ModelFolder() + "/" + file;
    if (!fs::exists(path)) return path + " is absent: " + make;
  }
  return "";
}

void CheckShape(const apps::LlmConfig& c, const std::string& source) {
  if (c.hidden_size != kDim || c.layers != kLayers || c.heads != kHeads || c.kv_heads != kKvHeads ||
      c.intermediate_size != kFfn || c.vocab_size != kVocab)
    throw Error(source + " is not W12's model (hidden " + std::to_string(c.hidden_size) + ", layers " +
                std::to_string(c.layers) + ", vocab " + std::to_string(c.vocab_size) +
                "; expected 768, 12, 32000): delete it and run tools/bench/make_w12_model.py");
}

std::unique_ptr<apps::LlmModel> LoadModel(LlmWeights w, const std::string& device) {
  const std::string folder = ModelFolder();
  if (w == LlmWeights::kFp32) {
    apps::LlmConfig config = apps::LoadLlmConfig(folder + "/config.json");
    CheckShape(config, folder + "/config.json");
    return std::make_unique<apps::LlmModel>(config, apps::LoadLlmCheckpoint(folder), kContext);
  }
  const std::string path = folder + "/" + FormatOf(w).file;
  apps::LlmGguf gguf = apps::LoadLlmGguf(path, device);
  CheckShape(gguf.config, path);
  return std::make_unique<apps::LlmModel>(gguf.config, std::move(gguf.weights), kContext);
}

// "weights float32 0.0768 MB uint16 142.3 MB": the device buffers the model reads its weights from, by dtype.
std::string WeightsLabel(const apps::LlmModel& model) {
  std::string out = "weights";
  for (const auto& [dtype, bytes] : model.weight_bytes()) {
    char buf[64];
    std::snprintf(buf, sizeof(buf), " %s %.4g MB", dtype.c_str(), bytes / 1e6);
    out += buf;
  }
  return out;
}

// The decode and prefill workloads of one format run back to back: the last model loaded is kept (one
// slot, so at most one model's weights are resident) instead of reading 0.5 GB again.
apps::LlmModel& CachedModel(LlmWeights w, const std::string& device) {
  struct Slot {
    LlmWeights weights;
    std::string device;
    std::unique_ptr<apps::LlmModel> model;
  };
  static auto* slot = new Slot{};  // never destroyed: its buffers must not outlive the devices at exit
  if (!slot->model || slot->weights != w || slot->device != device) {
    slot->model.reset();
    slot->model = LoadModel(w, device);
    slot->weights = w, slot->device = device;
  }
  return *slot->model;
}

// Ids past the 259 special and byte tokens, by a formula peer_llm.py repeats, so both decode the same tokens.
std::vector<int> Prompt(int n) {
  std::vector<int> tokens(n);
  for (int i = 0; i < n; ++i) tokens[i] = 259 + static_cast<int>((i * int64_t{7919} + 13) % (kVocab - 259));
  return tokens;
}

int Argmax(const std::vector<float>& logits) {
  return static_cast<int>(std::max_element(logits.begin(), logits.end()) - logits.begin());
}

// Two host buffers of kCopyBytes, every page touched, and the bandwidth of one copy between them split
// over every hardware thread (GB/s, read + write counted).
class CopyProbe {
 public:
  CopyProbe() : src_(new char[kCopyBytes]), dst_(new char[kCopyBytes]) {
    std::memset(src_.get(), 1, kCopyBytes);
    std::memset(dst_.get(), 0, kCopyBytes);
  }

  double Seconds() const {
    auto start = std::chrono::steady_clock::now();
    std::vector<std::thread> workers;
    const size_t slice = kCopyBytes / threads_;
    for (unsigned i = 0; i < threads_; ++i) {
      size_t begin = i * slice, end = i + 1 == threads_ ? kCopyBytes : begin + slice;
      workers.emplace_back([this, begin, end] { std::memcpy(dst_.get() + begin, src_.get() + begin, end - begin); });
    }
    for (std::thread& t : workers) t.join();
    return SecondsSince(start);
  }

  static double Gbps(double seconds) { return 2.0 * kCopyBytes / seconds / 1e9; }
  unsigned threads() const { return threads_; }

 private:
  const unsigned threads_ = std::max(1u, std::thread::hardware_concurrency());
  std::unique_ptr<char[]> src_, dst_;
};

// The decode rate |f|'s weights allow at |gbps| of copy bandwidth: the bytes a token reads, read at it.
double BoundTokensPerS(const Format& f, double gbps) { return gbps * 1e9 / WeightBytesPerToken(f); }

// The bandwidth the last W12_memcpy measured (GB/s, read + write), 0 before it ran.
double measured_gbps = 0;

std::string BoundLabel(const Format& f, double tokens_per_s) {
  if (measured_gbps <= 0) return "bound: run W12_memcpy in the same process";
  const double bound = BoundTokensPerS(f, measured_gbps);
  char buf[128];
  std::snprintf(buf, sizeof(buf), "%.0f%% of the %.1f tokens/s bound (%.1f GB/s / %.0f MB a token)",
                100 * tokens_per_s / bound, bound, measured_gbps, WeightBytesPerToken(f) / 1e6);
  return buf;
}

std::string Name(const char* kind, LlmWeights w) { return std::string("W12_llm_") + kind + "_" + FormatOf(w).suffix; }

// Each timed run's tokens/s as a percentage of the bound of the copy bandwidth measured just before it
// (|copy_gbps| holds one per call, the untimed first ones included): on a machine whose bandwidth drifts
// from minute to minute, a share that a W12_memcpy of another moment cannot give.
std::vector<double> PairedBoundShares(const Format& f, const Timed& t, const std::vector<double>& copy_gbps) {
  const size_t first = copy_gbps.size() - t.times_s.size();
  std::vector<double> shares;
  for (size_t i = 0; i < t.times_s.size(); ++i)
    shares.push_back(100 * kDecodeTokens / t.times_s[i] / BoundTokensPerS(f, copy_gbps[first + i]));
  return shares;
}

std::string PairedBoundLabel(const std::vector<double>& shares) {
  char buf[160];
  std::snprintf(buf, sizeof(buf), "%.0f%% of the bound of a copy just before each run (median; %.0f-%.0f%%)",
                Median(shares), *std::min_element(shares.begin(), shares.end()),
                *std::max_element(shares.begin(), shares.end()));
  return buf;
}

}  // namespace

void RunLlmDecode(benchmark::State& state, const std::string& device, int warmup, LlmWeights w) {
  if (std::string why = MissingReason(w); !why.empty())
    return PublishSkipped(state, Name("decode", w), device, "tokens/s", why);
  apps::LlmModel& model = CachedModel(w, device);
  const std::vector<int> prompt = Prompt(kDecodePrompt);
  std::vector<int> generated;
  const CopyProbe copy;
  std::vector<double> copy_gbps;
  auto run = [&] {  // the prompt and a copy untimed, then kDecodeTokens greedy steps timed
    model.ResetCache();
    int token = Argmax(model.Prefill(prompt));
    copy_gbps.push_back(CopyProbe::Gbps(copy.Seconds()));
    generated.clear();
    auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < kDecodeTokens; ++i) {
      generated.push_back(token);
      token = Argmax(model.Step(token));  // the logits come back to the host: the device has finished
    }
    return SecondsSince(start);
  };
  Timed t = TimeSelfTimedRuns(state, run, std::max(warmup, 2));
  const double tokens_per_s = kDecodeTokens / t.median_s;
  std::vector<double> shares = PairedBoundShares(FormatOf(w), t, copy_gbps);
  state.SetLabel("greedy from " + std::to_string(generated[0]) + ", " + std::to_string(generated[1]) + ", " +
                 std::to_string(generated[2]) + "...; " + BoundLabel(FormatOf(w), tokens_per_s) + "; " +
                 PairedBoundLabel(shares) + "; " + WeightsLabel(model));
  Publish(state, Name("decode", w), device, t, tokens_per_s, "tokens/s");
  PublishSamples(Name("decode", w) + "_paired_bound", device, std::move(shares), "% of bound");
}

void RunLlmPrefill(benchmark::State& state, const std::string& device, int warmup, LlmWeights w) {
  if (std::string why = MissingReason(w); !why.empty())
    return PublishSkipped(state, Name("prefill", w), device, "tokens/s", why);
  apps::LlmModel& model = CachedModel(w, device);
  const std::vector<int> prompt = Prompt(kPrefillTokens);
  auto run = [&] {
    model.ResetCache();
    auto start = std::chrono::steady_clock::now();
    model.Prefill(prompt);  // returns the last position's logits on the host
    return SecondsSince(start);
  };
  Timed t = TimeSelfTimedRuns(state, run, warmup);
  state.SetLabel(std::to_string(kPrefillTokens) + "-token prompt");
  Publish(state, Name("prefill", w), device, t, kPrefillTokens / t.median_s, "tokens/s");
}

void RunMemcpy(benchmark::State& state, const std::string& device, int warmup) {
  const CopyProbe copy;
  Timed t = TimeSelfTimedRuns(state, [&] { return copy.Seconds(); }, warmup);
  measured_gbps = CopyProbe::Gbps(t.median_s);
  state.SetLabel("host memcpy, 2 x 256 MiB, " + std::to_string(copy.threads()) + " threads, read + write counted");
  Publish(state, "W12_memcpy", device, t, measured_gbps, "GB/s");
  for (LlmWeights w : kAllWeights) {
    const double bound = BoundTokensPerS(FormatOf(w), measured_gbps);
    PublishDerivedRate(Name("decode", w) + "_bound", device, t, bound, "tokens/s");
  }
}

}  // namespace tg::bench
