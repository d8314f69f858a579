// cts_case.h: one conformance case, and how a case passes, fails or skips.
// The unit of the CTS (plugins/cts, docs/plugins.md): tier files list Cases, the runner runs them.
#ifndef TG_PLUGINS_CTS_CTS_CASE_H_
#define TG_PLUGINS_CTS_CTS_CASE_H_

#include <functional>
#include <string>
#include <utility>

namespace tg_cts {

struct Plugin;  // plugin_handle.h

// Thrown by a case body; the runner catches them. Exceptions stay inside the CTS: they never
// cross a plugin entry point, because the CTS only calls into the plugin, never the reverse.
struct SkipCase {
  std::string reason;
};
struct CaseFailure {
  std::string message;
};

// A capability the plugin does not declare, or a device it does not have: SKIP, never FAIL.
[[noreturn]] inline void Skip(std::string reason) { throw SkipCase{std::move(reason)}; }
[[noreturn]] inline void Fail(std::string message) { throw CaseFailure{std::move(message)}; }

// Fails the case with the condition's text and |message| (any expression convertible to string).
#define CTS_CHECK(cond, message)                                                   \
  do {                                                                             \
    if (!(cond)) ::tg_cts::Fail(std::string("(" #cond ") is false: ") + (message)); \
  } while (0)

struct Case {
  int tier;          // 0 ABI/load, 1 memory, 2 programs, 3 execution, 4 robustness
  std::string name;  // "Memory.alloc_zero": what --filter and xfail files match
  std::function<void(const Plugin&)> run;
};

}  // namespace tg_cts

#endif  // TG_PLUGINS_CTS_CTS_CASE_H_
