// hip_sticky_fault_test.cc: a fault after which the HIP runtime fails every later call on the device
// (an illegal address, a launch that timed out or failed, a kernel's assert) is TG_CODE_ABORTED, the
// ABI's "the device faulted; reopen it", so the host does not retry on a dead device. On the ROCm 6
// stub layout, whose hipStreamSynchronize and hipEventSynchronize return $STUB_HIP_SYNC_ERROR as the
// real ones return a faulted kernel's error.
#include <cstdlib>
#include <ostream>
#include <string>

#include "gtest/gtest.h"
#include "plugins/abi/tg_plugin.h"
#include "tests/plugins/plugin_test_util.h"
#include "tests/plugins/stub_driver_util.h"

namespace {

using tg::testing::ErrorChecker;
using tg::testing::StubDevice;

constexpr char kDrivers[] = "tests/plugins/stub_drivers";

struct Fault {
  int error;         // the hipError_t the runtime returns
  const char* name;  // its name, which the message carries
  tg_code code;      // what the plugin makes of it
};

void PrintTo(const Fault& f, std::ostream* os) { *os << f.name << " (" << f.error << ")"; }
std::string FaultName(const ::testing::TestParamInfo<Fault>& info) { return info.param.name; }

class HipStickyFaultTest : public ::testing::TestWithParam<Fault> {
 protected:
  void SetUp() override {
    tg::testing::OpenTheOneDevice(tg::testing::LoadWithDrivers(tg::testing::kHipPlugin, kDrivers), &d_);
    ASSERT_NE(d_.device, nullptr);
    setenv("STUB_HIP_SYNC_ERROR", std::to_string(GetParam().error).c_str(), 1);
  }
  void TearDown() override { unsetenv("STUB_HIP_SYNC_ERROR"); }

  // |e| has the parameter's code and names its error.
  void ExpectFault(tg_error* e) {
    std::string msg = ErrorChecker(d_.api).Err(e, GetParam().code);
    EXPECT_NE(msg.find(GetParam().name), std::string::npos) << msg;
  }

  StubDevice d_;
};

TEST_P(HipStickyFaultTest, StreamSyncReportsIt) { ExpectFault(d_.api->stream_sync(d_.device, nullptr)); }

TEST_P(HipStickyFaultTest, EventWaitReportsIt) {
  tg_buffer* b = nullptr;
  ErrorChecker(d_.api).Ok(d_.api->buffer_alloc(d_.device, 64, 0, &b));
  ASSERT_NE(b, nullptr);
  char bytes[64] = {};
  tg_event* done = nullptr;
  ErrorChecker(d_.api).Ok(d_.api->copy_h2d(nullptr, b, 0, bytes, sizeof bytes, &done));
  ASSERT_NE(done, nullptr);
  ExpectFault(d_.api->event_wait(done, UINT64_MAX));
  d_.api->event_destroy(done);
  d_.api->buffer_free(b);
}

// The numbers are hip_runtime_api.h's. HIP has no 715 to 718 (CUDA's illegal instruction,
// misaligned address, invalid address space, invalid PC).
INSTANTIATE_TEST_SUITE_P(
    Sticky, HipStickyFaultTest,
    ::testing::Values(Fault{700, "hipErrorIllegalAddress", TG_CODE_ABORTED},
                      Fault{702, "hipErrorLaunchTimeOut", TG_CODE_ABORTED},
                      Fault{710, "hipErrorAssert", TG_CODE_ABORTED},
                      Fault{719, "hipErrorLaunchFailure", TG_CODE_ABORTED}),
    FaultName);

// Errors that leave the device usable keep their own codes.
INSTANTIATE_TEST_SUITE_P(NotSticky, HipStickyFaultTest,
                         ::testing::Values(Fault{1, "hipErrorInvalidValue", TG_CODE_INVALID_ARGUMENT},
                                           Fault{2, "hipErrorOutOfMemory", TG_CODE_RESOURCE_EXHAUSTED}),
                         FaultName);

}  // namespace
