// program_cache.h: the in-memory cache of compiled programs, so a kernel that runs every step
// compiles once per process; the sqlite DiskCache (runtime/disk_cache.h) sits behind it.
#ifndef TG_RUNTIME_PROGRAM_CACHE_H_
#define TG_RUNTIME_PROGRAM_CACHE_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "runtime/program.h"

namespace tg::runtime {

class ProgramCache {
 public:
  // The exact key (not a hash, so two sources can never collide): ABI major, plugin, compile
  // fingerprint, dialect, entry and source, separated by NULs.
  static std::string Key(std::string_view plugin, std::string_view fingerprint,
                         const KernelSource& src);
  // The DiskCache key of a Key(): its 128-bit StableHashBytes, so rows stay small.
  static std::string DiskKey(std::string_view key);

  // What produced this cache's programs: a process that finds every kernel on disk shows
  // compiles == 0 (the "second run compiles nothing" check reads this).
  struct Counters {
    std::atomic<uint64_t> compiles{0};      // program_compile calls (BEAM candidates included)
    std::atomic<uint64_t> interpreted{0};   // program_compile calls of first-tier programs (no compiler)
    std::atomic<uint64_t> disk_loads{0};    // programs made by program_load from the disk cache
    std::atomic<uint64_t> disk_stores{0};   // binaries written to the disk cache
    std::atomic<uint64_t> disk_rejects{0};  // cached binaries program_load refused (row dropped)
  };
  Counters& counters() { return counters_; }
  const Counters& counters() const { return counters_; }

  using Result = absl::StatusOr<std::shared_ptr<Program>>;
  using Compile = std::function<Result()>;
  // A program that may still be compiling: get() waits for it.
  using Pending = std::shared_future<Result>;
  // Runs a task now or on another thread (TaskPool::Run, or inline).
  using Runner = std::function<void(std::function<void()>)>;

  // The cached program for |key|, else |compile|'s result, which is cached when it succeeds
  // (failures are not cached: the caller may fix the environment and retry).
  Result GetOrCompile(const std::string& key, const Compile& compile);
  // The same, without waiting: the cached or already compiling program for |key| (one compile per
  // key however many callers ask), else |compile| handed to |run|. A failed compile's waiters all
  // get its error; the key is then forgotten, so a later call compiles again.
  Pending GetOrStart(const std::string& key, Compile compile, const Runner& run);

  size_t size() const;
  uint64_t hits() const;
  void Clear();  // drops the cache's references; programs die when their last user lets go

 private:
  mutable std::mutex mu_;
  absl::flat_hash_map<std::string, Pending> programs_;
  uint64_t hits_ = 0;
  Counters counters_;
};

}  // namespace tg::runtime

#endif  // TG_RUNTIME_PROGRAM_CACHE_H_
