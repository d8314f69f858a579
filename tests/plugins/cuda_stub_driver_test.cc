// cuda_stub_driver_test.cc: the CUDA plugin under what a real driver can do to it, on the stub driver
// (one device) and its test knobs (stub_cuda_driver.c): sticky kernel faults surface as ABORTED.
#include <dlfcn.h>

#include <string>

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

}  // namespace
