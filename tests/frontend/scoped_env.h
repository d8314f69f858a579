// ScopedEnv: sets an environment variable for one test and restores what was there, so a test that
// narrows a knob (TG_LOAD_MAX_BYTES) leaves the next test the process's own value.
#ifndef TG_TESTS_FRONTEND_SCOPED_ENV_H_
#define TG_TESTS_FRONTEND_SCOPED_ENV_H_

#include <cstdlib>
#include <optional>
#include <string>

namespace tg::testing {

class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old_) setenv(name_, old_->c_str(), 1);
    else unsetenv(name_);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

}  // namespace tg::testing

#endif  // TG_TESTS_FRONTEND_SCOPED_ENV_H_
