// runfile.cc: one runfiles lookup per process, through @bazel_tools' runfiles library.
#include "plugins/cts/runfile.h"

#include <memory>

#include "tools/cpp/runfiles/runfiles.h"

namespace tg_cts {

std::string Runfile(const Plugin& p, const std::string& workspace_path) {
  using bazel::tools::cpp::runfiles::Runfiles;
  static const std::unique_ptr<Runfiles> runfiles = [&p] {
    std::string error;
    return std::unique_ptr<Runfiles>(Runfiles::Create(p.argv0, &error));
  }();
  if (runfiles == nullptr) return "";
  return runfiles->Rlocation("tinygrad_cc/" + workspace_path);
}

}  // namespace tg_cts
