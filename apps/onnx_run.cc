// onnx_run: loads an .onnx model, runs it on chosen inputs and device, prints every output (shape, dtype,
// min/max/mean and the first values) and, with --bench N, the median latency of N runs.
//   ./bazelw run //apps:onnx_run -- model.onnx [--input name=file.pb ...] [--device X] [--bench N]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "frontend/onnx/onnx.h"
#include "frontend/tg.h"

namespace {

constexpr char kUsage[] =
    "usage: onnx_run MODEL.onnx [options]\n"
    "Runs an ONNX model with tinygrad-cc and prints each output's shape, dtype and a summary of its values.\n"
    "\n"
    "options:\n"
    "  --input NAME=FILE.pb  the value of input NAME: a serialized ONNX TensorProto (as in ONNX test data).\n"
    "                        Inputs not given are filled with uniform [0, 1) noise (ints: zeros), symbolic\n"
    "                        dims set to 1; the line 'input ...' says which.\n"
    "  --device X            CPU, OPENCL, CUDA, HIP (NAME:N for an ordinal); default: TG_DEVICE or the best\n"
    "                        device found (./bazelw run //tools:tg -- devices lists them)\n"
    "  --bench N             run N more times after a warm-up run and print the median wall time of one run\n"
    "                        (inputs to outputs realized, kernels compiled in the warm-up)\n"
    "  -h, --help            this text\n"
    "Relative paths are taken from the directory `bazel run` was started in. DEBUG=2 prints kernel times.\n";

std::string UserPath(const std::string& p) {
  const char* cwd = std::getenv("BUILD_WORKING_DIRECTORY");  // set by `bazel run`, whose cwd is the runfiles tree
  return (p.empty() || p[0] == '/' || cwd == nullptr) ? p : std::string(cwd) + "/" + p;
}

tg::Tensor Filler(const tg::onnx::ValueInfo& v, const std::string& device) {
  tg::Shape shape;
  std::string dims;
  for (const tg::onnx::Dim& d : v.shape) {
    shape.push_back(d.is_symbolic() ? 1 : d.value);
    dims += (dims.empty() ? "" : ", ") + (d.is_symbolic() ? (d.param.empty() ? "?" : d.param) + "=1" : std::to_string(d.value));
  }
  bool noise = v.dtype.is_float();
  std::printf("input  %-20s %s (%s) %s (no --input given)\n", v.name.c_str(), v.dtype.name().c_str(), dims.c_str(),
              noise ? "uniform [0, 1) noise" : "zeros");
  tg::Tensor::manual_seed(0);
  return noise ? tg::Tensor::rand(shape, v.dtype, device) : tg::Tensor::zeros(shape, v.dtype, device);
}

void PrintOutput(const std::string& name, const tg::Tensor& t) {
  std::vector<double> v = tg::onnx::values_as_double(t);
  std::printf("output %-20s %-8s shape %-16s", name.c_str(), t.dtype().name().c_str(), tg::ShapeString(t.shape()).c_str());
  if (v.empty()) {
    std::printf(" (empty)\n");
    return;
  }
  double lo = *std::min_element(v.begin(), v.end()), hi = *std::max_element(v.begin(), v.end()), sum = 0;
  for (double x : v) sum += x;
  std::printf(" min %.6g max %.6g mean %.6g  [", lo, hi, sum / v.size());
  for (size_t i = 0; i < std::min<size_t>(v.size(), 6); ++i) std::printf("%s%.6g", i ? ", " : "", v[i]);
  std::printf("%s]\n", v.size() > 6 ? ", ..." : "");
}

int Run(int argc, char** argv) {
  std::string model_path, device;
  std::map<std::string, std::string> input_files;
  int bench = 0;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw tg::Error(a + " needs a value\n" + kUsage);
      return argv[++i];
    };
    if (a == "-h" || a == "--help") {
      std::fputs(kUsage, stdout);
      return 0;
    } else if (a == "--device") {
      device = value();
    } else if (a == "--bench") {
      bench = std::atoi(value().c_str());
      if (bench < 1) throw tg::Error("--bench needs a positive count");
    } else if (a == "--input") {
      std::string spec = value();
      size_t eq = spec.find('=');
      if (eq == std::string::npos || eq == 0) throw tg::Error("--input wants NAME=FILE.pb, got \"" + spec + "\"");
      input_files[spec.substr(0, eq)] = UserPath(spec.substr(eq + 1));
    } else if (!a.empty() && a[0] == '-') {
      throw tg::Error("unknown option " + a + "\n" + kUsage);
    } else if (model_path.empty()) {
      model_path = UserPath(a);
    } else {
      throw tg::Error("one model at a time; got " + model_path + " and " + a);
    }
  }
  if (model_path.empty()) throw tg::Error(std::string("no model given\n") + kUsage);
  tg::onnx::Model model = tg::onnx::load(model_path, device);
  std::printf("model  %s (opset %lld) on %s\n", model_path.c_str(), static_cast<long long>(model.opset()),
              model.device().c_str());
  std::map<std::string, tg::Tensor> inputs;
  for (const tg::onnx::ValueInfo& v : model.inputs()) {
    auto it = input_files.find(v.name);
    if (it == input_files.end()) {
      inputs.emplace(v.name, Filler(v, model.device()));
      continue;
    }
    tg::Tensor t = tg::onnx::load_tensor(it->second, model.device());
    std::printf("input  %-20s %s %s from %s\n", v.name.c_str(), t.dtype().name().c_str(), tg::ShapeString(t.shape()).c_str(),
                it->second.c_str());
    inputs.emplace(v.name, t);
    input_files.erase(it);
  }
  if (!input_files.empty()) throw tg::Error("the model has no input named \"" + input_files.begin()->first + "\"");
  auto run_once = [&] {
    std::map<std::string, tg::Tensor> out = model.run(inputs);
    for (auto& [name, t] : out) t.realize();
    return out;
  };
  std::map<std::string, tg::Tensor> out = run_once();
  for (const tg::onnx::ValueInfo& v : model.outputs()) PrintOutput(v.name, out.at(v.name));
  if (bench > 0) {
    std::vector<double> ms;
    for (int i = 0; i < bench; ++i) {
      auto t0 = std::chrono::steady_clock::now();
      run_once();
      ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    std::sort(ms.begin(), ms.end());
    std::printf("bench  %d runs: median %.3f ms (min %.3f, max %.3f)\n", bench, ms[ms.size() / 2], ms.front(), ms.back());
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return Run(argc, argv);
  } catch (const tg::Error& e) {
    std::fprintf(stderr, "onnx_run: %s\n", e.what());
    return 1;
  }
}
