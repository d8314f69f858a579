// plugin_discovery.cc: runfiles, binary directory and TG_PLUGIN_PATH scanning.
#include "runtime/plugin_discovery.h"

#include <limits.h>
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <set>
#include <system_error>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "tools/cpp/runfiles/runfiles.h"

namespace tg::runtime {
namespace {

namespace fs = std::filesystem;
using bazel::tools::cpp::runfiles::Runfiles;

bool IsPluginFile(const fs::path& p) {
  std::string name = p.filename().string();
  return absl::StartsWith(name, "libtg_") && absl::EndsWith(name, ".so");
}

// libtg_*.so directly in |dir| (depth 1) or, with |nested|, one level down (plugins/<name>/).
std::vector<std::string> Scan(const fs::path& dir, bool nested) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
    if (nested && e.is_directory(ec)) {
      for (const fs::directory_entry& f : fs::directory_iterator(e.path(), ec)) {
        if (IsPluginFile(f.path())) out.push_back(f.path().string());
      }
    } else if (!nested && IsPluginFile(e.path())) {
      out.push_back(e.path().string());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string SelfExe() {
  std::error_code ec;
  fs::path p = fs::read_symlink("/proc/self/exe", ec);
  return ec ? "" : p.string();
}

std::vector<std::string> FromRunfiles(const std::string& exe) {
  std::string error;
  std::unique_ptr<Runfiles> rf(Runfiles::Create(exe, &error));
  if (rf == nullptr) return {};
  std::string dir = rf->Rlocation("tinygrad_cc/plugins");
  if (dir.empty()) return {};
  return Scan(dir, /*nested=*/true);
}

std::vector<std::string> FromEnvPath() {
  const char* env = getenv("TG_PLUGIN_PATH");
  if (env == nullptr) return {};
  std::vector<std::string> out;
  for (absl::string_view item : absl::StrSplit(env, ':', absl::SkipEmpty())) {
    std::error_code ec;
    fs::path p{std::string(item)};
    if (fs::is_directory(p, ec)) {
      std::vector<std::string> found = Scan(p, /*nested=*/false);
      out.insert(out.end(), found.begin(), found.end());
    } else {
      out.push_back(p.string());  // a direct path; a missing file is reported by the loader
    }
  }
  return out;
}

}  // namespace

std::vector<std::string> DiscoverPluginPaths() {
  std::string exe = SelfExe();
  std::vector<std::string> candidates = FromRunfiles(exe);
  // Only for an installed layout: in bazel-bin, every cc_library named tg_* builds a libtg_*.so
  // beside the binary that is not a plugin.
  if (candidates.empty() && !exe.empty()) {
    std::vector<std::string> beside = Scan(fs::path(exe).parent_path(), /*nested=*/false);
    candidates.insert(candidates.end(), beside.begin(), beside.end());
  }
  std::vector<std::string> env = FromEnvPath();
  candidates.insert(candidates.end(), env.begin(), env.end());

  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const std::string& c : candidates) {
    std::error_code ec;
    fs::path real = fs::canonical(c, ec);
    if (seen.insert(ec ? c : real.string()).second) out.push_back(c);
  }
  return out;
}

}  // namespace tg::runtime
