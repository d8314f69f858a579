// DiskCache: the sqlite database that outlives a process: compiled program binaries
// (behind Device::GetProgram) and BEAM winners (read and written by compiler/codegen/beam.cc).
#ifndef TG_RUNTIME_DISK_CACHE_H_
#define TG_RUNTIME_DISK_CACHE_H_

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

struct sqlite3;

namespace tg::runtime {

struct CachedBinary {
  std::string format;  // the plugin's binary format name ("elf-so", "cubin", ...)
  std::string bytes;
};

// One connection to one database file. Every write is one sqlite transaction; the file is in WAL
// mode with a busy timeout, so several processes share it. Nothing read back is trusted blindly:
// each row carries a checksum (a mismatching row is deleted and reported as a miss), an old schema
// version drops and rebuilds the tables, and a file sqlite calls corrupt is moved aside to
// "<path>.corrupt-<pid>" and recreated. Failures to write are logged at DEBUG>=1 and otherwise
// ignored: the cache only ever saves work. Thread-safe (one mutex around the connection).
class DiskCache {
 public:
  static constexpr int kSchemaVersion = 1;

  // The process's cache, "<DefaultDir()>/cache.db", opened on first use. nullptr when CACHELEVEL=0
  // or when it cannot be opened (the reason is printed once at DEBUG>=1).
  static DiskCache* Global();
  // TG_CACHE_DIR, else $XDG_CACHE_HOME/tinygrad-cc, else $HOME/.cache/tinygrad-cc, else
  // /tmp/tinygrad-cc-<uid> (HOME is unset under bazel test). Not created here.
  static std::string DefaultDir();
  // Opens or creates |path| (its directory is created with mode 0700). Errors only when even a
  // fresh database cannot be made there.
  static absl::StatusOr<std::unique_ptr<DiskCache>> Open(const std::string& path);
  ~DiskCache();
  DiskCache(const DiskCache&) = delete;
  DiskCache& operator=(const DiskCache&) = delete;

  // Programs by |key| (a hash of everything the binary depends on, see ProgramCache::DiskKey).
  std::optional<CachedBinary> GetProgram(std::string_view key);
  void PutProgram(std::string_view key, const CachedBinary& binary);  // replaces any old row
  void DropProgram(std::string_view key);

  // BEAM winners: |opts| is compiler-defined text, keyed by kernel, device and beam width.
  std::optional<std::string> GetBeam(std::string_view ast_key, std::string_view device_key, int beam);
  void PutBeam(std::string_view ast_key, std::string_view device_key, int beam, std::string_view opts);

  const std::string& path() const { return path_; }

 private:
  explicit DiskCache(std::string path) : path_(std::move(path)) {}
  absl::Status Connect();          // open + pragmas + schema, moving a corrupt file aside once
  absl::Status ConnectOnce();
  int EnterWalMode();  // PRAGMA journal_mode=WAL, retried while another connection holds the write lock
  absl::Status EnsureSchema();
  void Close();
  void MoveAside();
  struct Param {  // a statement parameter: text, or a blob for binary bytes
    Param(std::string_view v, bool blob = false) : value(v), blob(blob) {}
    Param(const std::string& v) : value(v), blob(false) {}
    std::string_view value;
    bool blob;
  };
  // Runs |sql|; with |row| != nullptr, collects the first result row's columns. Returns the sqlite
  // result code (SQLITE_DONE / SQLITE_ROW on success).
  int Run(std::string_view sql, std::initializer_list<Param> params, std::vector<std::string>* row = nullptr);
  // After a failed statement: a corrupt file is moved aside and recreated; other errors are logged.
  void OnError(int rc, std::string_view what);

  static constexpr int kBusyTimeoutMs = 10000;

  std::mutex mu_;
  std::string path_;
  sqlite3* db_ = nullptr;
};

}  // namespace tg::runtime

#endif  // TG_RUNTIME_DISK_CACHE_H_
