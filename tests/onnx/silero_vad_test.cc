// A real recurrent model with control flow no one here wrote: Silero VAD v4 ("legacy": 9 If, 8 LSTM) and v5
// (25 If, 4 LSTM), as the npm package @ricky0123/vad-web 0.0.31 ships them, run as a voice-activity
// detector runs them: frame after frame, each frame's output states fed back as the next frame's input
// states. Every frame's speech probability and states must match ONNX Runtime 1.30's to atol 1e-4 /
// rtol 1e-3, as for PaddleOCR: float32 sums in another order differ by ~1e-6 per frame, and carrying the
// states compounds that; measured on CPU, the worst is 4e-5 (v4's cell state, which reaches |c| ~ 4), the
// probabilities 4e-6. The audio, at 16 kHz and 8 kHz (the two branches
// of the models' If nodes on `sr`), and ONNX Runtime's outputs on it are checked in under
// tests/onnx/silero_vad/ (make_reference.mjs); the models are not: tools/setup.sh fetches them into
// ${XDG_CACHE_HOME:-~/.cache}/tinygrad-cc-models (or point TG_MODEL_DIR at them); without them these tests
// skip and say so. Runs on the device --device names (tests/device_main.cc), CPU and OPENCL.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "frontend/onnx/onnx.h"
#include "frontend/tg.h"
#include "gtest/gtest.h"
#include "tools/model_dir.h"

namespace tg {
namespace {

constexpr char kDataDir[] = "tests/onnx/silero_vad/";
constexpr double kAtol = 1e-4, kRtol = 1e-3;

struct StatePair {
  const char* input;   // the state the model reads
  const char* output;  // the state it returns for the next frame
};

struct Case {
  const char* name;   // prefix of the checked-in tensors: <name>_input.pb, <name>_ort_<output>.pb
  const char* model;  // file in ModelDir()
  int64_t sample_rate;
  std::vector<StatePair> states;
  Shape state_shape;
};

// One output of every frame, stacked over frames: [frames, ...].
struct Stacked {
  size_t frames = 0;
  Shape frame_shape;
  std::vector<double> values;
  size_t frame_size() const { return values.size() / frames; }
};

Stacked LoadStacked(const std::string& path) {
  Tensor t = onnx::load_tensor(path, "CPU");
  Stacked s;
  s.frames = static_cast<size_t>(t.shape().at(0));
  s.frame_shape.assign(t.shape().begin() + 1, t.shape().end());
  s.values = onnx::values_as_double(t);
  return s;
}

// How far one output strays from ONNX Runtime's over all frames.
struct Drift {
  size_t bad = 0, count = 0;
  double max_abs = 0, worst_ours = 0, worst_ort = 0;
  size_t worst_frame = 0;
  void add(size_t frame, const std::vector<double>& ours, const double* ort) {
    for (size_t i = 0; i < ours.size(); ++i, ++count) {
      double diff = std::abs(ours[i] - ort[i]);
      if (!(diff <= kAtol + kRtol * std::abs(ort[i]))) ++bad;  // NaN counts as bad
      if (!(diff <= max_abs)) max_abs = diff, worst_ours = ours[i], worst_ort = ort[i], worst_frame = frame;
    }
  }
};

class SileroVad : public ::testing::TestWithParam<Case> {
 protected:
  void SetUp() override {
    model_path_ = tools::ModelDir() + "/" + GetParam().model;
    if (!std::filesystem::exists(model_path_))
      GTEST_SKIP() << model_path_ << " is absent: run tools/setup.sh (it fetches the npm package "
                   << "@ricky0123/vad-web 0.0.31 with `npm pack`), or set TG_MODEL_DIR to a directory holding "
                   << GetParam().model;
  }

  std::string model_path_;
};

TEST_P(SileroVad, MatchesOnnxRuntimeFrameAfterFrameWithTheStatesCarried) {
  const Case& c = GetParam();
  std::string prefix = std::string(kDataDir) + c.name;
  onnx::Model m = onnx::load(model_path_);
  const std::string& device = m.device();

  Stacked audio = LoadStacked(prefix + "_input.pb");
  ASSERT_GT(audio.frames, 1u);
  std::map<std::string, Stacked> want;  // ONNX Runtime's, by output name
  for (const onnx::ValueInfo& out : m.outputs()) {
    want[out.name] = LoadStacked(prefix + "_ort_" + out.name + ".pb");
    ASSERT_EQ(want[out.name].frames, audio.frames) << out.name;
  }
  ASSERT_EQ(want.count("output"), 1u);

  Tensor sr = Tensor::from_vector<int64_t>({c.sample_rate}, Shape{}, device);
  std::map<std::string, Tensor> states;
  for (const StatePair& s : c.states) states.emplace(s.input, Tensor::zeros(c.state_shape, dtypes::float32, device));

  std::map<std::string, Drift> drift;
  std::vector<double> probability;
  for (size_t f = 0; f < audio.frames; ++f) {
    std::vector<float> samples(audio.values.begin() + f * audio.frame_size(),
                               audio.values.begin() + (f + 1) * audio.frame_size());
    std::map<std::string, Tensor> feeds = states;
    feeds.emplace("input", Tensor::from_vector<float>(samples, audio.frame_shape, device));
    feeds.emplace("sr", sr);
    std::map<std::string, Tensor> got = m.run(feeds);
    for (auto& [name, reference] : want) {
      Tensor& t = got.at(name);
      ASSERT_EQ(t.shape(), reference.frame_shape) << name << " after frame " << f;
      std::vector<double> ours = onnx::values_as_double(t);
      ASSERT_EQ(ours.size(), reference.frame_size()) << name;
      drift[name].add(f, ours, reference.values.data() + f * reference.frame_size());
      if (name == "output") probability.push_back(ours[0]);
    }
    for (const StatePair& s : c.states) states.insert_or_assign(s.input, got.at(s.output));
  }

  for (const auto& [name, d] : drift) {
    EXPECT_EQ(d.bad, 0u) << name << ": " << d.bad << " of " << d.count << " values differ from ONNX Runtime by more "
                         << "than " << kAtol << " + " << kRtol << "*|ort|; worst after frame " << d.worst_frame
                         << ": ours " << d.worst_ours << ", ort " << d.worst_ort;
    std::printf("%s %s: max |ours - ort| = %.3g over %zu values in %zu frames\n", c.name, name.c_str(), d.max_abs,
                d.count, audio.frames);
  }
  // The reference is only worth matching if the detector heard something: near silence first, voice last.
  EXPECT_LT(probability.front(), 0.1) << "p(speech) of the first, near-silent frame";
  EXPECT_GT(probability.back(), 0.9) << "p(speech) of the last, voiced frame";
}

const Case kLegacy16k{"legacy_16k", "silero_vad_legacy.onnx", 16000, {{"h", "hn"}, {"c", "cn"}}, {2, 1, 64}};
const Case kLegacy8k{"legacy_8k", "silero_vad_legacy.onnx", 8000, {{"h", "hn"}, {"c", "cn"}}, {2, 1, 64}};
const Case kV5At16k{"v5_16k", "silero_vad_v5.onnx", 16000, {{"state", "stateN"}}, {2, 1, 128}};
const Case kV5At8k{"v5_8k", "silero_vad_v5.onnx", 8000, {{"state", "stateN"}}, {2, 1, 128}};

INSTANTIATE_TEST_SUITE_P(Models, SileroVad, ::testing::Values(kLegacy16k, kLegacy8k, kV5At16k, kV5At8k),
                         [](const ::testing::TestParamInfo<Case>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace tg
