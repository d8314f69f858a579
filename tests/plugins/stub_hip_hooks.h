// stub_hip_hooks.h: what the stub HIP runtime (stub_hip_runtime.cc) tells a test about the calls the
// plugin made into it: the call log since the last read, and how often each call succeeded. Read
// through dlsym from the copy of the stub the plugin loaded, so a test whose plugin found another
// runtime fails instead of reading nothing.
#ifndef TG_TESTS_PLUGINS_STUB_HIP_HOOKS_H_
#define TG_TESTS_PLUGINS_STUB_HIP_HOOKS_H_

#include <dlfcn.h>

#include <cstddef>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace tg::testing {

// The stub runtime as the ROCm 6 layout's directory holds it (tests/plugins/stub_drivers).
constexpr char kStubHipRuntime[] = "tests/plugins/stub_drivers/libamdhip64.so.6";

// The stub's hook |name|, from the already loaded |library|; NULL after a test failure.
inline void* StubHipHook(const char* name, const char* library = kStubHipRuntime) {
  void* runtime = dlopen(library, RTLD_NOW | RTLD_NOLOAD);
  void* hook = runtime != nullptr ? dlsym(runtime, name) : nullptr;
  EXPECT_NE(hook, nullptr) << "the stub HIP runtime " << library << " was not the one loaded";
  return hook;
}

// How many times the stub logged |call| ("hipMalloc", "hipModuleUnload", ...) in this process; -1
// when the stub is not loaded.
inline long StubHipCount(const char* call) {
  auto count = reinterpret_cast<long (*)(const char*)>(StubHipHook("stub_hip_count"));
  return count != nullptr ? count(call) : -1;
}

// The calls logged since the last read, one per element; reading empties the log.
inline std::vector<std::string> StubHipCallLog() {
  auto read = reinterpret_cast<void (*)(char*, size_t)>(StubHipHook("stub_hip_call_log"));
  if (read == nullptr) return {};
  std::vector<char> text(1 << 16);
  read(text.data(), text.size());
  std::vector<std::string> calls;
  std::string all(text.data());
  for (size_t start = 0, end; start < all.size(); start = end + 1) {
    end = all.find('\n', start);
    if (end == std::string::npos) end = all.size();
    if (end > start) calls.push_back(all.substr(start, end - start));
  }
  return calls;
}

}  // namespace tg::testing

#endif  // TG_TESTS_PLUGINS_STUB_HIP_HOOKS_H_
