// cuda_stub_driver_test.cc: the CUDA plugin under what a real driver can do to it, on the stub driver
// (one device) and its test knobs (stub_cuda_driver.c): sticky kernel faults surface as ABORTED, an
// application's own CUDA context is still current on its thread after every call, a launch passes
// exactly as many arguments as the kernel takes (counted from its PTX, kept in its binary), and
// cuda-c is compiled only by an NVRTC whose output the driver's CUDA version can load.
#include <dlfcn.h>
#include <glob.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <deque>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "plugins/abi/tg_plugin.h"
#include "plugins/kit/binary_envelope.h"
#include "tests/plugins/plugin_test_util.h"
#include "tests/plugins/stub_driver_util.h"

namespace {

using tg::testing::ErrorChecker;
using tg::testing::LoadWithDrivers;
using tg::testing::OpenTheOneDevice;
using tg::testing::StubDevice;
using tg::testing::StubLoaded;

constexpr char kStubDriver[] = "tests/plugins/stub_drivers/libcuda.so.1";

// The directory the process's bare library names are looked up in: the stub driver, and beside it
// NVRTC's builtins library from /usr/local/cuda, which NVRTC dlopens by bare name and the jail would
// otherwise look for among the stubs. (The plugin finds NVRTC itself under /usr/local/cuda by path.)
const char* DriverDir() {
  static const std::string dir = [] {
    const char* tmp = std::getenv("TEST_TMPDIR");
    std::string d = std::string(tmp != nullptr ? tmp : "/tmp") + "/cuda_stub_drivers." + std::to_string(getpid());
    mkdir(d.c_str(), 0755);
    char stub[PATH_MAX];
    if (realpath(kStubDriver, stub) != nullptr) symlink(stub, (d + "/libcuda.so.1").c_str());
    glob_t g{};
    if (glob("/usr/local/cuda/lib64/libnvrtc-builtins.so*", 0, nullptr, &g) == 0) {
      for (size_t i = 0; i < g.gl_pathc; ++i) {
        std::string path = g.gl_pathv[i];
        symlink(path.c_str(), (d + path.substr(path.rfind('/'))).c_str());
      }
    }
    globfree(&g);
    return d;
  }();
  return dir.c_str();
}

// A function the stub driver exports for tests (NULL, after a test failure, when the driver the
// plugin loaded is not the stub).
template <typename Fn>
Fn StubFunction(const char* name) {
  void* driver = dlopen(kStubDriver, RTLD_NOW | RTLD_NOLOAD);
  void* fn = driver != nullptr ? dlsym(driver, name) : nullptr;
  EXPECT_NE(fn, nullptr) << name << ": the stub driver was not the one loaded";
  return reinterpret_cast<Fn>(fn);
}

// The driver calls the stub logged since the last read, one per line.
std::string CallLog() {
  auto read = StubFunction<void (*)(char*, size_t)>("stub_cuda_call_log");
  if (read == nullptr) return "";
  std::string text(1 << 16, '\0');
  read(text.data(), text.size());
  return text.c_str();
}

// The plugin over the stub driver, loaded once for the process (plugins search for their driver
// once), and its one device opened for each test.
class CudaStubDriverTest : public ::testing::Test {
 protected:
  static const StubLoaded& Loaded() {
    static const StubLoaded l = LoadWithDrivers(tg::testing::kCudaPlugin, DriverDir());
    return l;
  }
  void SetUp() override {
    OpenTheOneDevice(Loaded(), &d_);
    ASSERT_NE(d_.device, nullptr);
    api_ = d_.api;
  }

  // |source| in |dialect| for |entry| on |device| (the test's by default): the program, or NULL with
  // |*code| and |*message| set (a test failure where they are not asked for).
  tg_program* Compile(const char* dialect, const std::string& source, const char* entry, tg_code* code = nullptr,
                      std::string* message = nullptr, tg_device* device = nullptr) {
    tg_compile_args a{};
    a.struct_size = sizeof a;
    a.device = device != nullptr ? device : d_.device, a.dialect = dialect, a.source = source.data(), a.source_len = source.size(), a.entry = entry;
    tg_program* p = nullptr;
    tg_error* e = api_->program_compile(&a, &p);
    if (code != nullptr) *code = e != nullptr ? api_->error_code(e) : TG_CODE_OK;
    if (message != nullptr) *message = e != nullptr ? api_->error_message(e) : "";
    if (e != nullptr && code == nullptr) ADD_FAILURE() << api_->error_message(e);
    if (e != nullptr) api_->error_destroy(e);
    return p;
  }
  // Launches |program| with |n| int32 arguments; the error's code and message (code OK, "" when the
  // launch succeeded, which the stub never lets it).
  std::pair<tg_code, std::string> LaunchWith(tg_program* program, uint32_t n) {
    std::vector<tg_arg> args(n);
    for (tg_arg& a : args) a.kind = TG_ARG_I32, a.value = 1;
    tg_launch_args la{};
    la.struct_size = sizeof la;
    la.program = program;
    for (int i = 0; i < 3; ++i) la.num_groups[i] = la.group_size[i] = 1;
    la.args = args.data(), la.num_args = n;
    tg_error* e = api_->launch(&la);
    if (e == nullptr) return {TG_CODE_OK, ""};
    std::pair<tg_code, std::string> out{api_->error_code(e), api_->error_message(e)};
    api_->error_destroy(e);
    return out;
  }
  // How many arguments launch accepts for |program|: read from its refusal of 99.
  int TakesArgs(tg_program* program) {
    auto [code, msg] = LaunchWith(program, 99);
    EXPECT_EQ(code, TG_CODE_INVALID_ARGUMENT) << msg;
    size_t at = msg.find("the kernel takes ");
    return at == std::string::npos ? -1 : std::stoi(msg.substr(at + 17));
  }

  // Another handle on the device, opened while the stub reports CUDA |driver_version| (the plugin
  // chooses its NVRTC at device_open), with its properties; closed with the test.
  tg_device* OpenWithDriver(int driver_version, tg_device_props* props) {
    auto set_version = StubFunction<int (*)(int)>("stub_cuda_set_driver_version");
    if (set_version == nullptr) return nullptr;
    int before = set_version(driver_version);
    StubDevice& d = more_.emplace_back();
    d.api = api_;
    d.props = tg::testing::OpenAndDescribe(api_, &d.device);
    set_version(before);
    *props = d.props;
    return d.device;
  }
  // The version of the NVRTC the plugin uses with a driver newer than any CUDA ("13.0"), read from
  // the fingerprint it names it in; "" where there is no NVRTC.
  std::string NewestNvrtc() {
    tg_device_props p{};
    if (OpenWithDriver(99990, &p) == nullptr) return "";
    std::string fp = p.compile_fingerprint;
    return fp.find("|no NVRTC") != std::string::npos ? "" : fp.substr(fp.rfind(' ') + 1);
  }

  StubDevice d_;
  std::deque<StubDevice> more_;
  const tg_plugin_api* api_ = nullptr;
};

// ---- CUresult -> tg_code ----

// cuda.h's "leaves the process in an inconsistent state" errors, and the device-side assert.
TEST_F(CudaStubDriverTest, EveryStickyFaultIsAborted) {
  auto fail_next_sync = StubFunction<void (*)(int)>("stub_cuda_fail_next_sync");
  ASSERT_NE(fail_next_sync, nullptr);
  // CONTAINED, ILLEGAL_ADDRESS, LAUNCH_TIMEOUT, ASSERT, HARDWARE_STACK_ERROR, ILLEGAL_INSTRUCTION,
  // MISALIGNED_ADDRESS, INVALID_ADDRESS_SPACE, INVALID_PC, LAUNCH_FAILED, TENSOR_MEMORY_LEAK,
  // EXTERNAL_DEVICE.
  for (int cu : {226, 700, 702, 710, 714, 715, 716, 717, 718, 719, 721, 911}) {
    SCOPED_TRACE("CUresult " + std::to_string(cu));
    fail_next_sync(cu);
    std::string msg = ErrorChecker(api_).Err(api_->stream_sync(d_.device, nullptr), TG_CODE_ABORTED);
    EXPECT_NE(msg.find("(" + std::to_string(cu) + ")"), std::string::npos) << msg;
  }
  ErrorChecker(api_).Ok(api_->stream_sync(d_.device, nullptr));  // the knob fails one call only
}

TEST_F(CudaStubDriverTest, OtherDriverErrorsKeepTheirMeaning) {
  auto fail_next_sync = StubFunction<void (*)(int)>("stub_cuda_fail_next_sync");
  ASSERT_NE(fail_next_sync, nullptr);
  const struct {
    int cu;
    tg_code code;
  } cases[] = {
      {2, TG_CODE_RESOURCE_EXHAUSTED},    // OUT_OF_MEMORY
      {701, TG_CODE_RESOURCE_EXHAUSTED},  // LAUNCH_OUT_OF_RESOURCES: a launch too large, no fault
      {3, TG_CODE_UNAVAILABLE},           // NOT_INITIALIZED
      {4, TG_CODE_UNAVAILABLE},           // DEINITIALIZED
      {46, TG_CODE_UNAVAILABLE},          // DEVICE_UNAVAILABLE
      {100, TG_CODE_UNAVAILABLE},         // NO_DEVICE
      {201, TG_CODE_FAILED_PRECONDITION}, // INVALID_CONTEXT
      {709, TG_CODE_FAILED_PRECONDITION}, // CONTEXT_IS_DESTROYED
      {999, TG_CODE_INTERNAL},            // UNKNOWN
  };
  for (const auto& c : cases) {
    SCOPED_TRACE("CUresult " + std::to_string(c.cu));
    fail_next_sync(c.cu);
    ErrorChecker(api_).Err(api_->stream_sync(d_.device, nullptr), c.code);
  }
}

// ---- The caller's CUDA context ----

// The thread's current context, as an application that calls the driver itself sees it: through the
// driver's own cuCtxGetCurrent / cuCtxSetCurrent.
class ThreadContext {
 public:
  ThreadContext()
      : get_(StubFunction<int (*)(void**)>("cuCtxGetCurrent")),
        set_(StubFunction<int (*)(void*)>("cuCtxSetCurrent")),
        foreign_(StubFunction<void* (*)()>("stub_cuda_foreign_context")) {}
  bool ok() const { return get_ != nullptr && set_ != nullptr && foreign_ != nullptr; }
  void* Get() const {
    void* c = nullptr;
    EXPECT_EQ(get_(&c), 0);
    return c;
  }
  void Set(void* c) const { ASSERT_EQ(set_(c), 0); }
  // A context of the application's own (the stub's devices know nothing of it).
  void* Foreign() const { return foreign_(); }

 private:
  int (*get_)(void**);
  int (*set_)(void*);
  void* (*foreign_)();
};

TEST_F(CudaStubDriverTest, EveryEntryPointLeavesTheCallersContextCurrent) {
  ThreadContext ctx;
  ASSERT_TRUE(ctx.ok());
  ErrorChecker check(api_);
  void* mine = ctx.Foreign();
  ctx.Set(mine);
  auto still_mine = [&](const char* after) { EXPECT_EQ(ctx.Get(), mine) << "after " << after; };

  tg_device* dev = nullptr;  // a second handle on the device, opened under the caller's context
  check.Ok(api_->device_open(0, &dev));
  still_mine("device_open");
  ASSERT_NE(dev, nullptr);
  tg_buffer *a = nullptr, *b = nullptr;
  check.Ok(api_->buffer_alloc(dev, 256, 0, &a));
  check.Ok(api_->buffer_alloc(dev, 256, 0, &b));
  still_mine("buffer_alloc");
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  std::vector<uint8_t> in(256, 7), out(256, 0);
  check.Ok(api_->copy_h2d(nullptr, a, 0, in.data(), in.size(), nullptr));
  still_mine("copy_h2d");
  tg_event* copied = nullptr;
  check.Ok(api_->copy_d2d(nullptr, b, 0, a, 0, in.size(), &copied));
  still_mine("copy_d2d");
  check.Ok(api_->event_wait(copied, UINT64_MAX));
  still_mine("event_wait");
  uint32_t done = 0;
  check.Ok(api_->event_query(copied, &done));
  still_mine("event_query");
  check.Ok(api_->device_wait_event(dev, nullptr, copied));
  still_mine("device_wait_event");
  api_->event_destroy(copied);
  still_mine("event_destroy");
  check.Ok(api_->copy_d2h(nullptr, out.data(), b, 0, out.size(), nullptr));
  still_mine("copy_d2h");
  EXPECT_EQ(out, in);
  tg_event* recorded = nullptr;
  check.Ok(api_->event_record(dev, nullptr, &recorded));
  still_mine("event_record");
  api_->event_destroy(recorded);
  check.Ok(api_->stream_sync(dev, nullptr));
  still_mine("stream_sync");
  void* pinned = nullptr;
  check.Ok(api_->host_alloc(dev, 4096, &pinned));
  still_mine("host_alloc");
  api_->host_free(dev, pinned);
  still_mine("host_free");
  api_->buffer_free(a);
  api_->buffer_free(b);
  still_mine("buffer_free");
  api_->device_close(dev);
  still_mine("device_close");
  ctx.Set(nullptr);
}

TEST_F(CudaStubDriverTest, ProgramEntryPointsLeaveTheCallersContextCurrent) {
  ThreadContext ctx;
  ASSERT_TRUE(ctx.ok());
  void* mine = ctx.Foreign();
  ctx.Set(mine);
  tg_program* p = Compile("ptx", ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n ret;\n}\n", "k");
  EXPECT_EQ(ctx.Get(), mine) << "after program_compile";
  ASSERT_NE(p, nullptr);
  LaunchWith(p, 0);  // the stub runs nothing: the launch fails, and must still restore
  EXPECT_EQ(ctx.Get(), mine) << "after launch";
  api_->program_destroy(p);
  EXPECT_EQ(ctx.Get(), mine) << "after program_destroy";
  ctx.Set(nullptr);
}

TEST_F(CudaStubDriverTest, AThreadWithoutAContextIsLeftWithoutOne) {
  ThreadContext ctx;
  ASSERT_TRUE(ctx.ok());
  ctx.Set(nullptr);
  tg_buffer* b = nullptr;
  ErrorChecker(api_).Ok(api_->buffer_alloc(d_.device, 64, 0, &b));
  EXPECT_EQ(ctx.Get(), nullptr);
  api_->buffer_free(b);
  EXPECT_EQ(ctx.Get(), nullptr);
}

// tg.native_handles' device_bind_thread switches on purpose: the caller's next native call targets
// the device. The plugin's own calls then find its context already current and leave it so.
TEST_F(CudaStubDriverTest, DeviceBindThreadLeavesTheDevicesContextCurrent) {
  ThreadContext ctx;
  ASSERT_TRUE(ctx.ok());
  auto* ext = reinterpret_cast<const tg_native_handles_ext*>(tg::testing::FindExtension(api_, TG_NATIVE_HANDLES_NAME));
  ASSERT_NE(ext, nullptr);
  const char* kind = nullptr;
  void *stream = nullptr, *device_context = nullptr;
  ErrorChecker(api_).Ok(ext->device_native(d_.device, &kind, &stream, &device_context));
  ctx.Set(ctx.Foreign());
  ErrorChecker(api_).Ok(ext->device_bind_thread(d_.device));
  EXPECT_EQ(ctx.Get(), device_context);
  ErrorChecker(api_).Ok(api_->stream_sync(d_.device, nullptr));
  EXPECT_EQ(ctx.Get(), device_context);
  ctx.Set(nullptr);
}

// ---- Launch arguments against the kernel's parameters ----

constexpr char kPtxHeader[] = ".version 8.0\n.target sm_80\n.address_size 64\n";

// ---- device_close ----

int Count(const std::string& log, const std::string& line) {
  int n = 0;
  for (size_t at = 0; (at = log.find(line + "\n", at)) != std::string::npos; at += line.size()) {
    if (at == 0 || log[at - 1] == '\n') ++n;
  }
  return n;
}

// What the host left open on a device, device_close frees: the ABI says so, and the primary context
// the memory and modules live in outlives this handle (the test's own device holds it).
TEST_F(CudaStubDriverTest, DeviceCloseFreesTheBuffersAndProgramsTheHostLeft) {
  tg_device* second = nullptr;
  ErrorChecker(api_).Ok(api_->device_open(0, &second));
  ASSERT_NE(second, nullptr);
  tg_buffer *a = nullptr, *b = nullptr, *freed = nullptr;
  ErrorChecker(api_).Ok(api_->buffer_alloc(second, 4096, 0, &a));
  ErrorChecker(api_).Ok(api_->buffer_alloc(second, 64, 0, &b));
  ErrorChecker(api_).Ok(api_->buffer_alloc(second, 64, 0, &freed));
  std::string ptx = std::string(kPtxHeader) + ".visible .entry k(\n\t.param .u64 k_param_0\n)\n{\n\tret;\n}\n";
  ASSERT_NE(Compile("ptx", ptx, "k", nullptr, nullptr, second), nullptr);
  api_->buffer_free(freed);
  CallLog();
  api_->device_close(second);
  std::string log = CallLog();
  EXPECT_EQ(Count(log, "cuMemFree"), 2) << log;  // a and b; not |freed| a second time
  EXPECT_EQ(Count(log, "cuModuleUnload"), 1) << log;
}

TEST_F(CudaStubDriverTest, ALaunchWithAnotherNumberOfArgumentsThanTheKernelTakesIsRefused) {
  std::string ptx = std::string(kPtxHeader) +
                    ".visible .entry k(\n\t.param .u64 k_param_0,\n\t.param .u32 k_param_1\n)\n{\n\tret;\n}\n";
  tg_program* p = Compile("ptx", ptx, "k");
  ASSERT_NE(p, nullptr);
  CallLog();
  for (uint32_t n : {0u, 1u, 3u}) {
    auto [code, msg] = LaunchWith(p, n);
    EXPECT_EQ(code, TG_CODE_INVALID_ARGUMENT) << msg;
    EXPECT_NE(msg.find("launch of 'k': " + std::to_string(n) + " arguments, the kernel takes 2"), std::string::npos)
        << msg;
  }
  EXPECT_EQ(CallLog().find("cuLaunchKernel"), std::string::npos) << "a refused launch reached the driver";
  auto [code, msg] = LaunchWith(p, 2);
  EXPECT_EQ(code, TG_CODE_INTERNAL) << msg;  // the stub's CUDA_ERROR_NOT_SUPPORTED: it got that far
  EXPECT_NE(CallLog().find("cuLaunchKernel"), std::string::npos);
  api_->program_destroy(p);
}

TEST_F(CudaStubDriverTest, TheParametersAreCountedFromTheEntrysPtxSignature) {
  std::string ptx = std::string(kPtxHeader) +
                    "// .visible .entry commented(.param .u32 c_p0)\n"
                    ".func (.param .b32 r) helper(.param .b32 x, .param .b32 y)\n{\n\tret;\n}\n"
                    ".visible .entry none()\n{\n\tret;\n}\n"
                    ".entry bare\n{\n\tret;\n}\n"
                    ".visible .entry k(.param .u32 k_p0)\n{\n\tret;\n}\n"
                    ".visible .entry k2 (\n"
                    "\t.param .u64 .ptr .global .align 16 k2_p0, // .param .u32 not_one\n"
                    "\t/* .param .u32 nor_this, */ .param .align 8 .b8 k2_p1[16],\n"
                    "\t.param .f64 k2_p2\n"
                    ")\n.maxntid 256, 1, 1\n{\n\tld.param.f64 %fd1, [k2_p2];\n\tret;\n}\n";
  const struct {
    const char* entry;
    int takes;
  } cases[] = {{"none", 0}, {"bare", 0}, {"k", 1}, {"k2", 3}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.entry);
    tg_program* p = Compile("ptx", ptx, c.entry);
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(TakesArgs(p), c.takes);
    api_->program_destroy(p);
  }
  // The stub finds a commented-out .entry; the plugin reads no signature for it, and refuses to
  // launch it blind.
  tg_code code = TG_CODE_OK;
  std::string msg;
  EXPECT_EQ(Compile("ptx", ptx, "commented", &code, &msg), nullptr);
  EXPECT_EQ(code, TG_CODE_INVALID_ARGUMENT) << msg;
  EXPECT_NE(msg.find("parameter list was not found"), std::string::npos) << msg;
}

TEST_F(CudaStubDriverTest, AProgramBinaryKeepsTheParameterCount) {
  std::string ptx = std::string(kPtxHeader) + ".visible .entry k(.param .u64 a, .param .u64 b, .param .u32 n)\n{\n\tret;\n}\n";
  tg_program* p = Compile("ptx", ptx, "k");
  ASSERT_NE(p, nullptr);
  const char* format = nullptr;
  const void* bin = nullptr;
  uint64_t len = 0;
  ErrorChecker(api_).Ok(api_->program_binary(p, &format, &bin, &len));
  std::string copy(static_cast<const char*>(bin), len), fmt = format;
  api_->program_destroy(p);
  tg_program* loaded = nullptr;
  ErrorChecker(api_).Ok(api_->program_load(d_.device, fmt.c_str(), copy.data(), copy.size(), "k", &loaded));
  ASSERT_NE(loaded, nullptr);
  EXPECT_EQ(TakesArgs(loaded), 3);
  api_->program_destroy(loaded);
}

// A binary sealed as the plugin did before it kept the counts: intact, but a launch of it could not be
// checked, so it is recompiled rather than loaded.
TEST_F(CudaStubDriverTest, ABinaryWithoutParameterCountsIsRefused) {
  std::string ptx = std::string(kPtxHeader) + ".visible .entry k(.param .u64 a)\n{\n\tret;\n}\n";
  constexpr tg_kit::BinaryEnvelope kCudaEnvelope("TGCUDBIN");
  for (const char* params : {"", "params k=", "params k=x", "sm_80|driver 12040"}) {
    SCOPED_TRACE(params);
    std::string old = kCudaEnvelope.Seal(ptx, params);
    tg_program* loaded = nullptr;
    std::string msg = ErrorChecker(api_).Err(
        api_->program_load(d_.device, "ptx", old.data(), old.size(), "k", &loaded), TG_CODE_FAILED_PRECONDITION);
    EXPECT_NE(msg.find("recompile"), std::string::npos) << msg;
    EXPECT_EQ(loaded, nullptr);
  }
}

constexpr char kCudaAdd[] =
    "extern \"C\" __global__ void add(float* out, const float* a, int n) {\n"
    "  if (threadIdx.x < n) out[threadIdx.x] = a[threadIdx.x] + 1.f;\n}\n";

// cuda-c: NVRTC's cubin is what the driver loads, and the count comes from the PTX NVRTC made on the
// way. Needs NVRTC (found under /usr/local/cuda even with the driver search confined to the stubs).
TEST_F(CudaStubDriverTest, ACudaCKernelsParametersAreCountedToo) {
  if (NewestNvrtc().empty()) GTEST_SKIP() << "no NVRTC under /usr/local/cuda/lib64 to compile cuda-c";
  tg_device_props props{};
  tg_device* dev = OpenWithDriver(99990, &props);
  ASSERT_NE(dev, nullptr);
  CallLog();
  tg_program* p = Compile("cuda-c", kCudaAdd, "add", nullptr, nullptr, dev);
  ASSERT_NE(p, nullptr);
  EXPECT_NE(CallLog().find("cuModuleLoadDataEx cubin"), std::string::npos);
  EXPECT_EQ(TakesArgs(p), 3);
  api_->program_destroy(p);
}

// ---- NVRTC against the driver's CUDA version ----

bool OffersDialect(const tg_device_props& p, const std::string& dialect) {
  for (uint32_t i = 0; i < p.num_source_dialects; ++i)
    if (p.source_dialects[i] == dialect) return true;
  return false;
}

// NVRTC of a newer major version than the driver makes what the driver refuses: such a device offers
// only ptx, says why in its fingerprint, and refuses cuda-c naming both versions.
TEST_F(CudaStubDriverTest, AnNvrtcNewerThanTheDriverIsNotUsed) {
  std::string nvrtc = NewestNvrtc();
  if (nvrtc.empty()) GTEST_SKIP() << "no NVRTC under /usr/local/cuda/lib64 to choose from";
  int major = std::stoi(nvrtc);
  std::string older = std::to_string(major - 1) + ".9";
  tg_device_props p{};
  tg_device* dev = OpenWithDriver((major - 1) * 1000 + 90, &p);
  ASSERT_NE(dev, nullptr);
  EXPECT_FALSE(OffersDialect(p, "cuda-c")) << "NVRTC " << nvrtc << ", driver CUDA " << older;
  EXPECT_TRUE(OffersDialect(p, "ptx"));
  std::string fp = p.compile_fingerprint;
  EXPECT_NE(fp.find("no NVRTC"), std::string::npos) << fp;
  EXPECT_NE(fp.find(nvrtc + " is newer than the driver's CUDA " + older), std::string::npos) << fp;
  tg_code code = TG_CODE_OK;
  std::string msg;
  EXPECT_EQ(Compile("cuda-c", kCudaAdd, "add", &code, &msg, dev), nullptr);
  EXPECT_EQ(code, TG_CODE_UNAVAILABLE) << msg;
  EXPECT_NE(msg.find(nvrtc), std::string::npos) << msg;
  EXPECT_NE(msg.find("CUDA " + older), std::string::npos) << msg;
}

// The same major version (an older minor driver included, by CUDA's minor version compatibility) or a
// newer driver: cuda-c is offered and compiled to a cubin for the device's sm_XX, never to PTX,
// which a driver of an older minor version than NVRTC would refuse to JIT.
TEST_F(CudaStubDriverTest, AnNvrtcOfTheDriversMajorVersionOrOlderCompilesACubin) {
  std::string nvrtc = NewestNvrtc();
  if (nvrtc.empty()) GTEST_SKIP() << "no NVRTC under /usr/local/cuda/lib64 to choose from";
  int major = std::stoi(nvrtc), minor = std::stoi(nvrtc.substr(nvrtc.find('.') + 1));
  // x.0 is older than NVRTC's minor version unless that is 0 too (this machine's NVRTC then cannot
  // show a newer minor than its driver; the rule is the same).
  for (int driver : {major * 1000 + minor * 10, major * 1000, (major + 1) * 1000}) {
    SCOPED_TRACE("driver " + std::to_string(driver) + ", NVRTC " + nvrtc);
    tg_device_props p{};
    tg_device* dev = OpenWithDriver(driver, &p);
    ASSERT_NE(dev, nullptr);
    ASSERT_GE(p.num_source_dialects, 1u);
    EXPECT_STREQ(p.source_dialects[0], "cuda-c");
    std::string fp = p.compile_fingerprint;
    EXPECT_NE(fp.find("|driver " + std::to_string(driver) + "|"), std::string::npos) << fp;
    EXPECT_EQ(fp.substr(fp.rfind(' ') + 1), nvrtc) << fp;
    CallLog();
    tg_program* prog = Compile("cuda-c", kCudaAdd, "add", nullptr, nullptr, dev);
    EXPECT_NE(prog, nullptr);
    EXPECT_NE(CallLog().find("cuModuleLoadDataEx cubin"), std::string::npos);
    api_->program_destroy(prog);
  }
}

}  // namespace
