// SPDX-License-Identifier: Apache-2.0
// process_dir.h: a directory of a shared cache that only this process writes, for a driver whose own
// on-disk cache is not safe for two processes at once. PoCL's is one: a process can serialize a program
// (CL_PROGRAM_BINARIES) from its cache directory while another process is still writing the same
// directory, and loading that binary later aborts inside PoCL. What is worth keeping between processes
// lives in our own kernel cache (the drivers' binaries), so the driver's scratch files need not be
// shared.
//
// The directory is <parent>/<pid>-<random> (pids repeat across pid namespaces: every `bazel test`
// sandbox has its own), and this process holds an flock on <that>.lock for as long as it runs (the
// kernel drops it when the process ends, however it ends). Each call first removes the directories
// whose lock nobody holds: the leftovers of processes that have ended.
#ifndef TG_PLUGINS_KIT_PROCESS_DIR_H_
#define TG_PLUGINS_KIT_PROCESS_DIR_H_

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <filesystem>
#include <map>
#include <mutex>
#include <random>
#include <string>
#include <system_error>

#include "plugins/kit/cache_dir.h"

namespace tg_kit {
namespace internal {

// "<digits>-<hex digits>": a name MakeProcessCacheDir gives, so one the sweep may judge.
inline bool IsProcessDirName(const std::string& s) {
  size_t dash = s.find('-');
  if (dash == 0 || dash == std::string::npos || dash + 1 == s.size()) return false;
  for (size_t i = 0; i < s.size(); ++i)
    if (i != dash && !(i < dash ? std::isdigit(static_cast<unsigned char>(s[i]))
                                : std::isxdigit(static_cast<unsigned char>(s[i]))))
      return false;
  return true;
}

inline std::string UniqueName() {
  std::random_device rd;
  char hex[17];
  snprintf(hex, sizeof hex, "%08x%08x", rd(), rd());
  return std::to_string(getpid()) + "-" + hex;
}

// Removes <parent>/<name> and its lock when no live process holds the lock.
inline void RemoveIfAbandoned(const std::string& parent, const std::string& name) {
  std::string lock = parent + "/" + name + ".lock";
  // No lock file: its owner takes the lock before making the directory, so it has ended.
  int fd = open(lock.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB) == 0) {
    std::error_code ignored;
    std::filesystem::remove_all(parent + "/" + name, ignored);
    unlink(lock.c_str());
  }
  if (fd >= 0) close(fd);
}

// Creates |lock| and takes it for the rest of this process. A sweeper may unlink the file between our
// open and our flock; a lock on an unlinked file guards nothing, so then the caller tries a new name.
inline bool LockForLife(const std::string& lock, std::string* why) {
  int fd = open(lock.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB) != 0) {
    if (why != nullptr) *why = lock + ": " + strerror(errno);
    if (fd >= 0) close(fd);
    return false;
  }
  struct stat held, named;
  if (fstat(fd, &held) == 0 && stat(lock.c_str(), &named) == 0 && held.st_ino == named.st_ino &&
      held.st_dev == named.st_dev)
    return true;  // the descriptor stays open: the lock lasts as long as the process
  close(fd);
  if (why != nullptr) *why = lock + ": removed as it was taken";
  return false;
}

inline void SweepAbandoned(const std::string& parent, const std::string& mine) {
  DIR* d = opendir(parent.c_str());
  if (d == nullptr) return;
  while (dirent* e = readdir(d)) {
    std::string name = e->d_name;
    constexpr std::string_view kLock = ".lock";
    if (name.size() > kLock.size() && name.compare(name.size() - kLock.size(), kLock.size(), kLock) == 0)
      name.resize(name.size() - kLock.size());  // a lock whose directory was never made
    if (IsProcessDirName(name) && name != mine) RemoveIfAbandoned(parent, name);
  }
  closedir(d);
}

}  // namespace internal

// <cache>/<sub>/<pid>-<random> (cache as MakeCacheDir finds it), new, empty and locked for this
// process, after sweeping the abandoned ones. "" when no cache directory qualifies or no lock can be
// taken; then |why| (may be NULL) says why. A second call for the same <sub> returns the same directory.
inline std::string MakeProcessCacheDir(std::string_view sub, std::string* why) {
  std::string parent = MakeCacheDir(sub, why);
  if (parent.empty()) return "";
  static std::mutex mu;
  static std::map<std::string, std::string>* mine = new std::map<std::string, std::string>;  // parent -> dir
  std::lock_guard<std::mutex> guard(mu);
  auto it = mine->find(parent);
  internal::SweepAbandoned(parent, it != mine->end() ? it->second.substr(parent.size() + 1) : "");
  if (it != mine->end()) return it->second;
  for (int attempt = 0; attempt < 3; ++attempt) {
    std::string dir = parent + "/" + internal::UniqueName();
    if (!internal::LockForLife(dir + ".lock", why)) continue;
    if (!internal::MakeDirs(dir)) {
      if (why != nullptr) *why = dir + ": " + strerror(errno);
      return "";
    }
    return (*mine)[parent] = dir;
  }
  return "";
}

}  // namespace tg_kit

#endif  // TG_PLUGINS_KIT_PROCESS_DIR_H_
