// Where tools/setup.sh puts the real ONNX models the tests run (npm packages it `npm pack`s): TG_MODEL_DIR,
// else ${XDG_CACHE_HOME:-~/.cache}/tinygrad-cc-models. `bazel test` hides XDG_CACHE_HOME and HOME, so the
// home directory comes from the password database when HOME is unset.
#ifndef TG_TESTS_ONNX_MODEL_DIR_H_
#define TG_TESTS_ONNX_MODEL_DIR_H_

#include <pwd.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

namespace tg::testing {

inline std::string ModelDir() {
  if (const char* d = std::getenv("TG_MODEL_DIR"); d && *d) return d;
  if (const char* d = std::getenv("XDG_CACHE_HOME"); d && *d) return std::string(d) + "/tinygrad-cc-models";
  std::string home = std::getenv("HOME") ? std::getenv("HOME") : "";
  if (home.empty())
    if (const passwd* pw = getpwuid(getuid())) home = pw->pw_dir;
  return home + "/.cache/tinygrad-cc-models";
}

inline bool FileExists(const std::string& path) { return std::ifstream(path).good(); }

}  // namespace tg::testing

#endif  // TG_TESTS_ONNX_MODEL_DIR_H_
