/* stub_cuda_driver.c: a stand-in libcuda.so.1 with one fake device and no way to run anything, for
 * testing the CUDA plugin's discovery and device properties on machines without an NVIDIA GPU.
 * It has every entry point the plugin resolves (plugins/cuda/cuda_decls.h, whose types it mirrors
 * in C: CUresult and CUdevice are int, handles are pointers). Discovery, contexts and streams
 * succeed with fixed values; memory, modules, launches and events answer CUDA_ERROR_NOT_SUPPORTED. */
#include <stddef.h>
#include <string.h>

enum {
  kSuccess = 0,
  kInvalidValue = 1,
  kInvalidDevice = 101,
  kNotSupported = 801,
};

static int g_context, g_stream; /* their addresses are the one context and stream handed out */

int cuInit(unsigned flags) { return flags == 0 ? kSuccess : kInvalidValue; }
int cuDriverGetVersion(int* version) { *version = 12040; return kSuccess; }

int cuGetErrorName(int r, const char** name) {
  switch (r) {
    case kSuccess: *name = "CUDA_SUCCESS"; return kSuccess;
    case kInvalidValue: *name = "CUDA_ERROR_INVALID_VALUE"; return kSuccess;
    case kInvalidDevice: *name = "CUDA_ERROR_INVALID_DEVICE"; return kSuccess;
    case kNotSupported: *name = "CUDA_ERROR_NOT_SUPPORTED"; return kSuccess;
    default: *name = NULL; return kInvalidValue;
  }
}
int cuGetErrorString(int r, const char** text) {
  *text = r == kNotSupported ? "the stub driver runs nothing" : NULL;
  return *text != NULL ? kSuccess : kInvalidValue;
}

int cuDeviceGetCount(int* count) { *count = 1; return kSuccess; }
int cuDeviceGet(int* device, int ordinal) {
  if (ordinal != 0) return kInvalidDevice;
  *device = 0;
  return kSuccess;
}
int cuDeviceGetName(char* name, int len, int device) {
  if (device != 0) return kInvalidDevice;
  strncpy(name, "Stub CUDA device", (size_t)len);
  return kSuccess;
}
int cuDeviceGetAttribute(int* value, int attribute, int device) {
  if (device != 0) return kInvalidDevice;
  switch (attribute) {
    case 1: *value = 1024; break;          /* MAX_THREADS_PER_BLOCK */
    case 2: case 3: *value = 1024; break;  /* MAX_BLOCK_DIM_X, _Y */
    case 4: *value = 64; break;            /* MAX_BLOCK_DIM_Z */
    case 8: *value = 48 * 1024; break;     /* MAX_SHARED_MEMORY_PER_BLOCK */
    case 16: *value = 2; break;            /* MULTIPROCESSOR_COUNT */
    case 75: *value = 8; break;            /* COMPUTE_CAPABILITY_MAJOR */
    case 76: *value = 0; break;            /* COMPUTE_CAPABILITY_MINOR */
    default: *value = 0; break;
  }
  return kSuccess;
}
int cuDeviceTotalMem_v2(size_t* bytes, int device) {
  if (device != 0) return kInvalidDevice;
  *bytes = (size_t)1 << 30;
  return kSuccess;
}

int cuDevicePrimaryCtxRetain(void** context, int device) {
  if (device != 0) return kInvalidDevice;
  *context = &g_context;
  return kSuccess;
}
int cuDevicePrimaryCtxRelease_v2(int device) { return device == 0 ? kSuccess : kInvalidDevice; }
int cuCtxSetCurrent(void* context) { return context == &g_context ? kSuccess : kInvalidValue; }
int cuStreamCreate(void** stream, unsigned flags) {
  (void)flags;
  *stream = &g_stream;
  return kSuccess;
}
int cuStreamDestroy_v2(void* stream) { return stream == &g_stream ? kSuccess : kInvalidValue; }
int cuStreamSynchronize(void* stream) { return stream == &g_stream ? kSuccess : kInvalidValue; }

typedef unsigned long long CUdeviceptr;

int cuMemAlloc_v2(CUdeviceptr* ptr, size_t n) { (void)ptr, (void)n; return kNotSupported; }
int cuMemFree_v2(CUdeviceptr ptr) { (void)ptr; return kNotSupported; }
int cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void* src, size_t n, void* stream) {
  (void)dst, (void)src, (void)n, (void)stream;
  return kNotSupported;
}
int cuMemcpyDtoHAsync_v2(void* dst, CUdeviceptr src, size_t n, void* stream) {
  (void)dst, (void)src, (void)n, (void)stream;
  return kNotSupported;
}
int cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src, size_t n, void* stream) {
  (void)dst, (void)src, (void)n, (void)stream;
  return kNotSupported;
}
int cuModuleLoadDataEx(void** module, const void* image, unsigned n, int* options, void** values) {
  (void)module, (void)image, (void)n, (void)options, (void)values;
  return kNotSupported;
}
int cuModuleGetFunction(void** function, void* module, const char* name) {
  (void)function, (void)module, (void)name;
  return kNotSupported;
}
int cuModuleUnload(void* module) { (void)module; return kNotSupported; }
int cuLaunchKernel(void* f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                   unsigned shared, void* stream, void** params, void** extra) {
  (void)f, (void)gx, (void)gy, (void)gz, (void)bx, (void)by, (void)bz, (void)shared, (void)stream;
  (void)params, (void)extra;
  return kNotSupported;
}
int cuEventCreate(void** event, unsigned flags) { (void)event, (void)flags; return kNotSupported; }
int cuEventRecord(void* event, void* stream) { (void)event, (void)stream; return kNotSupported; }
int cuEventQuery(void* event) { (void)event; return kNotSupported; }
int cuEventSynchronize(void* event) { (void)event; return kNotSupported; }
int cuEventElapsedTime(float* ms, void* start, void* end) { (void)ms, (void)start, (void)end; return kNotSupported; }
int cuEventDestroy_v2(void* event) { (void)event; return kNotSupported; }
