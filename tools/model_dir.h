// Where tools/setup.sh puts the real models the tests and the benchmark suite run (npm packages it
// `npm pack`s, and make_w12_model.py's model): TG_MODEL_DIR, else ${XDG_CACHE_HOME:-~/.cache}/tinygrad-cc-models
// (docs/environment.md). `bazel test` hides XDG_CACHE_HOME and HOME, so the home directory comes from the
// password database when HOME is unset.
#ifndef TG_TOOLS_MODEL_DIR_H_
#define TG_TOOLS_MODEL_DIR_H_

#include <pwd.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

namespace tg::tools {

inline std::string ModelDir() {
  if (const char* d = std::getenv("TG_MODEL_DIR"); d && *d) return d;
  if (const char* d = std::getenv("XDG_CACHE_HOME"); d && *d) return std::string(d) + "/tinygrad-cc-models";
  std::string home = std::getenv("HOME") ? std::getenv("HOME") : "";
  if (home.empty())
    if (const passwd* pw = getpwuid(getuid())) home = pw->pw_dir;
  return home + "/.cache/tinygrad-cc-models";
}

}  // namespace tg::tools

#endif  // TG_TOOLS_MODEL_DIR_H_
