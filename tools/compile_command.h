// compile_command.h: `tg compile MODEL.onnx -o FILE`: an ONNX model captured under tg::Jit and saved
// (docs/saved_jit.md), so a deployment loads it with tg::Jit::load and compiles nothing at start.
#ifndef TG_TOOLS_COMPILE_COMMAND_H_
#define TG_TOOLS_COMPILE_COMMAND_H_

#include <map>
#include <ostream>
#include <string>
#include <vector>

namespace tg::tools {

extern const char kCompileUsage[];

struct CompileOptions {
  std::string model, output, device;
  std::map<std::string, std::string> input_files;  // NAME -> TensorProto file: fixes that input's shape
};

// Parses the arguments after "compile"; false with |error| set for bad ones.
bool ParseCompileArgs(const std::vector<std::string>& args, CompileOptions* options, std::string* error);

// Loads the model, runs it twice under a Jit (the second run is the capture) on the given inputs, or on
// zeros shaped as the model declares (symbolic dims 1), and saves it with the model's value names.
// Returns 0, or 1 after printing the tg::Error to |err|.
int CompileCommand(const CompileOptions& options, std::ostream& out, std::ostream& err);

}  // namespace tg::tools

#endif  // TG_TOOLS_COMPILE_COMMAND_H_
