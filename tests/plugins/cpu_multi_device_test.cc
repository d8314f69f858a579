// cpu_multi_device_test.cc: TG_CPU_DEVICES=2 (set by the BUILD target) makes the CPU plugin present two
// devices, each with its own slice of the cores; kernels run and bytes move between them.
#include <dlfcn.h>

#include <algorithm>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "plugins/abi/tg_plugin.h"
#include "tests/plugins/plugin_test_util.h"
#include "tests/runtime/test_kernels.h"

namespace {

const tg_plugin_api* Api() {
  static const tg_plugin_api* api = [] {
    void* lib = dlopen("./plugins/cpu/libtg_cpu.so", RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) return static_cast<const tg_plugin_api*>(nullptr);
    auto get = reinterpret_cast<tg_plugin_get_api_fn>(dlsym(lib, TG_PLUGIN_ENTRY_SYMBOL));
    const tg_plugin_api* a = get(TG_ABI_MAJOR, TG_ABI_MINOR);
    if (a != nullptr) a->initialize(nullptr);
    return a;
  }();
  return api;
}

void Ok(tg_error* e) {
  if (e == nullptr) return;
  ADD_FAILURE() << Api()->error_message(e);
  Api()->error_destroy(e);
}

tg_device* Open(uint32_t ordinal) {
  tg_device* d = nullptr;
  Ok(Api()->device_open(ordinal, &d));
  return d;
}

TEST(CpuMultiDevice, PresentsTwoDevicesThatSplitTheCores) {
  ASSERT_NE(Api(), nullptr);
  uint32_t n = 0;
  Ok(Api()->device_count(&n));
  ASSERT_EQ(n, 2u);
  tg_device* none = nullptr;
  tg_error* e = Api()->device_open(2, &none);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(Api()->error_code(e), TG_CODE_NOT_FOUND);
  EXPECT_NE(std::string(Api()->error_message(e)).find("TG_CPU_DEVICES"), std::string::npos);
  Api()->error_destroy(e);

  uint32_t cores = std::max(1u, std::thread::hardware_concurrency()), total = 0;
  for (uint32_t i = 0; i < 2; ++i) {
    tg_device* d = Open(i);
    tg_device_props p{};
    p.struct_size = sizeof p;
    Ok(Api()->device_props(d, &p));
    EXPECT_GE(p.compute_units, 1u);
    total += p.compute_units;
    EXPECT_NE(std::string(p.name).find("slice " + std::to_string(i) + " of 2"), std::string::npos) << p.name;
    Api()->device_close(d);
  }
  EXPECT_EQ(total, std::max(cores, 2u));  // one core each at least; otherwise the cores are shared out
}

// A kernel compiled for device 1 runs on device 1's pool; copy_d2d moves its result to device 0.
TEST(CpuMultiDevice, KernelsRunOnEachDeviceAndCopyBetweenThem) {
  ASSERT_NE(Api(), nullptr);
  tg_device* d0 = Open(0);
  tg_device* d1 = Open(1);
  std::string src = std::string(tg::testing::kCPrelude) + tg::testing::kVectorAdd;
  tg_compile_args a{};
  a.struct_size = sizeof a;
  a.device = d1;
  a.dialect = "c";
  a.source = src.data();
  a.source_len = src.size();
  a.entry = "vadd";
  tg_program* prog = nullptr;
  Ok(Api()->program_compile(&a, &prog));
  ASSERT_NE(prog, nullptr);
  const int n = 1000;
  std::vector<float> x(n), y(n), out(n, 0.f);
  for (int i = 0; i < n; ++i) x[i] = float(i), y[i] = float(3 * i);
  tg_buffer *bx, *by, *bo, *b0;
  Ok(Api()->buffer_alloc(d1, n * 4, 0, &bx));
  Ok(Api()->buffer_alloc(d1, n * 4, 0, &by));
  Ok(Api()->buffer_alloc(d1, n * 4, 0, &bo));
  Ok(Api()->buffer_alloc(d0, n * 4, 0, &b0));
  Ok(Api()->copy_h2d(nullptr, bx, 0, x.data(), n * 4, nullptr));
  Ok(Api()->copy_h2d(nullptr, by, 0, y.data(), n * 4, nullptr));
  tg::testing::ThreeBufferLaunch launch(prog, bo, bx, by, n);
  Ok(Api()->launch(&launch.la));
  Ok(Api()->stream_sync(d1, nullptr));
  ASSERT_NE(Api()->copy_d2d, nullptr);
  Ok(Api()->copy_d2d(nullptr, b0, 0, bo, 0, n * 4, nullptr));
  Ok(Api()->copy_d2h(nullptr, out.data(), b0, 0, n * 4, nullptr));
  for (int i = 0; i < n; ++i) ASSERT_EQ(out[i], x[i] + y[i]) << "at " << i;
  for (tg_buffer* b : {bx, by, bo, b0}) Api()->buffer_free(b);
  Api()->program_destroy(prog);
  Api()->device_close(d0);
  Api()->device_close(d1);
}

}  // namespace
