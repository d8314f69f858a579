// cl_api.h: the OpenCL entry points this plugin uses, resolved with dlsym from libOpenCL.so.1.
// The plugin never links the ICD loader, so it loads (and reports zero devices) where none exists.
#ifndef TG_PLUGINS_OPENCL_CL_API_H_
#define TG_PLUGINS_OPENCL_CL_API_H_

#include <CL/cl.h>

#include <string>

namespace tg_ocl {

// One pointer per function, typed from the official prototypes so a wrong signature cannot
// compile. Filled once by LoadClApi and immutable afterwards (safe to read from any thread).
struct ClApi {
#define TG_CL_FN(name) decltype(&::name) name = nullptr;
#define TG_CL_FUNCTIONS(X)                                                                        \
  X(clGetPlatformIDs) X(clGetPlatformInfo) X(clGetDeviceIDs) X(clGetDeviceInfo)                   \
  X(clCreateContext) X(clReleaseContext) X(clCreateCommandQueue) X(clReleaseCommandQueue)         \
  X(clFinish) X(clFlush) X(clCreateBuffer) X(clCreateSubBuffer) X(clReleaseMemObject)             \
  X(clEnqueueReadBuffer) X(clEnqueueWriteBuffer) X(clEnqueueCopyBuffer)                           \
  X(clCreateProgramWithSource) X(clCreateProgramWithBinary) X(clBuildProgram)                    \
  X(clGetProgramInfo) X(clGetProgramBuildInfo) X(clReleaseProgram) X(clCreateKernel)              \
  X(clReleaseKernel) X(clSetKernelArg) X(clEnqueueNDRangeKernel) X(clWaitForEvents)               \
  X(clGetEventInfo) X(clGetEventProfilingInfo) X(clReleaseEvent) X(clRetainEvent)                 \
  X(clEnqueueMarkerWithWaitList)
  TG_CL_FUNCTIONS(TG_CL_FN)
#undef TG_CL_FN
};

// dlopen()s libOpenCL.so.1 (never closed) and resolves every function above. Returns NULL and
// sets |*why| ("libOpenCL.so.1: cannot open shared object file ...", "libOpenCL.so.1 lacks
// clCreateSubBuffer") when that fails. Thread-safe; the first call does the work.
const ClApi* LoadClApi(std::string* why);

// The table loaded by a successful LoadClApi. Only valid once a device exists (every object of
// this plugin is created after a successful load).
const ClApi& Cl();

}  // namespace tg_ocl

#endif  // TG_PLUGINS_OPENCL_CL_API_H_
