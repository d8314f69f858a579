// cuda_device_check.cc: real kernels on a CUDA device through the CUDA plugin's raw ABI table.
// A plain program (no gtest, no absl, static libstdc++) so it can be copied to a GPU machine with
// the plugin .so and run there: `cuda_device_check [path/to/libtg_cuda.so]`. Exit 0 = pass or no
// device (prints SKIP and the plugin's reason), 1 = a check failed.
#include <dlfcn.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "plugins/abi/tg_plugin.h"
#include "tests/plugins/damaged_binaries.h"
#include "tools/test_skip_report.h"

namespace {

const tg_plugin_api* api = nullptr;
int failures = 0;

#define CHECK(cond, ...)                                        \
  do {                                                          \
    if (!(cond)) {                                              \
      std::printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
      std::printf(__VA_ARGS__);                                 \
      std::printf("\n");                                        \
      ++failures;                                               \
    }                                                           \
  } while (0)

// True when |e| is NULL; otherwise prints and frees it.
bool Ok(tg_error* e, const char* what) {
  if (e == nullptr) return true;
  std::printf("FAIL %s: %s\n", what, api->error_message(e));
  api->error_destroy(e);
  ++failures;
  return false;
}
tg_code Code(tg_error* e) {
  if (e == nullptr) return TG_CODE_OK;
  tg_code c = api->error_code(e);
  std::printf("  (expected error) %.200s\n", api->error_message(e));
  api->error_destroy(e);
  return c;
}

constexpr char kVectorAdd[] = R"K(
extern "C" __global__ void vadd(float* out, const float* a, const float* b, int n, long long k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a[i] + b[i] + (float)(k >> 40);
}
)K";

tg_program* Compile(tg_device* dev, const char* dialect, const std::string& src, const char* entry) {
  tg_compile_args a{};
  a.struct_size = sizeof a;
  a.device = dev, a.dialect = dialect, a.source = src.data(), a.source_len = src.size(), a.entry = entry;
  tg_program* p = nullptr;
  Ok(api->program_compile(&a, &p), dialect);
  return p;
}

// out = a + b + 3 over n floats at an element offset; checks every element and the timing.
void VectorAdd(tg_device* dev, tg_program* p, int n, int offset) {
  std::vector<float> a(n + offset), b(n + offset), out(n);
  for (int i = 0; i < n + offset; ++i) a[i] = float(i), b[i] = float(2 * i);
  tg_buffer *ba = nullptr, *bb = nullptr, *bo = nullptr;
  uint64_t bytes = uint64_t(n + offset) * 4, off = uint64_t(offset) * 4;
  Ok(api->buffer_alloc(dev, bytes, 0, &ba), "alloc");
  Ok(api->buffer_alloc(dev, bytes, 0, &bb), "alloc");
  Ok(api->buffer_alloc(dev, bytes, 0, &bo), "alloc");
  Ok(api->copy_h2d(nullptr, ba, 0, a.data(), bytes, nullptr), "h2d");
  Ok(api->copy_h2d(nullptr, bb, 0, b.data(), bytes, nullptr), "h2d");
  tg_arg args[5] = {};
  args[0].kind = args[1].kind = args[2].kind = TG_ARG_BUFFER;
  args[0].buffer = bo, args[1].buffer = ba, args[2].buffer = bb;
  args[0].offset = args[1].offset = args[2].offset = off;
  args[3].kind = TG_ARG_I32, args[3].value = n;
  args[4].kind = TG_ARG_I64, args[4].value = int64_t{3} << 40;
  tg_launch_args la{};
  la.struct_size = sizeof la;
  la.program = p;
  la.num_groups[0] = uint32_t((n + 127) / 128), la.num_groups[1] = la.num_groups[2] = 1;
  la.group_size[0] = 128, la.group_size[1] = la.group_size[2] = 1;
  la.args = args, la.num_args = 5, la.flags = TG_LAUNCH_PROFILE;
  tg_event* ev = nullptr;
  la.out_done = &ev;
  if (Ok(api->launch(&la), "launch") && ev != nullptr) {
    Ok(api->event_wait(ev, UINT64_MAX), "event_wait");
    uint64_t s = 0, e = 0;
    Ok(api->event_timing_ns(ev, &s, &e), "timing");
    CHECK(e > s, "timing %llu..%llu", (unsigned long long)s, (unsigned long long)e);
    api->event_destroy(ev);
  }
  Ok(api->copy_d2h(nullptr, out.data(), bo, off, uint64_t(n) * 4, nullptr), "d2h");
  int bad = 0;
  for (int i = 0; i < n; ++i) bad += out[i] != a[i + offset] + b[i + offset] + 3.f;
  CHECK(bad == 0, "%d of %d wrong (n=%d offset=%d), out[0]=%f", bad, n, n, offset, out[0]);
  api->buffer_free(ba), api->buffer_free(bb), api->buffer_free(bo);
}

void Run(tg_device* dev) {
  tg_device_props props{};
  props.struct_size = sizeof props;
  Ok(api->device_props(dev, &props), "props");
  std::printf("device: %s arch %s, %llu MiB, %u SMs, fingerprint %s\n", props.name, props.arch,
              (unsigned long long)(props.global_mem_bytes >> 20), props.compute_units, props.compile_fingerprint);
  tg_program* p = Compile(dev, "cuda-c", kVectorAdd, "vadd");
  if (p == nullptr) return;
  VectorAdd(dev, p, 100000, 0);
  VectorAdd(dev, p, 1000, 5);
  const char* format = nullptr;
  const void* bin = nullptr;
  uint64_t len = 0;
  Ok(api->program_binary(p, &format, &bin, &len), "program_binary");
  std::string copy(static_cast<const char*>(bin), len);
  std::string fmt = format;
  api->program_destroy(p);
  tg_program* loaded = nullptr;
  if (Ok(api->program_load(dev, fmt.c_str(), copy.data(), copy.size(), "vadd", &loaded), "program_load")) {
    VectorAdd(dev, loaded, 777, 1);
    api->program_destroy(loaded);
  }
  std::string garbage(4096, 'x');
  CHECK(Code(api->program_load(dev, "cubin", garbage.data(), garbage.size(), "vadd", &loaded)) ==
            TG_CODE_FAILED_PRECONDITION, "corrupt cubin");
  // Truncated and bit-flipped copies are refused before the driver's loader sees them.
  for (const tg::testing::DamagedBinary& d : tg::testing::DamagedBinaries(copy)) {
    tg_error* e = api->program_load(dev, fmt.c_str(), d.bytes.data(), d.bytes.size(), "vadd", &loaded);
    tg_code c = e != nullptr ? api->error_code(e) : TG_CODE_OK;
    if (e != nullptr) api->error_destroy(e);
    CHECK(c == TG_CODE_FAILED_PRECONDITION, "%s: code %u", d.what.c_str(), unsigned(c));
  }
  CHECK(Code(api->program_compile(nullptr, &loaded)) == TG_CODE_INVALID_ARGUMENT, "NULL args");
  std::string broken = "extern \"C\" __global__ void broken() { this is not C++; }";
  tg_compile_args a{};
  a.struct_size = sizeof a;
  a.device = dev, a.dialect = "cuda-c", a.source = broken.data(), a.source_len = broken.size(), a.entry = "broken";
  CHECK(Code(api->program_compile(&a, &loaded)) == TG_CODE_INVALID_ARGUMENT, "syntax error");
}

void CopyChecks(tg_device* dev) {
  std::vector<int32_t> src(256), back(256);
  for (int i = 0; i < 256; ++i) src[i] = i;
  tg_buffer* b = nullptr;
  Ok(api->buffer_alloc(dev, 1024, 0, &b), "alloc");
  tg_event* ev = nullptr;
  Ok(api->copy_h2d(nullptr, b, 0, src.data(), 1024, &ev), "async h2d");
  if (ev != nullptr) Ok(api->event_wait(ev, 1000000000ull), "wait"), api->event_destroy(ev);
  Ok(api->copy_d2d(nullptr, b, 4, b, 0, 512, nullptr), "overlapping d2d");
  Ok(api->copy_d2h(nullptr, back.data(), b, 0, 1024, nullptr), "d2h");
  bool good = back[0] == 0;
  for (int i = 1; i <= 128; ++i) good &= back[i] == i - 1;
  CHECK(good, "overlapping d2d result");
  Ok(api->stream_sync(dev, nullptr), "stream_sync");
  api->buffer_free(b);
}

// tg.native_handles: the buffer's CUdeviceptr holds what copy_h2d wrote (read back with the driver's own
// cuMemcpyDtoH, in the plugin's context), and the device names its stream and context.
void NativeHandleChecks(tg_device* dev) {
  const tg_native_handles_ext* ext = nullptr;
  for (const tg_ext* e = api->extensions; e != nullptr; e = e->next)
    if (e->name != nullptr && std::strcmp(e->name, TG_NATIVE_HANDLES_NAME) == 0)
      ext = reinterpret_cast<const tg_native_handles_ext*>(e);
  CHECK(ext != nullptr, "no %s extension", TG_NATIVE_HANDLES_NAME);
  if (ext == nullptr) return;
  std::vector<int32_t> src(256), back(256, -1);
  for (int i = 0; i < 256; ++i) src[i] = 3 * i - 7;
  tg_buffer* b = nullptr;
  Ok(api->buffer_alloc(dev, 1024, 0, &b), "alloc");
  Ok(api->copy_h2d(nullptr, b, 0, src.data(), 1024, nullptr), "h2d");
  Ok(api->stream_sync(dev, nullptr), "stream_sync");
  uint64_t address = 0;
  const char* kind = nullptr;
  Ok(ext->buffer_native(b, &address, &kind), "buffer_native");
  CHECK(kind != nullptr && std::strcmp(kind, "cuda") == 0, "memory kind %s", kind ? kind : "(null)");
  CHECK(address != 0, "CUdeviceptr 0");
  const char* dev_kind = nullptr;
  void* stream = nullptr;
  void* context = nullptr;
  Ok(ext->device_native(dev, &dev_kind, &stream, &context), "device_native");
  CHECK(dev_kind != nullptr && std::strcmp(dev_kind, "cuda") == 0, "device memory kind");
  CHECK(stream != nullptr && context != nullptr, "stream %p context %p", stream, context);
  Ok(ext->device_bind_thread(dev), "device_bind_thread");  // the context is current: the driver may be called
  using MemcpyDtoH = int (*)(void*, unsigned long long, size_t);
  void* cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  auto dtoh = cuda != nullptr ? reinterpret_cast<MemcpyDtoH>(dlsym(cuda, "cuMemcpyDtoH_v2")) : nullptr;
  CHECK(dtoh != nullptr, "cuMemcpyDtoH_v2 not found");
  if (dtoh != nullptr) {
    CHECK(dtoh(back.data(), address, 1024) == 0, "cuMemcpyDtoH_v2 on the native address");
    CHECK(back == src, "the native address does not hold the bytes copy_h2d wrote");
  }
  api->buffer_free(b);
}

}  // namespace

int main(int argc, char** argv) {
  const char* path = argc > 1 ? argv[1] : "./plugins/cuda/libtg_cuda.so";
  void* lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) return std::printf("FAIL dlopen: %s\n", dlerror()), 1;
  auto get = reinterpret_cast<tg_plugin_get_api_fn>(dlsym(lib, TG_PLUGIN_ENTRY_SYMBOL));
  api = get != nullptr ? get(TG_ABI_MAJOR, TG_ABI_MINOR) : nullptr;
  if (api == nullptr) return std::printf("FAIL: no table\n"), 1;
  Ok(api->initialize(nullptr), "initialize");
  uint32_t n = 0;
  Ok(api->device_count(&n), "device_count");
  if (n == 0) {
    std::printf("SKIP: no CUDA device: %s\n", api->unavailable_reason());
    tg::testing::ReportSkippedToBazel("cuda_device_check", std::string("no CUDA device: ") + api->unavailable_reason());
    return failures == 0 ? 0 : 1;
  }
  tg_device* dev = nullptr;
  if (!Ok(api->device_open(0, &dev), "device_open")) return 1;
  Run(dev);
  CopyChecks(dev);
  NativeHandleChecks(dev);
  api->device_close(dev);
  api->shutdown();
  std::printf("%s: %d failure(s)\n", failures == 0 ? "PASS" : "FAIL", failures);
  return failures == 0 ? 0 : 1;
}
