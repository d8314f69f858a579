// program_cache.cc: key construction and the locked map.
#include "runtime/program_cache.h"

#include <exception>

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

ProgramCache::Result ProgramCache::GetOrCompile(const std::string& key, const Compile& compile) {
  return GetOrStart(key, compile, [](std::function<void()> task) { task(); }).get();
}

ProgramCache::Pending ProgramCache::GetOrStart(const std::string& key, Compile compile, const Runner& run) {
  std::shared_ptr<std::promise<Result>> promise;
  Pending pending;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto it = programs_.find(key); it != programs_.end()) {
      ++hits_;
      return it->second;
    }
    promise = std::make_shared<std::promise<Result>>();
    pending = promise->get_future().share();
    programs_.emplace(key, pending);
  }
  run([this, key, promise, compile = std::move(compile)] {
    Result result = absl::InternalError("compile task ended without a result");
    try {
      result = compile();
    } catch (const std::exception& e) {
      result = absl::InternalError(std::string("compile threw: ") + e.what());
    }
    if (!result.ok()) {
      std::lock_guard<std::mutex> lock(mu_);
      // Only this task's entry can be under |key| while it runs (or none, after Clear).
      programs_.erase(key);
    }
    promise->set_value(std::move(result));
  });
  return pending;
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
