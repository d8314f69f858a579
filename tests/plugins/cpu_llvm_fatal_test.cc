// The CPU plugin's in-process LLVM compile: IR that parses and verifies but that LLVM's code generator
// cannot lower (an intrinsic of another target: "Cannot select") is a tg_error from program_compile,
// not an exit of the process, and the JIT keeps compiling and running kernels after it.
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "plugins/abi/tg_plugin.h"
#include "tests/plugins/plugin_test_util.h"

namespace tg {
namespace {

using ::testing::HasSubstr;

// Valid IR for any target; only AArch64 can select the intrinsic, so x86 code generation fails inside
// SelectionDAG with report_fatal_error, which exits the process unless the plugin guards it.
constexpr char kUnselectable[] = R"(
declare i32 @llvm.aarch64.crc32b(i32, i32)
define i32 @bad(ptr %dispatch, ptr %workgroup) {
  %v = call i32 @llvm.aarch64.crc32b(i32 1, i32 2)
  ret i32 %v
}
)";

// A kernel that returns |rc| (nonzero is an error the launch reports): proves that it ran.
std::string Returning(int rc) {
  return "define i32 @ret(ptr %dispatch, ptr %workgroup) {\n  ret i32 " + std::to_string(rc) + "\n}\n";
}

class CpuLlvmFatalTest : public ::testing::Test {
 protected:
  void SetUp() override {
    api_ = testing::LoadPluginApi("./plugins/cpu/libtg_cpu.so");
    ASSERT_NE(api_, nullptr);
    ASSERT_EQ(api_->initialize(nullptr), nullptr);
    ASSERT_EQ(api_->device_open(0, &dev_), nullptr);
  }
  void TearDown() override {
    if (dev_ != nullptr) api_->device_close(dev_);
  }
  tg_error* Compile(const std::string& ir, const char* entry, tg_program** out) {
    tg_compile_args a{};
    a.struct_size = sizeof a;
    a.device = dev_;
    a.dialect = "llvm-ir";
    a.source = ir.data();
    a.source_len = ir.size();
    a.entry = entry;
    return api_->program_compile(&a, out);
  }
  tg_error* LaunchOneGroup(tg_program* program) {
    tg_launch_args la{};
    la.struct_size = sizeof la;
    la.program = program;
    la.num_groups[0] = la.num_groups[1] = la.num_groups[2] = 1;
    la.group_size[0] = la.group_size[1] = la.group_size[2] = 1;
    if (tg_error* e = api_->launch(&la)) return e;
    return api_->stream_sync(dev_, nullptr);
  }
  const tg_plugin_api* api_ = nullptr;
  tg_device* dev_ = nullptr;
};

TEST_F(CpuLlvmFatalTest, CodeGeneratorFatalErrorIsAnErrorAndTheJitStillWorks) {
  testing::ErrorChecker check(api_);
  tg_program* bad = nullptr;
  std::string msg = check.Err(Compile(kUnselectable, "bad", &bad), TG_CODE_INTERNAL);
  if (msg.find("cannot load LLVM") != std::string::npos) GTEST_SKIP() << msg;
  EXPECT_THAT(msg, HasSubstr("Cannot select"));
  EXPECT_THAT(msg, HasSubstr("llvm-ir code generation"));
  EXPECT_EQ(bad, nullptr);

  for (int rc : {0, 7}) {  // twice more after the failure, and each kernel really runs
    tg_program* program = nullptr;
    check.Ok(Compile(Returning(rc), "ret", &program));
    ASSERT_NE(program, nullptr);
    tg_error* e = LaunchOneGroup(program);
    if (rc == 0) {
      check.Ok(e);
    } else {
      ASSERT_NE(e, nullptr);
      EXPECT_THAT(api_->error_message(e), HasSubstr("returned 7"));
      api_->error_destroy(e);
    }
    api_->program_destroy(program);
  }
  check.Err(Compile(kUnselectable, "bad", &bad), TG_CODE_INTERNAL);  // a second fatal error is caught too
}

}  // namespace
}  // namespace tg
