// host_kernels.h: the tensor expressions the CTS's host corpus renders, each with known inputs and
// its expected output computed here with plain loops, never by our compiler: a wrong kernel must not
// be able to vouch for itself.
#ifndef TG_TOOLS_CTS_CORPUS_HOST_KERNELS_H_
#define TG_TOOLS_CTS_CORPUS_HOST_KERNELS_H_

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "compiler/codegen/kernel.h"
#include "compiler/codegen/opt.h"
#include "compiler/target.h"
#include "frontend/tensor.h"
#include "ir/dtype.h"
#include "ir/uop.h"

namespace tg::cts_corpus {

// A buffer's contents: element i is values[i % values.size()]. A large buffer repeats a short
// pattern, so the manifest stays small whatever the grid.
struct HostData {
  DType dtype = dtypes::float32;
  int64_t count = 0;
  std::vector<double> values;
};

struct HostInput {
  UOpRef buffer;  // the BUFFER node the kernel reads
  HostData data;
};

struct HostKernel {
  std::string role;  // the kernel's file stem in every dialect: "elementwise", "group_reduce", ...
  std::string what;  // one line for the manifest's reader
  Tensor output;     // its graph schedules to exactly one kernel
  std::vector<HostInput> inputs;
  HostData expected;
  double atol = 0, rtol = 0;                  // |got - want| <= atol + rtol * |want|
  std::map<std::string, int64_t> variables;   // tg::Variable name -> the value the launch passes
  // A float16 kernel: on the GPU dialects the device must declare TG_CAP_FP16, as the host requires
  // (compiler::Target::fp16); the CPU dialects compute half whatever the caps say.
  bool needs_fp16 = false;
  // Dialects whose renderer refuses this kernel today (none at present). The manifest lists each
  // with the renderer's reason; one that starts rendering fails the generator, so the gap is closed
  // by adding its file to BUILD.bazel rather than going unnoticed.
  std::vector<std::string> unrendered_in;
  // The opts to render with on |target| instead of the heuristic's; empty keeps the heuristic, which
  // is what the host does by default. Opts index the axes of |start| (compiler::StartKernel).
  std::function<std::vector<compiler::Opt>(const compiler::Kernel& start, const compiler::Target& target)> opts;
};

// The corpus's kernels, their inputs being buffers on |device| (a device of this process; only its
// name ends up in the graph, nothing is allocated or run there).
std::vector<HostKernel> HostKernels(const std::string& device);

}  // namespace tg::cts_corpus

#endif  // TG_TOOLS_CTS_CORPUS_HOST_KERNELS_H_
