// cpu_plugin_test.cc: the CPU plugin through its raw ABI table, as any host (or the CTS) sees it.
#include <dlfcn.h>

#include <cstdlib>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "plugins/abi/tg_plugin.h"
#include "tests/plugins/damaged_binaries.h"
#include "tests/plugins/plugin_test_util.h"
#include "tests/runtime/test_kernels.h"

namespace {

using tg::testing::kCPrelude;

class CpuPluginTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    // No TG_CACHE_DIR and (under bazel test) no HOME: the /tmp fallback must work.
    void* lib = dlopen("./plugins/cpu/libtg_cpu.so", RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(lib, nullptr) << dlerror();
    auto get = reinterpret_cast<tg_plugin_get_api_fn>(dlsym(lib, TG_PLUGIN_ENTRY_SYMBOL));
    ASSERT_NE(get, nullptr);
    EXPECT_EQ(get(TG_ABI_MAJOR + 1, 0), nullptr);  // another major: NULL, no crash
    api_ = get(TG_ABI_MAJOR, TG_ABI_MINOR);
    ASSERT_NE(api_, nullptr);
    ASSERT_EQ(api_->initialize(nullptr), nullptr);
    ASSERT_EQ(api_->device_open(0, &dev_), nullptr);
  }
  static void TearDownTestSuite() {
    api_->device_close(dev_);
    api_->shutdown();
  }

  // Fails the test with the plugin's message when |e| is an error; frees it.
  static void Ok(tg_error* e) {
    if (e == nullptr) return;
    ADD_FAILURE() << api_->error_message(e);
    api_->error_destroy(e);
  }
  // Expects an error with |code|; returns its message.
  static std::string Err(tg_error* e, tg_code code) {
    EXPECT_NE(e, nullptr);
    if (e == nullptr) return "";
    EXPECT_EQ(api_->error_code(e), code) << api_->error_message(e);
    std::string msg = api_->error_message(e);
    api_->error_destroy(e);
    return msg;
  }

  static tg_error* Compile(const std::string& src, const char* entry, tg_program** out) {
    tg_compile_args a{};
    a.struct_size = sizeof a;
    a.device = dev_;
    a.dialect = "c";
    a.source = src.data();
    a.source_len = src.size();
    a.entry = entry;
    return api_->program_compile(&a, out);
  }

  // Runs vadd over n floats in groups of 32 and checks every output element.
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
    tg_launch_args& la = launch.la;
    la.flags = TG_LAUNCH_PROFILE;
    tg_event* ev = nullptr;
    la.out_done = &ev;
    Ok(api_->launch(&la));
    ASSERT_NE(ev, nullptr);
    Ok(api_->event_wait(ev, UINT64_MAX));
    uint64_t start = 0, end = 0;
    Ok(api_->event_timing_ns(ev, &start, &end));
    EXPECT_GE(end, start);
    api_->event_destroy(ev);
    Ok(api_->stream_sync(dev_, nullptr));
    Ok(api_->copy_d2h(nullptr, out.data(), bo, 0, n * 4, nullptr));
    for (int i = 0; i < n; ++i) ASSERT_EQ(out[i], a[i] + b[i]) << "at " << i;
    api_->buffer_free(ba), api_->buffer_free(bb), api_->buffer_free(bo);
  }

  static const tg_plugin_api* api_;
  static tg_device* dev_;
};
const tg_plugin_api* CpuPluginTest::api_ = nullptr;
tg_device* CpuPluginTest::dev_ = nullptr;

TEST_F(CpuPluginTest, TableIsComplete) {
  EXPECT_EQ(api_->struct_size, sizeof(tg_plugin_api));
  EXPECT_STREQ(api_->plugin_name, "CPU");
  uint32_t n = 0;
  Ok(api_->device_count(&n));
  EXPECT_EQ(n, 1u);
  tg_device* none = nullptr;
  Err(api_->device_open(1, &none), TG_CODE_NOT_FOUND);
}

TEST_F(CpuPluginTest, PropsAreWrittenOnlyWithinTheHostsStructSize) {
  tg_device_props full{};
  full.struct_size = sizeof full;
  Ok(api_->device_props(dev_, &full));
  EXPECT_EQ(std::string(full.arch).rfind("x86_64-", 0), 0u);
  EXPECT_EQ(full.caps, TG_CAP_FP64 | TG_CAP_TIMING | TG_CAP_UNIFIED_MEMORY);
  // Both compiled dialects, in the order plugins/cpu/dialect_choice.h picks (its own test checks the
  // order), then the interpreted "tg-uops" (never first: the host renders the first by default).
  ASSERT_EQ(full.num_source_dialects, 3u);
  std::set<std::string> dialects{full.source_dialects[0], full.source_dialects[1]};
  EXPECT_EQ(dialects, (std::set<std::string>{"c", "llvm-ir"}));
  EXPECT_STREQ(full.source_dialects[2], "tg-uops");
  EXPECT_STREQ(full.binary_formats[0], "elf-so");

  // A host that knew only up to `arch`: nothing past it may change.
  unsigned char raw[sizeof(tg_device_props)];
  std::memset(raw, 0xAB, sizeof raw);
  auto* shortp = reinterpret_cast<tg_device_props*>(raw);
  shortp->struct_size = TG_SIZE_TO(tg_device_props, arch);
  Ok(api_->device_props(dev_, shortp));
  EXPECT_STREQ(shortp->arch, full.arch);
  for (size_t i = TG_SIZE_TO(tg_device_props, arch); i < sizeof raw; ++i) ASSERT_EQ(raw[i], 0xAB) << i;
}

TEST_F(CpuPluginTest, VectorAddThroughTheRawTable) {
  tg_program* prog = nullptr;
  Ok(Compile(std::string(kCPrelude) + tg::testing::kVectorAdd, "vadd", &prog));
  ASSERT_NE(prog, nullptr);
  RunVectorAdd(prog, 1000);
  RunVectorAdd(prog, 1);  // one group: runs inline on the caller
  api_->program_destroy(prog);
}

TEST_F(CpuPluginTest, BinaryRoundTripsThroughProgramLoad) {
  tg_program* prog = nullptr;
  Ok(Compile(std::string(kCPrelude) + tg::testing::kVectorAdd, "vadd", &prog));
  const char* format = nullptr;
  const void* bin = nullptr;
  uint64_t len = 0;
  Ok(api_->program_binary(prog, &format, &bin, &len));
  EXPECT_STREQ(format, "elf-so");
  ASSERT_GT(len, 64u);
  std::string copy(static_cast<const char*>(bin), len);
  api_->program_destroy(prog);

  tg_program* loaded = nullptr;
  Ok(api_->program_load(dev_, "elf-so", copy.data(), copy.size(), "vadd", &loaded));
  ASSERT_NE(loaded, nullptr);
  RunVectorAdd(loaded, 257);
  api_->program_destroy(loaded);

  tg_program* bad = nullptr;
  std::string garbage(4096, 'x');
  Err(api_->program_load(dev_, "elf-so", garbage.data(), garbage.size(), "vadd", &bad),
      TG_CODE_FAILED_PRECONDITION);
  Err(api_->program_load(dev_, "cubin", copy.data(), copy.size(), "vadd", &bad), TG_CODE_FAILED_PRECONDITION);
  Err(api_->program_load(dev_, "elf-so", copy.data(), copy.size(), "nope", &bad), TG_CODE_NOT_FOUND);
}

// Regression (CTS Programs.c.corrupt_binary): a truncated ELF handed to dlopen() died of SIGBUS.
// Every damaged copy must be refused before it reaches the disk cache or dlopen().
TEST_F(CpuPluginTest, DamagedBinariesAreRefusedNotLoaded) {
  tg_program* prog = nullptr;
  Ok(Compile(std::string(kCPrelude) + tg::testing::kVectorAdd, "vadd", &prog));
  ASSERT_NE(prog, nullptr);
  const char* format = nullptr;
  const void* bin = nullptr;
  uint64_t len = 0;
  Ok(api_->program_binary(prog, &format, &bin, &len));
  std::string good(static_cast<const char*>(bin), len);
  api_->program_destroy(prog);

  for (const tg::testing::DamagedBinary& d : tg::testing::DamagedBinaries(good)) {
    tg_program* bad = nullptr;
    std::string msg = Err(api_->program_load(dev_, "elf-so", d.bytes.data(), d.bytes.size(), "vadd", &bad),
                          TG_CODE_FAILED_PRECONDITION);
    EXPECT_EQ(bad, nullptr) << d.what;
    if (d.truncated) {
      EXPECT_NE(msg.find("truncated"), std::string::npos) << d.what << ": " << msg;
    }
  }
  // The bare shared object (a cache from before the envelope) is foreign: the host recompiles.
  tg_program* bad = nullptr;
  std::string msg = Err(api_->program_load(dev_, "elf-so", good.data() + 28, good.size() - 28, "vadd", &bad),
                        TG_CODE_FAILED_PRECONDITION);
  EXPECT_NE(msg.find("foreign"), std::string::npos) << msg;

  tg_program* loaded = nullptr;  // and the intact binary still loads and runs
  Ok(api_->program_load(dev_, "elf-so", good.data(), good.size(), "vadd", &loaded));
  ASSERT_NE(loaded, nullptr);
  RunVectorAdd(loaded, 100);
  api_->program_destroy(loaded);
}

TEST_F(CpuPluginTest, SyntaxErrorMessageHoldsTheCompilerLog) {
  tg_program* prog = nullptr;
  std::string msg = Err(Compile(std::string(kCPrelude) + tg::testing::kSyntaxError, "broken", &prog),
                        TG_CODE_INVALID_ARGUMENT);
  EXPECT_NE(msg.find("C compile failed"), std::string::npos) << msg;
  EXPECT_NE(msg.find("error:"), std::string::npos) << msg;  // gcc/clang diagnostic text
  EXPECT_EQ(prog, nullptr);
}

TEST_F(CpuPluginTest, KernelFailureSurfacesAtEventWaitAndStreamSync) {
  tg_program* prog = nullptr;
  Ok(Compile(std::string(kCPrelude) + tg::testing::kFailing, "fails", &prog));
  tg_launch_args la{};
  la.struct_size = sizeof la;
  la.program = prog;
  la.num_groups[0] = 8, la.num_groups[1] = la.num_groups[2] = 1;
  la.group_size[0] = la.group_size[1] = la.group_size[2] = 1;
  tg_event* ev = nullptr;
  la.out_done = &ev;
  Ok(api_->launch(&la));
  EXPECT_NE(Err(api_->event_wait(ev, UINT64_MAX), TG_CODE_INTERNAL).find("returned 7"), std::string::npos);
  api_->event_destroy(ev);
  Err(api_->stream_sync(dev_, nullptr), TG_CODE_INTERNAL);
  Ok(api_->stream_sync(dev_, nullptr));  // cleared once reported
  api_->program_destroy(prog);
}

TEST_F(CpuPluginTest, BadArgumentsAreErrorsNotCrashes) {
  tg_buffer* b = nullptr;
  Err(api_->buffer_alloc(dev_, 0, 0, &b), TG_CODE_INVALID_ARGUMENT);
  Err(api_->buffer_alloc(dev_, uint64_t{1} << 62, 0, &b), TG_CODE_RESOURCE_EXHAUSTED);
  Ok(api_->buffer_alloc(dev_, 16, 0, &b));
  char host[32] = {};
  Err(api_->copy_h2d(nullptr, b, 8, host, 16, nullptr), TG_CODE_INVALID_ARGUMENT);
  Err(api_->copy_d2h(nullptr, host, b, UINT64_MAX, 2, nullptr), TG_CODE_INVALID_ARGUMENT);
  Ok(api_->copy_d2d(nullptr, b, 0, b, 4, 12, nullptr));  // overlapping within one buffer
  api_->buffer_free(b);
  Err(api_->launch(nullptr), TG_CODE_INVALID_ARGUMENT);
  tg_program* p = nullptr;
  tg_compile_args a{};
  a.struct_size = sizeof a;
  a.device = dev_;
  a.dialect = "opencl-c";
  a.source = "x";
  a.source_len = 1;
  a.entry = "k";
  Err(api_->program_compile(&a, &p), TG_CODE_INVALID_ARGUMENT);
}

}  // namespace
