// program_cache.cc: key construction and the locked map.
#include "runtime/program_cache.h"

#include "absl/strings/str_cat.h"
#include "ir/stable_hash.h"

namespace tg::runtime {

std::string ProgramCache::Key(std::string_view plugin, std::string_view fingerprint,
                              const KernelSource& src) {
  const absl::string_view sep("\0", 1);
  return absl::StrCat(TG_ABI_MAJOR, sep, std::string(plugin), sep, std::string(fingerprint), sep,
                      src.dialect, sep, src.entry, sep, src.source);
}

std::string ProgramCache::DiskKey(std::string_view key) { return StableHashBytes(key); }

absl::StatusOr<std::shared_ptr<Program>> ProgramCache::GetOrCompile(const std::string& key,
                                                                    const Compile& compile) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto it = programs_.find(key); it != programs_.end()) {
      ++hits_;
      return it->second;
    }
  }
  absl::StatusOr<std::shared_ptr<Program>> program = compile();
  if (!program.ok()) return program;
  std::lock_guard<std::mutex> lock(mu_);
  return programs_.try_emplace(key, *std::move(program)).first->second;
}

size_t ProgramCache::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return programs_.size();
}

uint64_t ProgramCache::hits() const {
  std::lock_guard<std::mutex> lock(mu_);
  return hits_;
}

void ProgramCache::Clear() {
  std::lock_guard<std::mutex> lock(mu_);
  programs_.clear();
}

}  // namespace tg::runtime
