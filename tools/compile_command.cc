#include "tools/compile_command.h"

#include <cstdlib>

#include "frontend/onnx/onnx.h"
#include "frontend/tg.h"

namespace tg::tools {

const char kCompileUsage[] =
    "usage: tg compile MODEL.onnx -o FILE.tgjit [--device X] [--input NAME=FILE.pb ...]\n"
    "Captures the model under tg::Jit and saves it: kernel binaries, weights, and the inputs' shapes and\n"
    "dtypes. tg::Jit::load(FILE) (or onnx_run --load-jit FILE) then runs it with no compiles, on the same\n"
    "device, plugin ABI and compiler only.\n"
    "  -o FILE              where to write the saved Jit\n"
    "  --device X           the device it runs on (default: TG_DEVICE or the best device found)\n"
    "  --input NAME=FILE.pb a TensorProto whose shape the saved Jit takes for input NAME; inputs not given\n"
    "                       take the model's declared shape with symbolic dims 1\n";

namespace {

// Relative paths are the user's: `bazel run` starts in the runfiles tree.
std::string UserPath(const std::string& p) {
  const char* cwd = std::getenv("BUILD_WORKING_DIRECTORY");
  return (p.empty() || p[0] == '/' || cwd == nullptr) ? p : std::string(cwd) + "/" + p;
}

Tensor DeclaredZeros(const onnx::ValueInfo& v, const std::string& device) {
  Shape shape;
  for (const onnx::Dim& d : v.shape) shape.push_back(d.is_symbolic() ? 1 : d.value);
  return Tensor::zeros(shape, v.dtype, device).realize();
}

}  // namespace

bool ParseCompileArgs(const std::vector<std::string>& args, CompileOptions* o, std::string* error) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    bool has_value = i + 1 < args.size();
    if ((a == "-o" || a == "--device" || a == "--input") && !has_value) {
      *error = a + " needs a value";
      return false;
    }
    if (a == "-o") {
      o->output = UserPath(args[++i]);
    } else if (a == "--device") {
      o->device = args[++i];
    } else if (a == "--input") {
      const std::string& spec = args[++i];
      size_t eq = spec.find('=');
      if (eq == std::string::npos || eq == 0) {
        *error = "--input wants NAME=FILE.pb, got \"" + spec + "\"";
        return false;
      }
      o->input_files[spec.substr(0, eq)] = UserPath(spec.substr(eq + 1));
    } else if (!a.empty() && a[0] == '-') {
      *error = "unknown option " + a;
      return false;
    } else if (o->model.empty()) {
      o->model = UserPath(a);
    } else {
      *error = "one model at a time; got " + o->model + " and " + a;
      return false;
    }
  }
  if (o->model.empty() || o->output.empty()) *error = "give a model and -o FILE";
  return error->empty();
}

int CompileCommand(const CompileOptions& o, std::ostream& out, std::ostream& err) {
  try {
    onnx::Model model = onnx::load(o.model, o.device);
    Jit::Names names;
    std::vector<Tensor> inputs;
    std::map<std::string, std::string> files = o.input_files;
    for (const onnx::ValueInfo& v : model.inputs()) {
      names.inputs.push_back(v.name);
      auto it = files.find(v.name);
      inputs.push_back(it == files.end() ? DeclaredZeros(v, model.device())
                                         : onnx::load_tensor(it->second, model.device()).realize());
      if (it != files.end()) files.erase(it);
    }
    if (!files.empty()) throw Error("the model has no input named \"" + files.begin()->first + "\"");
    for (const onnx::ValueInfo& v : model.outputs()) names.outputs.push_back(v.name);
    Jit jit([&](const std::vector<Tensor>& in) { return model.run_in_order(in); });
    jit(inputs);
    jit(inputs);  // the capture
    jit.save(o.output, names);
    out << "compiled " << o.model << " for " << model.device() << ": " << jit.captured_kernels() << " kernels, saved to "
        << o.output << "\n";
    return 0;
  } catch (const Error& e) {
    err << "tg compile: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace tg::tools
