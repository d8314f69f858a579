// disk_cache.cc: cache directory choice, content hashing and atomic file writes.
#include "plugins/cpu/disk_cache.h"

#include "plugins/cpu/binary_envelope.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <random>
#include <vector>

namespace tg_cpu {
namespace {

// mkdir -p with mode 0700. Returns false with errno set.
bool MakeDirs(const std::string& path) {
  std::string partial;
  size_t pos = 0;
  while (pos != std::string::npos) {
    pos = path.find('/', pos + 1);
    partial = path.substr(0, pos);
    if (partial.empty()) continue;
    if (mkdir(partial.c_str(), 0700) != 0 && errno != EEXIST) return false;
  }
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::vector<std::string> Candidates() {
  std::vector<std::string> out;
  auto env = [](const char* name) -> std::string {
    const char* v = getenv(name);
    return v != nullptr ? v : "";
  };
  if (!env("TG_CACHE_DIR").empty()) out.push_back(env("TG_CACHE_DIR") + "/cpu");
  if (!env("XDG_CACHE_HOME").empty()) out.push_back(env("XDG_CACHE_HOME") + "/tinygrad-cc/cpu");
  if (!env("HOME").empty()) out.push_back(env("HOME") + "/.cache/tinygrad-cc/cpu");
  out.push_back("/tmp/tinygrad-cc-" + std::to_string(getuid()) + "/cpu");
  return out;
}

// A shared /tmp directory someone else created could feed us their shared objects: refuse it.
bool OwnedByUs(const std::string& dir) {
  if (dir.rfind("/tmp/", 0) != 0) return true;
  struct stat st;
  std::string top = dir.substr(0, dir.rfind('/'));
  return stat(top.c_str(), &st) == 0 && st.st_uid == getuid();
}

uint64_t Mix(uint64_t h) {  // splitmix64 finalizer: spreads FNV's weak high bits
  h ^= h >> 30;
  h *= 0xbf58476d1ce4e5b9ULL;
  h ^= h >> 27;
  h *= 0x94d049bb133111ebULL;
  return h ^ (h >> 31);
}

}  // namespace

std::string CacheDir(std::string* why) {
  // Leaked, never a static object: compiles still running on the host's task pool when the process
  // exits read it after exit's static destructors ran (tests/runtime:exit_during_compiles_test).
  static std::once_flag once;
  static std::string* dir = new std::string();
  static std::string* reason = new std::string();
  std::call_once(once, [] {
    for (const std::string& c : Candidates()) {
      if (!MakeDirs(c)) {
        *reason += (reason->empty() ? "" : "; ") + c + ": " + strerror(errno);
      } else if (!OwnedByUs(c)) {
        *reason += (reason->empty() ? "" : "; ") + c + ": owned by another user";
      } else {
        *dir = c;
        return;
      }
    }
  });
  if (dir->empty() && why != nullptr) *why = "no usable cache directory (" + *reason + ")";
  return *dir;
}

std::string HashHex(std::initializer_list<std::string_view> parts) {
  uint64_t a = 0xcbf29ce484222325ULL, b = 0x84222325cbf29ce4ULL;
  auto feed = [&](unsigned char c) {
    a = (a ^ c) * 0x100000001b3ULL;
    b = (b ^ c) * 0x100000001b3ULL + 0x9e3779b97f4a7c15ULL;
  };
  for (std::string_view p : parts) {
    uint64_t n = p.size();
    for (int i = 0; i < 8; ++i) feed(static_cast<unsigned char>(n >> (8 * i)));
    for (char c : p) feed(static_cast<unsigned char>(c));
  }
  char out[33];
  snprintf(out, sizeof out, "%016llx%016llx", static_cast<unsigned long long>(Mix(a)),
           static_cast<unsigned long long>(Mix(b ^ a)));
  return out;
}

// The pid alone is not unique: processes in different PID namespaces (containers, Bazel's sandboxed tests)
// share a cache directory with the same small pids, and two of them compiling the same kernel wrote, read
// and removed one temporary file. A random per-process nonce keeps their names apart.
std::string TempNameFor(const std::string& path) {
  static const uint64_t nonce = (uint64_t{std::random_device{}()} << 32) ^ std::random_device{}();
  static std::atomic<uint64_t> counter{0};
  char suffix[64];
  snprintf(suffix, sizeof suffix, ".tmp%d_%016llx_%llu", static_cast<int>(getpid()),
           static_cast<unsigned long long>(nonce), static_cast<unsigned long long>(counter++));
  return path + suffix;
}

bool FileExists(const std::string& path) { return access(path.c_str(), R_OK) == 0; }

bool WriteFileAtomic(const std::string& path, std::string_view data, std::string* why) {
  std::string tmp = TempNameFor(path);
  int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) {
    *why = "cannot create " + tmp + ": " + strerror(errno);
    return false;
  }
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      *why = "cannot write " + tmp + ": " + strerror(errno);
      close(fd);
      unlink(tmp.c_str());
      return false;
    }
    done += static_cast<size_t>(n);
  }
  close(fd);
  if (rename(tmp.c_str(), path.c_str()) != 0) {
    *why = "cannot rename " + tmp + " to " + path + ": " + strerror(errno);
    unlink(tmp.c_str());
    return false;
  }
  return true;
}

bool WriteCachedObject(const std::string& path, std::string_view elf, std::string* why) {
  return WriteFileAtomic(path, AppendTrailer(elf), why);
}

bool ReadCachedObject(const std::string& path, std::string* elf, std::string* why) {
  std::string file, ignored;
  if (!ReadFile(path, &file, why != nullptr ? why : &ignored)) return false;
  std::string_view payload;
  if (!CheckTrailer(file, &payload, why != nullptr ? why : &ignored)) {
    if (why != nullptr) *why = path + ": " + *why;
    return false;
  }
  elf->assign(payload);
  return true;
}

bool CachedObjectIsIntact(const std::string& path, std::string* why) {
  if (!FileExists(path)) {
    if (why != nullptr) *why = path + ": not cached";
    return false;
  }
  std::string elf;
  return ReadCachedObject(path, &elf, why);
}

bool ReadFile(const std::string& path, std::string* out, std::string* why) {
  FILE* f = fopen(path.c_str(), "rbe");
  if (f == nullptr) {
    *why = "cannot open " + path + ": " + strerror(errno);
    return false;
  }
  out->clear();
  char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) out->append(buf, n);
  bool ok = ferror(f) == 0;
  fclose(f);
  if (!ok) *why = "cannot read " + path;
  return ok;
}

}  // namespace tg_cpu
