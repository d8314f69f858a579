// onnx_run: loads an .onnx model, runs it on chosen inputs and device, prints every output (shape, dtype,
// min/max/mean and the first values) and, with --bench N, the median latency of N runs. --save-jit writes
// the model's tg::Jit to a file; --load-jit runs such a file alone, compiling nothing (docs/saved_jit.md).
//   ./bazelw run //apps:onnx_run -- model.onnx [--input name=file.pb ...] [--device X] [--bench N]
//   ./bazelw run //apps:onnx_run -- --load-jit model.tgjit [--input name=file.pb ...] [--bench N]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <string>
#include <utility>
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
    "  --save-jit FILE       run the model under tg::Jit (a run, then a captured run) and save it to FILE:\n"
    "                        kernel binaries, weights and the inputs' shapes; runs start from the capture\n"
    "  --load-jit FILE       run a saved Jit instead of a model (give no MODEL and no --device: the file\n"
    "                        names its device); nothing is compiled\n"
    "  -h, --help            this text\n"
    "Relative paths are taken from the directory `bazel run` was started in. DEBUG=2 prints kernel times.\n";

std::string UserPath(const std::string& p) {
  const char* cwd = std::getenv("BUILD_WORKING_DIRECTORY");  // set by `bazel run`, whose cwd is the runfiles tree
  return (p.empty() || p[0] == '/' || cwd == nullptr) ? p : std::string(cwd) + "/" + p;
}

// An input no --input gave: uniform [0, 1) noise for floats, zeros otherwise; |dims| says how it is shaped.
tg::Tensor Filler(const std::string& name, const tg::Shape& shape, const std::string& dims, tg::DType dtype,
                  const std::string& device) {
  bool noise = dtype.is_float();
  std::printf("input  %-20s %s (%s) %s (no --input given)\n", name.c_str(), dtype.name().c_str(), dims.c_str(),
              noise ? "uniform [0, 1) noise" : "zeros");
  tg::Tensor::manual_seed(0);
  return (noise ? tg::Tensor::rand(shape, dtype, device) : tg::Tensor::zeros(shape, dtype, device)).realize();
}

tg::Tensor Filler(const tg::onnx::ValueInfo& v, const std::string& device) {
  tg::Shape shape;
  std::string dims;
  for (const tg::onnx::Dim& d : v.shape) {
    shape.push_back(d.is_symbolic() ? 1 : d.value);
    dims += (dims.empty() ? "" : ", ") + (d.is_symbolic() ? (d.param.empty() ? "?" : d.param) + "=1" : std::to_string(d.value));
  }
  return Filler(v.name, shape, dims, v.dtype, device);
}

tg::Tensor FileInput(const std::string& name, const std::string& file, const std::string& device) {
  tg::Tensor t = tg::onnx::load_tensor(file, device).realize();
  std::printf("input  %-20s %s %s from %s\n", name.c_str(), t.dtype().name().c_str(), tg::ShapeString(t.shape()).c_str(),
              file.c_str());
  return t;
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

struct Options {
  std::string model_path, device, save_jit, load_jit;
  std::map<std::string, std::string> input_files;
  int bench = 0;
};

Options Parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw tg::Error(a + " needs a value\n" + kUsage);
      return argv[++i];
    };
    if (a == "-h" || a == "--help") {
      std::fputs(kUsage, stdout);
      std::exit(0);
    } else if (a == "--device") {
      o.device = value();
    } else if (a == "--bench") {
      o.bench = std::atoi(value().c_str());
      if (o.bench < 1) throw tg::Error("--bench needs a positive count");
    } else if (a == "--save-jit") {
      o.save_jit = UserPath(value());
    } else if (a == "--load-jit") {
      o.load_jit = UserPath(value());
    } else if (a == "--input") {
      std::string spec = value();
      size_t eq = spec.find('=');
      if (eq == std::string::npos || eq == 0) throw tg::Error("--input wants NAME=FILE.pb, got \"" + spec + "\"");
      o.input_files[spec.substr(0, eq)] = UserPath(spec.substr(eq + 1));
    } else if (!a.empty() && a[0] == '-') {
      throw tg::Error("unknown option " + a + "\n" + kUsage);
    } else if (o.model_path.empty()) {
      o.model_path = UserPath(a);
    } else {
      throw tg::Error("one model at a time; got " + o.model_path + " and " + a);
    }
  }
  if (!o.load_jit.empty() && (!o.model_path.empty() || !o.device.empty() || !o.save_jit.empty()))
    throw tg::Error("--load-jit runs the saved Jit alone: give no MODEL, --device or --save-jit (the file names its "
                    "device and holds the model)");
  if (o.load_jit.empty() && o.model_path.empty()) throw tg::Error(std::string("no model given\n") + kUsage);
  return o;
}

using Outputs = std::vector<std::pair<std::string, tg::Tensor>>;

// Runs |run_once| (the first run compiles), prints its outputs and, with --bench, the median of more runs.
void Report(const std::function<Outputs()>& run_once, int bench) {
  for (const auto& [name, t] : run_once()) PrintOutput(name, t);
  if (bench <= 0) return;
  std::vector<double> ms;
  for (int i = 0; i < bench; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    run_once();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  std::printf("bench  %d runs: median %.3f ms (min %.3f, max %.3f)\n", bench, ms[ms.size() / 2], ms.front(), ms.back());
}

// The outputs of a Jit call, realized and named.
Outputs Named(std::vector<tg::Tensor> out, const std::vector<std::string>& names) {
  Outputs named;
  for (size_t i = 0; i < out.size(); ++i) {
    out[i].realize();
    named.emplace_back(i < names.size() && !names[i].empty() ? names[i] : "output" + std::to_string(i), out[i]);
  }
  return named;
}

int RunSavedJit(Options& o) {
  tg::Jit jit = tg::Jit::load(o.load_jit);
  std::printf("jit    %s: %zu kernels on %s, loaded without compiling\n", o.load_jit.c_str(), jit.captured_kernels(),
              jit.input_specs().empty() ? "?" : jit.input_specs()[0].device.c_str());
  std::vector<tg::Tensor> inputs;
  for (size_t i = 0; i < jit.input_specs().size(); ++i) {
    const tg::Jit::TensorSpec& spec = jit.input_specs()[i];
    std::string name = i < jit.names().inputs.size() ? jit.names().inputs[i] : "input" + std::to_string(i);
    auto it = o.input_files.find(name);
    if (it == o.input_files.end()) {
      inputs.push_back(Filler(name, spec.shape, tg::ShapeString(spec.shape), spec.dtype, spec.device));
      continue;
    }
    inputs.push_back(FileInput(name, it->second, spec.device));
    o.input_files.erase(it);
  }
  if (!o.input_files.empty()) throw tg::Error("the saved Jit has no input named \"" + o.input_files.begin()->first + "\"");
  Report([&] { return Named(jit(inputs), jit.names().outputs); }, o.bench);
  return 0;
}

int RunModel(Options& o) {
  tg::onnx::Model model = tg::onnx::load(o.model_path, o.device);
  std::printf("model  %s (opset %lld) on %s\n", o.model_path.c_str(), static_cast<long long>(model.opset()),
              model.device().c_str());
  tg::Jit::Names names;
  std::vector<tg::Tensor> inputs;
  for (const tg::onnx::ValueInfo& v : model.inputs()) {
    names.inputs.push_back(v.name);
    auto it = o.input_files.find(v.name);
    inputs.push_back(it == o.input_files.end() ? Filler(v, model.device()) : FileInput(v.name, it->second, model.device()));
    if (it != o.input_files.end()) o.input_files.erase(it);
  }
  if (!o.input_files.empty()) throw tg::Error("the model has no input named \"" + o.input_files.begin()->first + "\"");
  for (const tg::onnx::ValueInfo& v : model.outputs()) names.outputs.push_back(v.name);
  auto forward = [&](const std::vector<tg::Tensor>& in) { return model.run_in_order(in); };
  if (o.save_jit.empty()) {
    Report([&] { return Named(forward(inputs), names.outputs); }, o.bench);
    return 0;
  }
  tg::Jit jit(forward);
  jit(inputs);  // runs plainly; the next call is captured
  Report([&] { return Named(jit(inputs), names.outputs); }, o.bench);
  jit.save(o.save_jit, names);
  std::printf("jit    %zu kernels saved to %s\n", jit.captured_kernels(), o.save_jit.c_str());
  return 0;
}

int Run(int argc, char** argv) {
  Options o = Parse(argc, argv);
  return o.load_jit.empty() ? RunModel(o) : RunSavedJit(o);
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
