// opencl_plugin_test.cc: the OpenCL plugin running real kernels on PoCL's CPU device, through the
// raw ABI table and through the runtime's loader. Skips (with the plugin's reason) without a device.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "plugins/abi/tg_plugin.h"
#include "runtime/device_registry.h"
#include "runtime/plugin_loader.h"
#include "tests/plugins/damaged_binaries.h"
#include "tests/plugins/plugin_test_util.h"

namespace {

constexpr char kPath[] = "./plugins/opencl/libtg_opencl.so";

// out[i] = a[i] + b[i]: group and local ids, as the ABI's calling convention promises.
constexpr char kVectorAdd[] = R"CL(
__kernel void vadd(__global float* out, __global const float* a, __global const float* b, int n) {
  int i = get_group_id(0) * get_local_size(0) + get_local_id(0);
  if (i < n) out[i] = a[i] + b[i];
}
)CL";

// i32 and i64 scalars: out[i] = a * 3 + b + i, with b past 32 bits.
constexpr char kScalars[] = R"CL(
__kernel void scal(__global long* out, int a, long b) {
  size_t i = get_global_id(0);
  out[i] = (long)a * 3 + b + (long)i;
}
)CL";

// 2-D grid: each work item writes (group id, local id) so the NDRange mapping can be checked.
constexpr char kIds[] = R"CL(
__kernel void ids(__global int* out) {
  int x = get_global_id(0), y = get_global_id(1), w = get_global_size(0);
  out[y * w + x] = get_group_id(0) * 1000000 + get_group_id(1) * 10000 + get_local_id(0) * 100 + get_local_id(1);
}
)CL";

constexpr char kSyntaxError[] = "__kernel void broken(__global int* out) { this is not OpenCL; }";

class OpenClPluginTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    api_ = tg::testing::LoadPluginApi(kPath);
    ASSERT_NE(api_, nullptr);
    ASSERT_EQ(api_->initialize(nullptr), nullptr);
    uint32_t n = 0;
    ASSERT_EQ(api_->device_count(&n), nullptr);
    if (n == 0) {
      reason_ = api_->unavailable_reason();
      return;
    }
    ASSERT_EQ(api_->device_open(0, &dev_), nullptr);
    props_.struct_size = sizeof props_;
    ASSERT_EQ(api_->device_props(dev_, &props_), nullptr);
  }
  static void TearDownTestSuite() {
    if (dev_ != nullptr) api_->device_close(dev_);
    if (api_ != nullptr) api_->shutdown();
  }
  void SetUp() override {
    if (dev_ == nullptr) GTEST_SKIP() << "no OpenCL device: " << reason_;
  }

  static void Ok(tg_error* e) { tg::testing::ErrorChecker(api_).Ok(e); }
  static std::string Err(tg_error* e, tg_code c) { return tg::testing::ErrorChecker(api_).Err(e, c); }

  static tg_program* Compile(const char* src, const char* entry) {
    tg_compile_args a{};
    a.struct_size = sizeof a;
    a.device = dev_;
    a.dialect = "opencl-c";
    a.source = src;
    a.source_len = std::strlen(src);
    a.entry = entry;
    tg_program* p = nullptr;
    Ok(api_->program_compile(&a, &p));
    return p;
  }
  static tg_buffer* Upload(const void* data, uint64_t bytes) {
    tg_buffer* b = nullptr;
    Ok(api_->buffer_alloc(dev_, bytes, 0, &b));
    if (b != nullptr && data != nullptr) Ok(api_->copy_h2d(nullptr, b, 0, data, bytes, nullptr));
    return b;
  }
  static tg_arg Buf(tg_buffer* b, uint64_t offset = 0) {
    tg_arg a{};
    a.kind = TG_ARG_BUFFER, a.buffer = b, a.offset = offset;
    return a;
  }
  static tg_arg Scalar(uint32_t kind, int64_t v) {
    tg_arg a{};
    a.kind = kind, a.value = v;
    return a;
  }
  // Launches |p| on a 1-D grid and waits; returns the event's device time in ns.
  static uint64_t Run(tg_program* p, std::vector<tg_arg> args, uint32_t groups, uint32_t group_size) {
    tg_launch_args la{};
    la.struct_size = sizeof la;
    la.program = p;
    la.num_groups[0] = groups, la.num_groups[1] = la.num_groups[2] = 1;
    la.group_size[0] = group_size, la.group_size[1] = la.group_size[2] = 1;
    la.args = args.data();
    la.num_args = uint32_t(args.size());
    la.flags = TG_LAUNCH_PROFILE;
    tg_event* ev = nullptr;
    la.out_done = &ev;
    Ok(api_->launch(&la));
    if (ev == nullptr) return 0;
    Ok(api_->event_wait(ev, UINT64_MAX));
    uint64_t start = 0, end = 0;
    Ok(api_->event_timing_ns(ev, &start, &end));
    api_->event_destroy(ev);
    return end - start;
  }
  // out = a + b over n floats, each buffer read from |offset_elems| on; checks every element.
  static void VectorAdd(tg_program* p, int n, int offset_elems) {
    std::vector<float> a(n + offset_elems), b(n + offset_elems), out(n, -1.f);
    for (int i = 0; i < n + offset_elems; ++i) a[i] = float(i), b[i] = float(3 * i + 1);
    tg_buffer* ba = Upload(a.data(), a.size() * 4);
    tg_buffer* bb = Upload(b.data(), b.size() * 4);
    tg_buffer* bo = Upload(nullptr, uint64_t(n + offset_elems) * 4);
    uint64_t off = uint64_t(offset_elems) * 4;
    uint64_t ns = Run(p, {Buf(bo, off), Buf(ba, off), Buf(bb, off), Scalar(TG_ARG_I32, n)}, (n + 63) / 64, 64);
    EXPECT_GT(ns, 0u) << "event timing";
    Ok(api_->copy_d2h(nullptr, out.data(), bo, off, uint64_t(n) * 4, nullptr));
    for (int i = 0; i < n; ++i) ASSERT_EQ(out[i], a[i + offset_elems] + b[i + offset_elems]) << "at " << i;
    api_->buffer_free(ba), api_->buffer_free(bb), api_->buffer_free(bo);
  }

  static const tg_plugin_api* api_;
  static tg_device* dev_;
  static tg_device_props props_;
  static std::string reason_;
};
const tg_plugin_api* OpenClPluginTest::api_ = nullptr;
tg_device* OpenClPluginTest::dev_ = nullptr;
tg_device_props OpenClPluginTest::props_{};
std::string OpenClPluginTest::reason_;

TEST_F(OpenClPluginTest, PropsDescribeTheDevice) {
  EXPECT_STREQ(api_->plugin_name, "OPENCL");
  EXPECT_EQ(api_->unavailable_reason(), nullptr);
  EXPECT_NE(std::string(props_.name), "");
  EXPECT_NE(std::string(props_.compile_fingerprint).find(props_.name), std::string::npos);
  EXPECT_GT(props_.global_mem_bytes, 0u);
  EXPECT_GE(props_.min_offset_align, 1u);
  EXPECT_GT(props_.max_group_threads, 1u);
  EXPECT_GT(props_.compute_units, 0u);
  EXPECT_TRUE(props_.caps & TG_CAP_TIMING);
  ASSERT_EQ(props_.num_source_dialects, 1u);
  EXPECT_STREQ(props_.source_dialects[0], "opencl-c");
  EXPECT_STREQ(props_.binary_formats[0], "opencl-binary");
  tg_device* none = nullptr;
  uint32_t n = 0;
  Ok(api_->device_count(&n));
  Err(api_->device_open(n, &none), TG_CODE_NOT_FOUND);
}

// Two processes building the same program in one PoCL cache directory can leave a binary that aborts
// PoCL when loaded (plugins/kit/process_dir.h), so each process has a directory of its own.
TEST_F(OpenClPluginTest, PoclCachesInADirectoryOfThisProcessAlone) {
  const char* dir = getenv("POCL_CACHE_DIR");
  ASSERT_NE(dir, nullptr) << "the plugin sets POCL_CACHE_DIR when the user has not";
  std::string d = dir, mine = "/pocl/" + std::to_string(getpid()) + "-";
  EXPECT_NE(d.find(mine), std::string::npos) << d;
  struct stat st;
  EXPECT_EQ(stat(dir, &st), 0) << d << " must exist before PoCL loads, or PoCL ignores it";
}

TEST_F(OpenClPluginTest, VectorAddOverSeveralWorkgroups) {
  tg_program* p = Compile(kVectorAdd, "vadd");
  ASSERT_NE(p, nullptr);
  VectorAdd(p, 1000, 0);  // 16 groups of 64, the last one partly idle
  VectorAdd(p, 64, 0);
  api_->program_destroy(p);
}

TEST_F(OpenClPluginTest, BufferOffsetsAtTheReportedAlignment) {
  tg_program* p = Compile(kVectorAdd, "vadd");
  ASSERT_NE(p, nullptr);
  ASSERT_EQ(props_.min_offset_align % 4, 0u);
  VectorAdd(p, 300, int(props_.min_offset_align / 4));
  VectorAdd(p, 300, int(3 * props_.min_offset_align / 4));
  if (props_.min_offset_align > 4) {  // a misaligned offset is refused, not silently wrong
    tg_buffer* b = Upload(nullptr, 4096);
    tg_arg args[4] = {Buf(b, 4), Buf(b), Buf(b), Scalar(TG_ARG_I32, 1)};
    tg_launch_args la{};
    la.struct_size = sizeof la;
    la.program = p;
    la.num_groups[0] = la.num_groups[1] = la.num_groups[2] = 1;
    la.group_size[0] = la.group_size[1] = la.group_size[2] = 1;
    la.args = args;
    la.num_args = 4;
    EXPECT_NE(Err(api_->launch(&la), TG_CODE_INVALID_ARGUMENT).find("min_offset_align"), std::string::npos);
    api_->buffer_free(b);
  }
  api_->program_destroy(p);
}

TEST_F(OpenClPluginTest, I32AndI64Scalars) {
  tg_program* p = Compile(kScalars, "scal");
  ASSERT_NE(p, nullptr);
  const int n = 96;
  tg_buffer* out = Upload(nullptr, n * 8);
  const int64_t big = (int64_t{5} << 40) + 7;
  Run(p, {Buf(out), Scalar(TG_ARG_I32, -123), Scalar(TG_ARG_I64, big)}, 3, 32);
  std::vector<int64_t> host(n);
  Ok(api_->copy_d2h(nullptr, host.data(), out, 0, n * 8, nullptr));
  for (int i = 0; i < n; ++i) ASSERT_EQ(host[i], -369 + big + i) << i;
  api_->buffer_free(out);
  api_->program_destroy(p);
}

TEST_F(OpenClPluginTest, TwoDimensionalGridIsGroupsTimesGroupSize) {
  tg_program* p = Compile(kIds, "ids");
  ASSERT_NE(p, nullptr);
  const uint32_t gx = 3, gy = 2, lx = 4, ly = 2, w = gx * lx, h = gy * ly;
  tg_buffer* out = Upload(nullptr, w * h * 4);
  tg_arg arg = Buf(out);
  tg_launch_args la{};
  la.struct_size = sizeof la;
  la.program = p;
  la.num_groups[0] = gx, la.num_groups[1] = gy, la.num_groups[2] = 1;
  la.group_size[0] = lx, la.group_size[1] = ly, la.group_size[2] = 1;
  la.args = &arg;
  la.num_args = 1;
  Ok(api_->launch(&la));
  Ok(api_->stream_sync(dev_, nullptr));
  std::vector<int32_t> host(w * h);
  Ok(api_->copy_d2h(nullptr, host.data(), out, 0, w * h * 4, nullptr));
  for (uint32_t y = 0; y < h; ++y) {
    for (uint32_t x = 0; x < w; ++x) {
      int32_t want = (x / lx) * 1000000 + (y / ly) * 10000 + (x % lx) * 100 + (y % ly);
      ASSERT_EQ(host[y * w + x], want) << x << "," << y;
    }
  }
  api_->buffer_free(out);
  api_->program_destroy(p);
}

TEST_F(OpenClPluginTest, SyntaxErrorReturnsTheBuildLog) {
  tg_compile_args a{};
  a.struct_size = sizeof a;
  a.device = dev_;
  a.dialect = "opencl-c";
  a.source = kSyntaxError;
  a.source_len = std::strlen(kSyntaxError);
  a.entry = "broken";
  tg_program* p = nullptr;
  std::string msg = Err(api_->program_compile(&a, &p), TG_CODE_INVALID_ARGUMENT);
  EXPECT_NE(msg.find("CL_BUILD_PROGRAM_FAILURE"), std::string::npos) << msg;
  EXPECT_NE(msg.find("build log:"), std::string::npos) << msg;
  EXPECT_NE(msg.find("error"), msg.rfind("build log:")) << msg;  // the compiler's own text follows
  EXPECT_EQ(p, nullptr);
  a.dialect = "c";
  Err(api_->program_compile(&a, &p), TG_CODE_INVALID_ARGUMENT);
  a.dialect = "opencl-c", a.source = kVectorAdd, a.source_len = std::strlen(kVectorAdd), a.entry = "nope";
  Err(api_->program_compile(&a, &p), TG_CODE_NOT_FOUND);
}

TEST_F(OpenClPluginTest, BinaryRoundTripAndForeignBinaries) {
  tg_program* p = Compile(kVectorAdd, "vadd");
  ASSERT_NE(p, nullptr);
  const char* format = nullptr;
  const void* bin = nullptr;
  uint64_t len = 0;
  Ok(api_->program_binary(p, &format, &bin, &len));
  EXPECT_STREQ(format, "opencl-binary");
  ASSERT_GT(len, 16u);
  std::string copy(static_cast<const char*>(bin), len);
  api_->program_destroy(p);

  tg_program* loaded = nullptr;
  Ok(api_->program_load(dev_, "opencl-binary", copy.data(), copy.size(), "vadd", &loaded));
  ASSERT_NE(loaded, nullptr);
  VectorAdd(loaded, 257, 0);
  api_->program_destroy(loaded);

  tg_program* bad = nullptr;
  std::string garbage(4096, 'x');
  Err(api_->program_load(dev_, "opencl-binary", garbage.data(), garbage.size(), "vadd", &bad),
      TG_CODE_FAILED_PRECONDITION);
  Err(api_->program_load(dev_, "opencl-binary", copy.data(), 20, "vadd", &bad), TG_CODE_FAILED_PRECONDITION);
  std::string other_driver = copy;
  other_driver[32] ^= 1;  // a different fingerprint (it follows the 32-byte envelope header): another driver
  Err(api_->program_load(dev_, "opencl-binary", other_driver.data(), other_driver.size(), "vadd", &bad),
      TG_CODE_FAILED_PRECONDITION);
  Err(api_->program_load(dev_, "cubin", copy.data(), copy.size(), "vadd", &bad), TG_CODE_FAILED_PRECONDITION);
  EXPECT_EQ(bad, nullptr);
}

// Regression (CTS Programs.opencl-c.corrupt_binary): PoCL died of SIGSEGV on a truncated binary.
// Every damaged copy must be refused before clCreateProgramWithBinary sees it.
TEST_F(OpenClPluginTest, DamagedBinariesAreRefusedNotLoaded) {
  tg_program* p = Compile(kVectorAdd, "vadd");
  ASSERT_NE(p, nullptr);
  const char* format = nullptr;
  const void* bin = nullptr;
  uint64_t len = 0;
  Ok(api_->program_binary(p, &format, &bin, &len));
  std::string good(static_cast<const char*>(bin), len);
  api_->program_destroy(p);

  for (const tg::testing::DamagedBinary& d : tg::testing::DamagedBinaries(good)) {
    tg_program* bad = nullptr;
    std::string msg = Err(api_->program_load(dev_, "opencl-binary", d.bytes.data(), d.bytes.size(), "vadd", &bad),
                          TG_CODE_FAILED_PRECONDITION);
    EXPECT_EQ(bad, nullptr) << d.what;
    if (d.truncated) {
      EXPECT_NE(msg.find("truncated"), std::string::npos) << d.what << ": " << msg;
    }
  }
  tg_program* loaded = nullptr;  // the intact binary still loads and runs
  Ok(api_->program_load(dev_, "opencl-binary", good.data(), good.size(), "vadd", &loaded));
  ASSERT_NE(loaded, nullptr);
  VectorAdd(loaded, 100, 0);
  api_->program_destroy(loaded);
}

TEST_F(OpenClPluginTest, CopiesAsyncAndDeviceToDevice) {
  std::vector<int32_t> src(256), back(256, 0);
  for (int i = 0; i < 256; ++i) src[i] = i * 7;
  tg_buffer *a = Upload(nullptr, 1024), *b = Upload(nullptr, 1024);
  tg_event* ev = nullptr;
  Ok(api_->copy_h2d(nullptr, a, 0, src.data(), 1024, &ev));
  ASSERT_NE(ev, nullptr);
  Ok(api_->event_wait(ev, 1000000000ull));
  uint32_t done = 0;
  Ok(api_->event_query(ev, &done));
  EXPECT_EQ(done, 1u);
  api_->event_destroy(ev);
  Ok(api_->copy_d2d(nullptr, b, 0, a, 0, 1024, nullptr));
  Ok(api_->copy_d2d(nullptr, b, 4, b, 0, 512, nullptr));  // overlapping, within one buffer
  Ok(api_->copy_d2h(nullptr, back.data(), b, 0, 1024, nullptr));
  EXPECT_EQ(back[0], 0);
  for (int i = 1; i <= 128; ++i) ASSERT_EQ(back[i], src[i - 1]) << i;
  for (int i = 129; i < 256; ++i) ASSERT_EQ(back[i], src[i]) << i;
  char host[8];
  Err(api_->copy_d2h(nullptr, host, a, 1020, 8, nullptr), TG_CODE_INVALID_ARGUMENT);
  tg_buffer* none = nullptr;
  Err(api_->buffer_alloc(dev_, 0, 0, &none), TG_CODE_INVALID_ARGUMENT);
  Err(api_->buffer_alloc(dev_, uint64_t{1} << 62, 0, &none), TG_CODE_RESOURCE_EXHAUSTED);
  api_->buffer_free(a), api_->buffer_free(b);
}

// The runtime's loader accepts the plugin and the registry names its device OPENCL.
TEST_F(OpenClPluginTest, RuntimeLoaderFindsTheDevice) {
  tg::runtime::PluginReport report;
  absl::StatusOr<tg::runtime::LoadedPlugin> loaded = tg::runtime::LoadPlugin(kPath, &report);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_GE(loaded->device_count, 1u);
  tg::runtime::DeviceRegistry reg({kPath});
  absl::StatusOr<tg::runtime::Device*> d = reg.GetDevice("opencl");
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ((*d)->name(), "OPENCL");
}

}  // namespace
