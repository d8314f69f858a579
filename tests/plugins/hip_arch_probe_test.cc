// hip_arch_probe_test.cc: the HIP plugin asks hiprtc whether it can compile for an arch by compiling
// a test kernel in a child process, once per arch per process, because hiprtc may abort the whole
// process for an arch it predates (hiprtc 5.2 does for gfx942 and gfx1100). On the ROCm 6 stub
// layout: the stub runtime's device reports $STUB_HIP_ARCH, the stub hiprtc aborts for
// $STUB_HIPRTC_ABORT_ARCH, fails with a log for $STUB_HIPRTC_FAIL_ARCH and writes "<pid> <arch>" for every compile to $STUB_HIPRTC_COMPILE_LOG,
// which tells the probe's compiles (another pid) from the plugin's own (this pid).
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "gtest/gtest.h"
#include "plugins/abi/tg_plugin.h"
#include "plugins/hip/hip_compile_only.h"
#include "tests/plugins/plugin_test_util.h"
#include "tests/plugins/stub_driver_util.h"

namespace {

using tg::testing::ErrorChecker;
using tg::testing::StubDevice;
using tg::testing::StubLoaded;

constexpr char kDrivers[] = "tests/plugins/stub_drivers";
constexpr char kKernel[] = "extern \"C\" __global__ void k(float* x) { x[0] = 1.0f; }";

std::string CompileLogPath() {
  const char* tmp = std::getenv("TEST_TMPDIR");
  return std::string(tmp != nullptr ? tmp : "/tmp") + "/stub_hiprtc_compiles." + std::to_string(getpid());
}

// The stub hiprtc's compiles for |arch| so far: in another process (the probe) and in this one.
struct Compiles {
  int in_child = 0, in_process = 0;
};
Compiles CountCompiles(const std::string& arch) {
  Compiles c;
  std::ifstream log(CompileLogPath());
  long pid = 0;
  for (std::string a; log >> pid >> a;) {
    if (a == arch) ++(pid == long(getpid()) ? c.in_process : c.in_child);
  }
  return c;
}

class HipArchProbeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("STUB_HIPRTC_COMPILE_LOG", CompileLogPath().c_str(), 1);
    loaded_ = tg::testing::LoadWithDrivers(tg::testing::kHipPlugin, kDrivers);
    ASSERT_NE(loaded_.api, nullptr);
  }

  // Opens the stub's one device reporting |gcn_arch| ("gfx942:sramecc+:xnack-").
  void OpenAs(const char* gcn_arch, StubDevice* d) {
    setenv("STUB_HIP_ARCH", gcn_arch, 1);
    tg::testing::OpenTheOneDevice(loaded_, d);
  }

  // program_compile of kKernel on |device|; a program it makes is destroyed.
  tg_error* Compile(tg_device* device) {
    tg_compile_args a{};
    a.struct_size = sizeof a;
    a.device = device;
    a.dialect = "hip-c";
    a.source = kKernel;
    a.source_len = sizeof kKernel - 1;
    a.entry = "k";
    tg_program* program = nullptr;
    tg_error* e = loaded_.api->program_compile(&a, &program);
    if (program != nullptr) loaded_.api->program_destroy(program);
    return e;
  }

  // tg.compile_only's compile of kKernel for |arch|; the code object, or the error's message.
  std::string CompileOnly(const char* arch, tg_code* code) {
    auto* ext = reinterpret_cast<const tg_hip_compile_only_ext*>(
        tg::testing::FindExtension(loaded_.api, TG_HIP_COMPILE_ONLY_NAME));
    if (ext == nullptr) return ADD_FAILURE() << "no tg.compile_only", "";
    char* out = nullptr;
    uint64_t len = 0;
    tg_error* e = ext->compile(kKernel, sizeof kKernel - 1, arch, "hsaco", &out, &len);
    *code = loaded_.api->error_code(e);
    if (e != nullptr) return ErrorChecker(loaded_.api).Err(e, *code);
    std::string obj(out, len);
    ext->free_code(out);
    return obj;
  }

  StubLoaded loaded_;
};

// An arch hiprtc aborts on is refused with what happened, and this process lives on to say so.
TEST_F(HipArchProbeTest, AnArchHiprtcAbortsOnIsRefusedAndTheProcessSurvives) {
  setenv("STUB_HIPRTC_ABORT_ARCH", "gfx942", 1);
  StubDevice d;
  OpenAs("gfx942:sramecc+:xnack-", &d);
  ASSERT_NE(d.device, nullptr);
  EXPECT_STREQ(d.props.arch, "gfx942");
  EXPECT_EQ(d.props.num_source_dialects, 0u);  // nothing this plugin can compile for it
  std::string msg = ErrorChecker(loaded_.api).Err(Compile(d.device), TG_CODE_UNIMPLEMENTED);
  EXPECT_NE(msg.find("gfx942"), std::string::npos) << msg;
  EXPECT_NE(msg.find("aborted (signal 6"), std::string::npos) << msg;
  EXPECT_NE(msg.find("hiprtc 6.2 (libhiprtc.so.6)"), std::string::npos) << msg;
  // The arch's feature suffix is not part of what hiprtc was asked to compile for.
  EXPECT_EQ(msg.find("sramecc"), std::string::npos) << msg;

  tg_code code = TG_CODE_OK;
  msg = CompileOnly("gfx942", &code);
  EXPECT_EQ(code, TG_CODE_UNIMPLEMENTED);
  EXPECT_NE(msg.find("aborted"), std::string::npos) << msg;
}

// Any arch the probe compiled for compiles in this process, the old allow-list's or not.
TEST_F(HipArchProbeTest, AnArchTheProbeCompilesForCompiles) {
  setenv("STUB_HIPRTC_ABORT_ARCH", "gfx942", 1);
  StubDevice d;
  OpenAs("gfx1100", &d);
  ASSERT_NE(d.device, nullptr);
  EXPECT_STREQ(d.props.arch, "gfx1100");
  EXPECT_EQ(d.props.num_source_dialects, 1u);
  ErrorChecker(loaded_.api).Ok(Compile(d.device));

  tg_code code = TG_CODE_OK;
  std::string obj = CompileOnly("gfx1100", &code);
  ASSERT_EQ(code, TG_CODE_OK) << obj;
  EXPECT_NE(obj.find("code object for gfx1100"), std::string::npos) << obj;
}

// A clean compile failure of the test kernel refuses the arch too, with hiprtc's own words.
TEST_F(HipArchProbeTest, AnArchHiprtcFailsCleanlyForIsRefusedWithItsError) {
  setenv("STUB_HIPRTC_FAIL_ARCH", "gfx1201", 1);
  StubDevice d;
  OpenAs("gfx1201", &d);
  ASSERT_NE(d.device, nullptr);
  EXPECT_EQ(d.props.num_source_dialects, 0u);
  std::string msg = ErrorChecker(loaded_.api).Err(Compile(d.device), TG_CODE_UNIMPLEMENTED);
  EXPECT_NE(msg.find("gfx1201"), std::string::npos) << msg;
  EXPECT_NE(msg.find("error: stub hiprtc does not know gfx1201"), std::string::npos) << msg;
}

// The probe runs in another process, once per arch however often the arch is compiled for, and
// an arch it refused never reaches hiprtc in this process.
TEST_F(HipArchProbeTest, TheProbeRunsOncePerArchInAChildProcess) {
  setenv("STUB_HIPRTC_ABORT_ARCH", "gfx940", 1);
  tg_code code = TG_CODE_OK;
  for (int i = 0; i < 2; ++i) {
    StubDevice refused, accepted;
    OpenAs("gfx940", &refused);
    OpenAs("gfx1030", &accepted);
    ASSERT_NE(refused.device, nullptr);
    ASSERT_NE(accepted.device, nullptr);
    ErrorChecker(loaded_.api).Err(Compile(refused.device), TG_CODE_UNIMPLEMENTED);
    ErrorChecker(loaded_.api).Ok(Compile(accepted.device));
    CompileOnly("gfx940", &code);
    EXPECT_EQ(code, TG_CODE_UNIMPLEMENTED);
    CompileOnly("gfx1030", &code);
    EXPECT_EQ(code, TG_CODE_OK);
  }
  Compiles refused = CountCompiles("gfx940"), accepted = CountCompiles("gfx1030");
  EXPECT_EQ(refused.in_child, 1);
  EXPECT_EQ(refused.in_process, 0);
  EXPECT_EQ(accepted.in_child, 1);
  EXPECT_EQ(accepted.in_process, 4);  // two program_compile and two compile_only calls
}

}  // namespace
