// ocl_program.h: the OpenCL plugin's program: one built cl_program and its one cl_kernel.
// Compiled from "opencl-c" source or loaded from an "opencl-binary" this plugin produced.
#ifndef TG_PLUGINS_OPENCL_OCL_PROGRAM_H_
#define TG_PLUGINS_OPENCL_OCL_PROGRAM_H_

#include <CL/cl.h>

#include <mutex>
#include <string>

#include "plugins/opencl/ocl_device.h"

struct tg_program {
  tg_device* device = nullptr;  // not owned; outlives the program
  cl_program program = nullptr; // owned
  cl_kernel kernel = nullptr;   // owned; its arguments are per-kernel state, hence |launch_mu|
  std::string entry;
  // clSetKernelArg + clEnqueueNDRangeKernel must not interleave between threads on one kernel.
  std::mutex launch_mu;
  std::mutex binary_mu;  // guards |binary|, filled on the first program_binary
  std::string binary;    // the sealed driver binary; lives until program_destroy
};

namespace tg_ocl {

// Builds |args->source| with clBuildProgram. A failed build is INVALID_ARGUMENT whose message
// holds the full build log; a missing entry is NOT_FOUND.
tg_error* ProgramCompile(const tg_compile_args* args, tg_program** out);
// |format| must be "opencl-binary" and the bytes must come from program_binary on a device with
// the same compile_fingerprint, intact (plugins/kit/binary_envelope.h), else FAILED_PRECONDITION
// (the host recompiles); truncated or corrupt bytes never reach the driver.
tg_error* ProgramLoad(tg_device* device, const char* format, const void* binary, uint64_t len,
                      const char* entry, tg_program** out);
// The bytes stay valid until ProgramDestroy.
tg_error* ProgramBinary(tg_program* program, const char** format, const void** binary, uint64_t* len);
// Safe with pending launches: enqueued kernels hold their own references.
void ProgramDestroy(tg_program* program);

}  // namespace tg_ocl

#endif  // TG_PLUGINS_OPENCL_OCL_PROGRAM_H_
