// cuda_decls.h: the CUDA driver-API and NVRTC declarations this plugin uses, written out here so
// the plugin builds without the CUDA toolkit. Values are copied from cuda.h / nvrtc.h (stable ABI).
#ifndef TG_PLUGINS_CUDA_CUDA_DECLS_H_
#define TG_PLUGINS_CUDA_CUDA_DECLS_H_

#include <cstddef>

namespace tg_cuda {

// ---- driver API (libcuda.so.1) ----
using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;  // CUdeviceptr_v2 on 64-bit
struct CUctx_st;
struct CUmod_st;
struct CUfunc_st;
struct CUstream_st;
struct CUevent_st;
using CUcontext = CUctx_st*;
using CUmodule = CUmod_st*;
using CUfunction = CUfunc_st*;
using CUstream = CUstream_st*;
using CUevent = CUevent_st*;
using CUjit_option = int;

constexpr CUresult CUDA_SUCCESS = 0;
constexpr CUresult CUDA_ERROR_INVALID_VALUE = 1;
constexpr CUresult CUDA_ERROR_OUT_OF_MEMORY = 2;
constexpr CUresult CUDA_ERROR_NOT_INITIALIZED = 3;
constexpr CUresult CUDA_ERROR_DEINITIALIZED = 4;
constexpr CUresult CUDA_ERROR_STUB_LIBRARY = 34;
constexpr CUresult CUDA_ERROR_DEVICE_UNAVAILABLE = 46;
constexpr CUresult CUDA_ERROR_NO_DEVICE = 100;
constexpr CUresult CUDA_ERROR_INVALID_IMAGE = 200;
constexpr CUresult CUDA_ERROR_INVALID_CONTEXT = 201;
constexpr CUresult CUDA_ERROR_NO_BINARY_FOR_GPU = 209;
constexpr CUresult CUDA_ERROR_INVALID_PTX = 218;
constexpr CUresult CUDA_ERROR_UNSUPPORTED_PTX_VERSION = 222;
constexpr CUresult CUDA_ERROR_CONTAINED = 226;
constexpr CUresult CUDA_ERROR_NOT_FOUND = 500;
constexpr CUresult CUDA_ERROR_NOT_READY = 600;
constexpr CUresult CUDA_ERROR_ILLEGAL_ADDRESS = 700;
constexpr CUresult CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES = 701;
constexpr CUresult CUDA_ERROR_LAUNCH_TIMEOUT = 702;
constexpr CUresult CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED = 704;
constexpr CUresult CUDA_ERROR_CONTEXT_IS_DESTROYED = 709;
constexpr CUresult CUDA_ERROR_ASSERT = 710;
constexpr CUresult CUDA_ERROR_HARDWARE_STACK_ERROR = 714;
constexpr CUresult CUDA_ERROR_ILLEGAL_INSTRUCTION = 715;
constexpr CUresult CUDA_ERROR_MISALIGNED_ADDRESS = 716;
constexpr CUresult CUDA_ERROR_INVALID_ADDRESS_SPACE = 717;
constexpr CUresult CUDA_ERROR_INVALID_PC = 718;
constexpr CUresult CUDA_ERROR_LAUNCH_FAILED = 719;
constexpr CUresult CUDA_ERROR_TENSOR_MEMORY_LEAK = 721;
constexpr CUresult CUDA_ERROR_EXTERNAL_DEVICE = 911;
constexpr CUresult CUDA_ERROR_UNKNOWN = 999;

constexpr int CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1;
constexpr int CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X = 2;  // Y = 3, Z = 4
constexpr int CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK = 8;
constexpr int CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;

constexpr CUjit_option CU_JIT_INFO_LOG_BUFFER = 3;
constexpr CUjit_option CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4;
constexpr CUjit_option CU_JIT_ERROR_LOG_BUFFER = 5;
constexpr CUjit_option CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6;

constexpr unsigned CU_STREAM_NON_BLOCKING = 0x1;
constexpr unsigned CU_EVENT_DEFAULT = 0x0;
constexpr unsigned CU_EVENT_DISABLE_TIMING = 0x2;
constexpr unsigned CU_MEMHOSTALLOC_PORTABLE = 0x1;

// Function pointer types (the _v2 entry points are the ones cuda.h maps the plain names to), and
// the list of names the loader resolves with dlsym.
using PFN_cuInit = CUresult (*)(unsigned);
using PFN_cuDriverGetVersion = CUresult (*)(int*);
using PFN_cuGetErrorName = CUresult (*)(CUresult, const char**);
using PFN_cuGetErrorString = CUresult (*)(CUresult, const char**);
using PFN_cuDeviceGetCount = CUresult (*)(int*);
using PFN_cuDeviceGet = CUresult (*)(CUdevice*, int);
using PFN_cuDeviceGetName = CUresult (*)(char*, int, CUdevice);
using PFN_cuDeviceGetAttribute = CUresult (*)(int*, int, CUdevice);
using PFN_cuDeviceTotalMem_v2 = CUresult (*)(size_t*, CUdevice);
using PFN_cuDevicePrimaryCtxRetain = CUresult (*)(CUcontext*, CUdevice);
using PFN_cuDevicePrimaryCtxRelease_v2 = CUresult (*)(CUdevice);
using PFN_cuCtxSetCurrent = CUresult (*)(CUcontext);
using PFN_cuCtxGetCurrent = CUresult (*)(CUcontext*);
using PFN_cuStreamCreate = CUresult (*)(CUstream*, unsigned);
using PFN_cuStreamDestroy_v2 = CUresult (*)(CUstream);
using PFN_cuStreamSynchronize = CUresult (*)(CUstream);
using PFN_cuMemAlloc_v2 = CUresult (*)(CUdeviceptr*, size_t);
using PFN_cuMemFree_v2 = CUresult (*)(CUdeviceptr);
using PFN_cuMemcpyHtoDAsync_v2 = CUresult (*)(CUdeviceptr, const void*, size_t, CUstream);
using PFN_cuMemcpyDtoHAsync_v2 = CUresult (*)(void*, CUdeviceptr, size_t, CUstream);
using PFN_cuMemcpyDtoDAsync_v2 = CUresult (*)(CUdeviceptr, CUdeviceptr, size_t, CUstream);
using PFN_cuModuleLoadDataEx = CUresult (*)(CUmodule*, const void*, unsigned, CUjit_option*, void**);
using PFN_cuModuleGetFunction = CUresult (*)(CUfunction*, CUmodule, const char*);
using PFN_cuModuleUnload = CUresult (*)(CUmodule);
using PFN_cuLaunchKernel = CUresult (*)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                                    unsigned, CUstream, void**, void**);
using PFN_cuEventCreate = CUresult (*)(CUevent*, unsigned);
using PFN_cuEventRecord = CUresult (*)(CUevent, CUstream);
using PFN_cuEventQuery = CUresult (*)(CUevent);
using PFN_cuEventSynchronize = CUresult (*)(CUevent);
using PFN_cuEventElapsedTime = CUresult (*)(float*, CUevent, CUevent);
using PFN_cuEventDestroy_v2 = CUresult (*)(CUevent);
using PFN_cuStreamWaitEvent = CUresult (*)(CUstream, CUevent, unsigned);
using PFN_cuMemHostAlloc = CUresult (*)(void**, size_t, unsigned);
using PFN_cuMemFreeHost = CUresult (*)(void*);
using PFN_cuMemcpyPeerAsync = CUresult (*)(CUdeviceptr, CUcontext, CUdeviceptr, CUcontext, size_t, CUstream);
using PFN_cuDeviceCanAccessPeer = CUresult (*)(int*, CUdevice, CUdevice);
using PFN_cuCtxEnablePeerAccess = CUresult (*)(CUcontext, unsigned);
#define TG_CU_FUNCTIONS(X) \
  X(cuInit) X(cuDriverGetVersion) X(cuGetErrorName) X(cuGetErrorString) X(cuDeviceGetCount) \
  X(cuDeviceGet) X(cuDeviceGetName) X(cuDeviceGetAttribute) X(cuDeviceTotalMem_v2) \
  X(cuDevicePrimaryCtxRetain) X(cuDevicePrimaryCtxRelease_v2) X(cuCtxSetCurrent) X(cuCtxGetCurrent) \
  X(cuStreamCreate) X(cuStreamDestroy_v2) X(cuStreamSynchronize) X(cuMemAlloc_v2) \
  X(cuMemFree_v2) X(cuMemcpyHtoDAsync_v2) X(cuMemcpyDtoHAsync_v2) X(cuMemcpyDtoDAsync_v2) \
  X(cuModuleLoadDataEx) X(cuModuleGetFunction) X(cuModuleUnload) X(cuLaunchKernel) \
  X(cuEventCreate) X(cuEventRecord) X(cuEventQuery) X(cuEventSynchronize) \
  X(cuEventElapsedTime) X(cuEventDestroy_v2) X(cuStreamWaitEvent) X(cuMemHostAlloc) X(cuMemFreeHost) \
  X(cuMemcpyPeerAsync) X(cuDeviceCanAccessPeer) X(cuCtxEnablePeerAccess)

// ---- NVRTC (libnvrtc.so.*) ----
using nvrtcResult = int;
struct _nvrtcProgram;
using nvrtcProgram = _nvrtcProgram*;
constexpr nvrtcResult NVRTC_SUCCESS = 0;

using PFN_nvrtcVersion = nvrtcResult (*)(int*, int*);
using PFN_nvrtcGetErrorString = const char* (*)(nvrtcResult);
using PFN_nvrtcCreateProgram = nvrtcResult (*)(nvrtcProgram*, const char*, const char*, int, const char* const*,
                                         const char* const*);
using PFN_nvrtcCompileProgram = nvrtcResult (*)(nvrtcProgram, int, const char* const*);
using PFN_nvrtcGetProgramLogSize = nvrtcResult (*)(nvrtcProgram, size_t*);
using PFN_nvrtcGetProgramLog = nvrtcResult (*)(nvrtcProgram, char*);
using PFN_nvrtcGetPTXSize = nvrtcResult (*)(nvrtcProgram, size_t*);
using PFN_nvrtcGetPTX = nvrtcResult (*)(nvrtcProgram, char*);
using PFN_nvrtcGetCUBINSize = nvrtcResult (*)(nvrtcProgram, size_t*);
using PFN_nvrtcGetCUBIN = nvrtcResult (*)(nvrtcProgram, char*);
using PFN_nvrtcDestroyProgram = nvrtcResult (*)(nvrtcProgram*);
#define TG_NVRTC_FUNCTIONS(X) \
  X(nvrtcVersion) X(nvrtcGetErrorString) X(nvrtcCreateProgram) X(nvrtcCompileProgram) \
  X(nvrtcGetProgramLogSize) X(nvrtcGetProgramLog) X(nvrtcGetPTXSize) X(nvrtcGetPTX) \
  X(nvrtcGetCUBINSize) X(nvrtcGetCUBIN) X(nvrtcDestroyProgram)

}  // namespace tg_cuda

#endif  // TG_PLUGINS_CUDA_CUDA_DECLS_H_
