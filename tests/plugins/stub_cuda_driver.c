/* stub_cuda_driver.c: a stand-in libcuda.so.1 with fake devices that cannot run kernels, for testing
 * the CUDA plugin's discovery, device properties, copies and their ordering on machines without an
 * NVIDIA GPU. It has every entry point the plugin resolves (plugins/cuda/cuda_decls.h, whose types
 * it mirrors in C: CUresult and CUdevice are int, handles are pointers). Discovery, contexts and
 * streams succeed with fixed values; memory is host memory and copies and events complete at once
 * (logged for the tests: stub_cuda_call_log); modules load (a CUBIN, or PTX with its .entry
 * kernels) and launches answer CUDA_ERROR_NOT_SUPPORTED.
 * Tests make it fail as a real driver would through the stub_cuda_* functions it exports. */
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum {
  kSuccess = 0,
  kInvalidValue = 1,
  kOutOfMemory = 2,
  kInvalidDevice = 101,
  kInvalidContext = 201,
  kInvalidPtx = 218,
  kNotFound = 500,
  kNotSupported = 801,
};

/* STUB_CUDA_DEVICES (1 or 2, default 1) fake devices, each with one context and one stream handle:
 * the addresses of g_contexts[i] and g_streams[i]. */
enum { kMaxDevices = 2 };
static int g_contexts[kMaxDevices], g_streams[kMaxDevices];

static int DeviceCount(void) {
  const char* v = getenv("STUB_CUDA_DEVICES");
  return v != NULL && strcmp(v, "2") == 0 ? 2 : 1;
}
static int ContextIndex(const void* context) {
  for (int i = 0; i < DeviceCount(); ++i) if (context == &g_contexts[i]) return i;
  return -1;
}
static int StreamIndex(const void* stream) {
  for (int i = 0; i < DeviceCount(); ++i) if (stream == &g_streams[i]) return i;
  return -1;
}

/* The calls that order work or move bytes, in order, one name per line, for tests to read through
 * stub_cuda_call_log (dlsym on the loaded library). */
static char g_log[1 << 16];
static pthread_mutex_t g_log_mu = PTHREAD_MUTEX_INITIALIZER;
static void Log(const char* call) {
  pthread_mutex_lock(&g_log_mu);
  size_t used = strlen(g_log), n = strlen(call);
  if (used + n + 2 < sizeof g_log) {
    memcpy(g_log + used, call, n);
    g_log[used + n] = '\n';
    g_log[used + n + 1] = '\0';
  }
  pthread_mutex_unlock(&g_log_mu);
}
__attribute__((visibility("default"))) void stub_cuda_call_log(char* out, size_t len) {
  pthread_mutex_lock(&g_log_mu);
  strncpy(out, g_log, len - 1);
  out[len - 1] = '\0';
  g_log[0] = '\0';
  pthread_mutex_unlock(&g_log_mu);
}

int cuInit(unsigned flags) { return flags == 0 ? kSuccess : kInvalidValue; }
/* NVRTC 13 opens libcuda.so.1 itself (the jail hands it this stub) and asks for the driver's private
 * export tables, which the stub has none of; without the symbol NVRTC crashes. */
int cuGetExportTable(const void** table, const void* id) {
  (void)id;
  *table = NULL;
  return kNotSupported;
}
/* The CUDA version the driver reports (12040 is 12.4), set by tests through
 * stub_cuda_set_driver_version, which returns the one it replaces. */
static int g_driver_version = 12040;
__attribute__((visibility("default"))) int stub_cuda_set_driver_version(int version) {
  return __atomic_exchange_n(&g_driver_version, version, __ATOMIC_SEQ_CST);
}
int cuDriverGetVersion(int* version) {
  *version = __atomic_load_n(&g_driver_version, __ATOMIC_SEQ_CST);
  return kSuccess;
}

int cuGetErrorName(int r, const char** name) {
  switch (r) {
    case kSuccess: *name = "CUDA_SUCCESS"; return kSuccess;
    case kInvalidValue: *name = "CUDA_ERROR_INVALID_VALUE"; return kSuccess;
    case kInvalidDevice: *name = "CUDA_ERROR_INVALID_DEVICE"; return kSuccess;
    case kInvalidContext: *name = "CUDA_ERROR_INVALID_CONTEXT"; return kSuccess;
    case kNotSupported: *name = "CUDA_ERROR_NOT_SUPPORTED"; return kSuccess;
    default: *name = NULL; return kInvalidValue;
  }
}
int cuGetErrorString(int r, const char** text) {
  *text = r == kNotSupported ? "the stub driver runs nothing" : NULL;
  return *text != NULL ? kSuccess : kInvalidValue;
}

static int BadDevice(int device) { return device < 0 || device >= DeviceCount(); }

int cuDeviceGetCount(int* count) { *count = DeviceCount(); return kSuccess; }
int cuDeviceGet(int* device, int ordinal) {
  if (BadDevice(ordinal)) return kInvalidDevice;
  *device = ordinal;
  return kSuccess;
}
int cuDeviceGetName(char* name, int len, int device) {
  if (BadDevice(device)) return kInvalidDevice;
  strncpy(name, "Stub CUDA device", (size_t)len);
  return kSuccess;
}
int cuDeviceGetAttribute(int* value, int attribute, int device) {
  if (BadDevice(device)) return kInvalidDevice;
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
  if (BadDevice(device)) return kInvalidDevice;
  *bytes = (size_t)1 << 30;
  return kSuccess;
}

/* The calling thread's current context, as the real driver keeps it. */
static __thread void* t_current;

/* A context the stub's devices know nothing of, as an application's own would be (a test makes it
 * current to see that the plugin leaves it so). The calls that work in the current context refuse
 * it, and no context at all, as a real driver does with no context current. */
static int g_foreign_context;
__attribute__((visibility("default"))) void* stub_cuda_foreign_context(void) { return &g_foreign_context; }
static int DeviceContextCurrent(void) { return ContextIndex(t_current) >= 0; }

int cuDevicePrimaryCtxRetain(void** context, int device) {
  if (BadDevice(device)) return kInvalidDevice;
  *context = &g_contexts[device];
  return kSuccess;
}
int cuDevicePrimaryCtxRelease_v2(int device) { return BadDevice(device) ? kInvalidDevice : kSuccess; }
int cuCtxSetCurrent(void* context) {
  if (context != NULL && context != &g_foreign_context && ContextIndex(context) < 0) return kInvalidContext;
  t_current = context;
  return kSuccess;
}
int cuCtxGetCurrent(void** context) {
  *context = t_current;
  return kSuccess;
}
int cuStreamCreate(void** stream, unsigned flags) {
  (void)flags;
  int i = ContextIndex(t_current);
  if (i < 0) return kInvalidValue;
  *stream = &g_streams[i];
  return kSuccess;
}
int cuStreamDestroy_v2(void* stream) { return StreamIndex(stream) >= 0 ? kSuccess : kInvalidValue; }
/* The CUresult the next cuStreamSynchronize returns instead of success (0: none), set by tests
 * through stub_cuda_fail_next_sync: a kernel fault surfaces there on a real device. */
static int g_next_sync_error;
__attribute__((visibility("default"))) void stub_cuda_fail_next_sync(int code) {
  __atomic_store_n(&g_next_sync_error, code, __ATOMIC_SEQ_CST);
}
int cuStreamSynchronize(void* stream) {
  if (StreamIndex(stream) < 0) return kInvalidValue;
  Log("cuStreamSynchronize");
  return __atomic_exchange_n(&g_next_sync_error, 0, __ATOMIC_SEQ_CST);
}

typedef unsigned long long CUdeviceptr;

/* Memory is the host's: a CUdeviceptr is a malloc'd address, and copies run at once. Page-locked
 * host memory is plain malloc too. */
int cuMemAlloc_v2(CUdeviceptr* ptr, size_t n) {
  if (!DeviceContextCurrent()) return kInvalidContext;
  void* p = malloc(n);
  if (p == NULL) return kOutOfMemory;
  *ptr = (CUdeviceptr)(uintptr_t)p;
  Log("cuMemAlloc");
  return kSuccess;
}
int cuMemFree_v2(CUdeviceptr ptr) {
  free((void*)(uintptr_t)ptr);
  Log("cuMemFree");
  return kSuccess;
}
int cuMemHostAlloc(void** ptr, size_t n, unsigned flags) {
  (void)flags;
  if (!DeviceContextCurrent()) return kInvalidContext;
  *ptr = malloc(n);
  if (*ptr == NULL) return kOutOfMemory;
  Log("cuMemHostAlloc");
  return kSuccess;
}
int cuMemFreeHost(void* ptr) {
  free(ptr);
  Log("cuMemFreeHost");
  return kSuccess;
}
int cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void* src, size_t n, void* stream) {
  if (StreamIndex(stream) < 0) return kInvalidValue;
  memcpy((void*)(uintptr_t)dst, src, n);
  Log("cuMemcpyHtoDAsync");
  return kSuccess;
}
int cuMemcpyDtoHAsync_v2(void* dst, CUdeviceptr src, size_t n, void* stream) {
  if (StreamIndex(stream) < 0) return kInvalidValue;
  memcpy(dst, (const void*)(uintptr_t)src, n);
  Log("cuMemcpyDtoHAsync");
  return kSuccess;
}
int cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src, size_t n, void* stream) {
  if (StreamIndex(stream) < 0) return kInvalidValue;
  memmove((void*)(uintptr_t)dst, (const void*)(uintptr_t)src, n);
  Log("cuMemcpyDtoDAsync");
  return kSuccess;
}
int cuMemcpyPeerAsync(CUdeviceptr dst, void* dst_ctx, CUdeviceptr src, void* src_ctx, size_t n, void* stream) {
  if (ContextIndex(dst_ctx) < 0 || ContextIndex(src_ctx) < 0 || StreamIndex(stream) < 0) return kInvalidValue;
  memmove((void*)(uintptr_t)dst, (const void*)(uintptr_t)src, n);
  Log("cuMemcpyPeerAsync");
  return kSuccess;
}
int cuDeviceCanAccessPeer(int* can, int device, int peer) {
  if (device < 0 || device >= DeviceCount() || peer < 0 || peer >= DeviceCount()) return kInvalidDevice;
  *can = 1;
  return kSuccess;
}
int cuCtxEnablePeerAccess(void* peer, unsigned flags) {
  (void)flags;
  if (!DeviceContextCurrent()) return kInvalidContext;
  if (ContextIndex(peer) < 0) return kInvalidValue;
  Log("cuCtxEnablePeerAccess");
  return kSuccess;
}

/* Modules: a CUBIN (an ELF image) holds any kernel; PTX text holds the kernels its .entry lines
 * name. Loads are logged as "cuModuleLoadDataEx cubin" or "... ptx"; launches are logged and run
 * nothing. */
typedef struct {
  char* ptx; /* NULL for a CUBIN */
} StubModule;

int cuModuleLoadDataEx(void** module, const void* image, unsigned n, int* options, void** values) {
  (void)n, (void)options, (void)values;
  if (!DeviceContextCurrent()) return kInvalidContext;
  const char* text = (const char*)image;
  int cubin = strncmp(text, "\x7f" "ELF", 4) == 0;
  if (!cubin && strstr(text, ".version") == NULL) return kInvalidPtx;
  StubModule* m = (StubModule*)calloc(1, sizeof *m);
  if (m == NULL || (!cubin && (m->ptx = strdup(text)) == NULL)) {
    free(m);
    return kOutOfMemory;
  }
  *module = m;
  Log(cubin ? "cuModuleLoadDataEx cubin" : "cuModuleLoadDataEx ptx");
  return kSuccess;
}
static int PtxNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$';
}
static int PtxHasEntry(const char* ptx, const char* name) {
  size_t len = strlen(name);
  for (const char* at = strstr(ptx, ".entry"); at != NULL; at = strstr(at + 1, ".entry")) {
    const char* p = at + 6;
    while (*p == ' ' || *p == '\t' || *p == '\n') ++p;
    if (strncmp(p, name, len) == 0 && !PtxNameChar(p[len])) return 1;
  }
  return 0;
}
int cuModuleGetFunction(void** function, void* module, const char* name) {
  const StubModule* m = (const StubModule*)module;
  if (m == NULL) return kInvalidValue;
  if (m->ptx != NULL && !PtxHasEntry(m->ptx, name)) return kNotFound;
  *function = module; /* the stub launches nothing: any handle of the module will do */
  return kSuccess;
}
int cuModuleUnload(void* module) {
  StubModule* m = (StubModule*)module;
  if (m == NULL) return kInvalidValue;
  free(m->ptx);
  free(m);
  Log("cuModuleUnload");
  return kSuccess;
}
int cuLaunchKernel(void* f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                   unsigned shared, void* stream, void** params, void** extra) {
  (void)f, (void)gx, (void)gy, (void)gz, (void)bx, (void)by, (void)bz, (void)shared, (void)stream;
  (void)params, (void)extra;
  Log("cuLaunchKernel");
  return kNotSupported;
}

/* Events: work runs at once, so every recorded event is complete. */
static int g_event;
int cuEventCreate(void** event, unsigned flags) {
  (void)flags;
  if (!DeviceContextCurrent()) return kInvalidContext;
  *event = &g_event;
  return kSuccess;
}
int cuEventRecord(void* event, void* stream) {
  if (event != &g_event || StreamIndex(stream) < 0) return kInvalidValue;
  Log("cuEventRecord");
  return kSuccess;
}
int cuStreamWaitEvent(void* stream, void* event, unsigned flags) {
  (void)flags;
  if (event != &g_event || StreamIndex(stream) < 0) return kInvalidValue;
  Log("cuStreamWaitEvent");
  return kSuccess;
}
int cuEventQuery(void* event) { return event == &g_event ? kSuccess : kInvalidValue; }
int cuEventSynchronize(void* event) {
  Log("cuEventSynchronize");
  return event == &g_event ? kSuccess : kInvalidValue;
}
int cuEventElapsedTime(float* ms, void* start, void* end) {
  if (start != &g_event || end != &g_event) return kInvalidValue;
  *ms = 0.f;
  return kSuccess;
}
int cuEventDestroy_v2(void* event) { return event == &g_event ? kSuccess : kInvalidValue; }
