// Runs one kernel AST outside the scheduler, for the tests of opts: the kernel generated with the
// given opts for a device and launched there over fresh float buffers.
#ifndef TG_TESTS_COMPILER_KERNEL_RUN_H_
#define TG_TESTS_COMPILER_KERNEL_RUN_H_

#include <string>
#include <vector>

#include "compiler/codegen/opt.h"
#include "ir/uop.h"
#include "runtime/device.h"

namespace tg::compiler::testing {

struct KernelRun {
  std::vector<float> out;  // buffer 0, the kernel's output
  std::string source;
};

// |ast| with |opts| on |device|, its buffers sized from the AST's indices: the output filled with
// |output_fill| (a value the kernel must overwrite), the inputs from a fixed seed in [-1, 1). Failures
// to compile or launch are GoogleTest failures; the output is then empty.
KernelRun RunOnFreshBuffers(const UOpRef& ast, const std::vector<Opt>& opts, runtime::Device& device,
                            float output_fill = 0);

}  // namespace tg::compiler::testing

#endif  // TG_TESTS_COMPILER_KERNEL_RUN_H_
