// The CPU plugin's llvm-ir programs as object code (binary format "llvm-obj") through the raw ABI:
// program_binary gives the object, program_load links it; damaged copies and objects generated for
// another CPU are refused (FAILED_PRECONDITION: the host recompiles), never handed to LLVM.
#include <dlfcn.h>

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "plugins/abi/tg_plugin.h"
#include "plugins/cpu/binary_envelope.h"
#include "tests/plugins/damaged_binaries.h"
#include "tests/plugins/plugin_test_util.h"
#include "tests/runtime/test_kernels.h"

namespace {

class CpuLlvmObjectTest : public tg::testing::CpuDeviceSuite {
 protected:
  static void Ok(tg_error* e) { tg::testing::ErrorChecker(api_).Ok(e); }
  static std::string Err(tg_error* e, tg_code code) { return tg::testing::ErrorChecker(api_).Err(e, code); }
  // The sealed object of a freshly compiled llvm-ir vadd, and its format.
  static std::string CompiledBinary(std::string* format) {
    std::string src = tg::testing::kLlvmVectorAdd;
    tg_compile_args a{};
    a.struct_size = sizeof a;
    a.device = dev_;
    a.dialect = "llvm-ir";
    a.source = src.data();
    a.source_len = src.size();
    a.entry = "vadd";
    tg_program* prog = nullptr;
    Ok(api_->program_compile(&a, &prog));
    if (prog == nullptr) return "";
    const char* f = nullptr;
    const void* bin = nullptr;
    uint64_t len = 0;
    Ok(api_->program_binary(prog, &f, &bin, &len));
    std::string out(static_cast<const char*>(bin), len);
    *format = f;
    RunVectorAdd(prog, 100);
    api_->program_destroy(prog);
    return out;
  }
  static void RunVectorAdd(tg_program* prog, int n) {
    std::vector<float> a(n), b(n), out(n, 0.f);
    for (int i = 0; i < n; ++i) a[i] = float(i), b[i] = float(2 * i + 1);
    tg_buffer *ba, *bb, *bo;
    Ok(api_->buffer_alloc(dev_, n * 4, 0, &ba));
    Ok(api_->buffer_alloc(dev_, n * 4, 0, &bb));
    Ok(api_->buffer_alloc(dev_, n * 4, 0, &bo));
    Ok(api_->copy_h2d(nullptr, ba, 0, a.data(), n * 4, nullptr));
    Ok(api_->copy_h2d(nullptr, bb, 0, b.data(), n * 4, nullptr));
    tg::testing::ThreeBufferLaunch launch(prog, bo, ba, bb, n);
    Ok(api_->launch(&launch.la));
    Ok(api_->stream_sync(dev_, nullptr));
    Ok(api_->copy_d2h(nullptr, out.data(), bo, 0, n * 4, nullptr));
    for (int i = 0; i < n; ++i) ASSERT_EQ(out[i], a[i] + b[i]) << "at " << i;
    api_->buffer_free(ba), api_->buffer_free(bb), api_->buffer_free(bo);
  }
};

TEST_F(CpuLlvmObjectTest, TheDeviceDeclaresTheFormat) {
  tg_device_props p{};
  p.struct_size = sizeof p;
  Ok(api_->device_props(dev_, &p));
  ASSERT_EQ(p.num_binary_formats, 2u);
  EXPECT_STREQ(p.binary_formats[1], "llvm-obj");
}

TEST_F(CpuLlvmObjectTest, ObjectRoundTripsThroughProgramLoad) {
  std::string format;
  std::string binary = CompiledBinary(&format);
  EXPECT_EQ(format, "llvm-obj");
  tg_program* first = nullptr;
  tg_program* second = nullptr;  // the same object twice: one linked copy, two programs
  Ok(api_->program_load(dev_, "llvm-obj", binary.data(), binary.size(), "vadd", &first));
  Ok(api_->program_load(dev_, "llvm-obj", binary.data(), binary.size(), "vadd", &second));
  ASSERT_NE(first, nullptr);
  ASSERT_NE(second, nullptr);
  RunVectorAdd(first, 257);
  api_->program_destroy(first);
  RunVectorAdd(second, 33);  // still linked while one program holds it
  api_->program_destroy(second);
  tg_program* bad = nullptr;
  Err(api_->program_load(dev_, "llvm-obj", binary.data(), binary.size(), "other", &bad), TG_CODE_NOT_FOUND);
  EXPECT_EQ(bad, nullptr);
}

TEST_F(CpuLlvmObjectTest, DamagedObjectsAreRefusedNotLinked) {
  std::string format;
  std::string good = CompiledBinary(&format);
  for (const tg::testing::DamagedBinary& d : tg::testing::DamagedBinaries(good)) {
    tg_program* bad = nullptr;
    std::string msg = Err(api_->program_load(dev_, "llvm-obj", d.bytes.data(), d.bytes.size(), "vadd", &bad),
                          TG_CODE_FAILED_PRECONDITION);
    EXPECT_EQ(bad, nullptr) << d.what;
    if (d.truncated) {
      EXPECT_NE(msg.find("truncated"), std::string::npos) << d.what << ": " << msg;
    }
  }
}

TEST_F(CpuLlvmObjectTest, AnObjectForAnotherCpuIsRefused) {
  std::string format;
  std::string good = CompiledBinary(&format);
  std::string_view payload;
  std::string why;
  ASSERT_TRUE(tg_cpu::UnsealBinary(good, &payload, &why)) << why;
  // The payload starts with the target the object was generated for; another CPU's, resealed intact.
  std::string foreign = tg_cpu::SealBinary("x86_64-unknown-linux-gnu i386 +sse2" + std::string(payload.substr(payload.find('\0'))));
  tg_program* bad = nullptr;
  std::string msg = Err(api_->program_load(dev_, "llvm-obj", foreign.data(), foreign.size(), "vadd", &bad),
                        TG_CODE_FAILED_PRECONDITION);
  EXPECT_NE(msg.find("generated for"), std::string::npos) << msg;
  EXPECT_EQ(bad, nullptr);
}

}  // namespace
