// SPDX-License-Identifier: Apache-2.0
// cache_dir.h: where a plugin keeps files between processes (compiled kernels, a driver's cache).
// Every plugin searches the same places, so TG_CACHE_DIR moves all of them at once:
//   $TG_CACHE_DIR, $XDG_CACHE_HOME/tinygrad-cc, $HOME/.cache/tinygrad-cc, /tmp/tinygrad-cc-<uid>
// (HOME is unset under `bazel test`, hence the last one).
#ifndef TG_PLUGINS_KIT_CACHE_DIR_H_
#define TG_PLUGINS_KIT_CACHE_DIR_H_

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>
#include <string_view>
#include <vector>

namespace tg_kit {
namespace internal {

inline std::string Env(const char* name) {
  const char* v = getenv(name);
  return v != nullptr ? v : "";
}

// mkdir -p, making each missing directory with mode 0700 (a cache holds code we will run) and
// leaving existing ones as they are. Returns false with errno set.
inline bool MakeDirs(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return true;
    errno = ENOTDIR;
    return false;
  }
  size_t parent_end = path.find_last_of('/');
  if (parent_end != std::string::npos && parent_end > 0 && !MakeDirs(path.substr(0, parent_end))) return false;
  return mkdir(path.c_str(), 0700) == 0 || errno == EEXIST;
}

// A directory under the shared /tmp that someone else created could feed us their files.
inline bool OwnedByUs(const std::string& base) {
  if (base.rfind("/tmp/", 0) != 0) return true;
  struct stat st;
  return stat(base.c_str(), &st) == 0 && st.st_uid == getuid();
}

}  // namespace internal

// The base directories above that are set, most preferred first.
inline std::vector<std::string> CacheBases() {
  std::vector<std::string> out;
  if (!internal::Env("TG_CACHE_DIR").empty()) out.push_back(internal::Env("TG_CACHE_DIR"));
  if (!internal::Env("XDG_CACHE_HOME").empty()) out.push_back(internal::Env("XDG_CACHE_HOME") + "/tinygrad-cc");
  if (!internal::Env("HOME").empty()) out.push_back(internal::Env("HOME") + "/.cache/tinygrad-cc");
  out.push_back("/tmp/tinygrad-cc-" + std::to_string(getuid()));
  return out;
}

// <base>/<sub> for the first base where that directory exists or can be made, is writable, and is
// ours when it lies in /tmp. "" when none qualifies; then |why| (may be NULL) lists each refusal.
inline std::string MakeCacheDir(std::string_view sub, std::string* why) {
  std::string reasons;
  for (const std::string& base : CacheBases()) {
    std::string dir = base + "/" + std::string(sub);
    const char* refusal = nullptr;
    if (!internal::MakeDirs(dir)) {
      refusal = strerror(errno);
    } else if (!internal::OwnedByUs(base)) {
      refusal = "owned by another user";
    } else if (access(dir.c_str(), W_OK) != 0) {
      refusal = "not writable";
    } else {
      return dir;
    }
    reasons += (reasons.empty() ? "" : "; ") + dir + ": " + refusal;
  }
  if (why != nullptr) *why = "no usable cache directory (" + reasons + ")";
  return "";
}

}  // namespace tg_kit

#endif  // TG_PLUGINS_KIT_CACHE_DIR_H_
