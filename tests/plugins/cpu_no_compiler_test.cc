// cpu_no_compiler_test.cc: with no C compiler on PATH the CPU plugin still loads and reports a
// device, and program_compile fails with UNAVAILABLE naming what it tried (never a crash).
// Its own binary: the plugin picks its compiler once per process.
#include <dlfcn.h>

#include <cstdlib>
#include <string>

#include "gtest/gtest.h"
#include "plugins/abi/tg_plugin.h"

namespace {

TEST(CpuNoCompilerTest, CompileIsUnavailableAndNamesTheCandidates) {
  setenv("PATH", "/nonexistent-dir", 1);
  setenv("CC", "definitely-not-a-compiler", 1);
  void* lib = dlopen("./plugins/cpu/libtg_cpu.so", RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(lib, nullptr) << dlerror();
  auto get = reinterpret_cast<tg_plugin_get_api_fn>(dlsym(lib, TG_PLUGIN_ENTRY_SYMBOL));
  const tg_plugin_api* api = get(TG_ABI_MAJOR, TG_ABI_MINOR);
  ASSERT_EQ(api->initialize(nullptr), nullptr);
  tg_device* dev = nullptr;
  ASSERT_EQ(api->device_open(0, &dev), nullptr);

  const std::string src = "int32_t k(void) { return 0; }";
  tg_compile_args a{};
  a.struct_size = sizeof a;
  a.device = dev;
  a.dialect = "c";
  a.source = src.data();
  a.source_len = src.size();
  a.entry = "k";
  tg_program* p = nullptr;
  tg_error* e = api->program_compile(&a, &p);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(api->error_code(e), TG_CODE_UNAVAILABLE);
  std::string msg = api->error_message(e);
  EXPECT_NE(msg.find("no C compiler found"), std::string::npos) << msg;
  EXPECT_NE(msg.find("definitely-not-a-compiler, cc, gcc, clang"), std::string::npos) << msg;
  api->error_destroy(e);
  api->device_close(dev);
  api->shutdown();
}

}  // namespace
