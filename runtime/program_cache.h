// program_cache.h: the in-memory cache of compiled programs, so a kernel that runs every step
// compiles once per process. (The sqlite disk cache of DESIGN §6 will sit behind this.)
#ifndef TG_RUNTIME_PROGRAM_CACHE_H_
#define TG_RUNTIME_PROGRAM_CACHE_H_

#include <cstdint>
#include <functional>
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

  // The cached program for |key|, else |compile|'s result, which is cached when it succeeds
  // (failures are not cached: the caller may fix the environment and retry). Compiles run outside
  // the lock, so two threads may compile the same key once each; the first stored wins.
  using Compile = std::function<absl::StatusOr<std::shared_ptr<Program>>()>;
  absl::StatusOr<std::shared_ptr<Program>> GetOrCompile(const std::string& key, const Compile& compile);

  size_t size() const;
  uint64_t hits() const;
  void Clear();  // drops the cache's references; programs die when their last user lets go

 private:
  mutable std::mutex mu_;
  absl::flat_hash_map<std::string, std::shared_ptr<Program>> programs_;
  uint64_t hits_ = 0;
};

}  // namespace tg::runtime

#endif  // TG_RUNTIME_PROGRAM_CACHE_H_
