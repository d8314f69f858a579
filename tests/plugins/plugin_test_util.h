// plugin_test_util.h: loading a plugin .so through its raw ABI table in a test, and checking the
// tg_error objects it returns. Shared by the device-plugin tests in this directory.
#ifndef TG_TESTS_PLUGINS_PLUGIN_TEST_UTIL_H_
#define TG_TESTS_PLUGINS_PLUGIN_TEST_UTIL_H_

#include <dlfcn.h>

#include <cstdint>
#include <cstring>
#include <string>

#include "gtest/gtest.h"
#include "plugins/abi/tg_plugin.h"

namespace tg::testing {

// dlopen()s |path| (relative to the runfiles root, with "./") and returns its table, or NULL
// after a test failure that says why. The library is never closed (as the runtime does).
inline const tg_plugin_api* LoadPluginApi(const char* path) {
  void* lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    ADD_FAILURE() << dlerror();
    return nullptr;
  }
  auto get = reinterpret_cast<tg_plugin_get_api_fn>(dlsym(lib, TG_PLUGIN_ENTRY_SYMBOL));
  if (get == nullptr) {
    ADD_FAILURE() << path << " lacks " << TG_PLUGIN_ENTRY_SYMBOL;
    return nullptr;
  }
  EXPECT_EQ(get(TG_ABI_MAJOR + 1, 0), nullptr);  // another major: NULL, no crash
  return get(TG_ABI_MAJOR, TG_ABI_MINOR);
}

// The launch of a test kernel over buffers (out, a, b) and the int32 scalar n, in groups of 32 work
// items: the signature of test_kernels.h's kernels. Owns its args, so |la| stays valid while it lives.
struct ThreeBufferLaunch {
  ThreeBufferLaunch(tg_program* program, tg_buffer* out, tg_buffer* a, tg_buffer* b, int32_t n) {
    args[0].kind = args[1].kind = args[2].kind = TG_ARG_BUFFER;
    args[0].buffer = out, args[1].buffer = a, args[2].buffer = b;
    args[3].kind = TG_ARG_I32;
    args[3].value = n;
    la.struct_size = sizeof la;
    la.program = program;
    la.num_groups[0] = (n + 31) / 32, la.num_groups[1] = la.num_groups[2] = 1;
    la.group_size[0] = 32, la.group_size[1] = la.group_size[2] = 1;
    la.args = args;
    la.num_args = 4;
  }
  ThreeBufferLaunch(const ThreeBufferLaunch&) = delete;  // |la| points into |args|
  ThreeBufferLaunch& operator=(const ThreeBufferLaunch&) = delete;

  tg_arg args[4] = {};
  tg_launch_args la{};
};

// Finds the extension |name| in |api|'s chain, or NULL.
inline const tg_ext* FindExtension(const tg_plugin_api* api, const char* name) {
  for (const tg_ext* e = api->extensions; e != nullptr; e = e->next) {
    if (e->name != nullptr && std::strcmp(e->name, name) == 0) return e;
  }
  return nullptr;
}

// Error checks bound to one plugin's table (errors must be freed by the plugin that made them).
class ErrorChecker {
 public:
  explicit ErrorChecker(const tg_plugin_api* api) : api_(api) {}
  // Fails the test with the plugin's message when |e| is an error; frees it.
  void Ok(tg_error* e) const {
    if (e == nullptr) return;
    ADD_FAILURE() << api_->error_message(e);
    api_->error_destroy(e);
  }
  // Expects an error with |code|; returns its message ("" when there was none).
  std::string Err(tg_error* e, tg_code code) const {
    EXPECT_NE(e, nullptr);
    if (e == nullptr) return "";
    EXPECT_EQ(api_->error_code(e), code) << api_->error_message(e);
    std::string msg = api_->error_message(e);
    api_->error_destroy(e);
    return msg;
  }

 private:
  const tg_plugin_api* api_;
};

// A suite on device 0 of the CPU plugin, loaded through its raw table and opened once for all its cases.
class CpuDeviceSuite : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    api_ = LoadPluginApi("./plugins/cpu/libtg_cpu.so");
    ASSERT_NE(api_, nullptr);
    ASSERT_EQ(api_->initialize(nullptr), nullptr);
    ASSERT_EQ(api_->device_open(0, &dev_), nullptr);
  }
  static void TearDownTestSuite() {
    api_->device_close(dev_);
    api_->shutdown();
  }
  static inline const tg_plugin_api* api_ = nullptr;
  static inline tg_device* dev_ = nullptr;
};

}  // namespace tg::testing

#endif  // TG_TESTS_PLUGINS_PLUGIN_TEST_UTIL_H_
