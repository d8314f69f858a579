// cuda_stub_driver_test.cc: the CUDA plugin under what a real driver can do to it, on the stub driver
// (one device) and its test knobs (stub_cuda_driver.c): sticky kernel faults surface as ABORTED, and
// an application's own CUDA context is still current on its thread after every call.
#include <dlfcn.h>

#include <cstdint>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "plugins/abi/tg_plugin.h"
#include "tests/plugins/plugin_test_util.h"
#include "tests/plugins/stub_driver_util.h"

namespace {

using tg::testing::ErrorChecker;
using tg::testing::LoadWithDrivers;
using tg::testing::OpenTheOneDevice;
using tg::testing::StubDevice;
using tg::testing::StubLoaded;

constexpr char kDrivers[] = "tests/plugins/stub_drivers";

// A function the stub driver exports for tests (NULL, after a test failure, when the driver the
// plugin loaded is not the stub).
template <typename Fn>
Fn StubFunction(const char* name) {
  void* driver = dlopen("tests/plugins/stub_drivers/libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  void* fn = driver != nullptr ? dlsym(driver, name) : nullptr;
  EXPECT_NE(fn, nullptr) << name << ": the stub driver was not the one loaded";
  return reinterpret_cast<Fn>(fn);
}

// The plugin over the stub driver, loaded once for the process (plugins search for their driver
// once), and its one device opened for each test.
class CudaStubDriverTest : public ::testing::Test {
 protected:
  static const StubLoaded& Loaded() {
    static const StubLoaded l = LoadWithDrivers(tg::testing::kCudaPlugin, kDrivers);
    return l;
  }
  void SetUp() override {
    OpenTheOneDevice(Loaded(), &d_);
    ASSERT_NE(d_.device, nullptr);
    api_ = d_.api;
  }

  StubDevice d_;
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

}  // namespace
