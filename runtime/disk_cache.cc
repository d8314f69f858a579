// disk_cache.cc: the sqlite schema, integrity checks and recovery of DiskCache.
#include "runtime/disk_cache.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>

#include "absl/strings/str_cat.h"
#include "ir/env.h"
#include "ir/stable_hash.h"

namespace tg::runtime {
namespace {

constexpr const char* kSchema[] = {
    "DROP TABLE IF EXISTS programs",
    "DROP TABLE IF EXISTS beam",
    "CREATE TABLE programs (key TEXT PRIMARY KEY, format TEXT NOT NULL, bytes BLOB NOT NULL,"
    " checksum TEXT NOT NULL)",
    "CREATE TABLE beam (ast_key TEXT NOT NULL, device_key TEXT NOT NULL, beam_n TEXT NOT NULL,"
    " opts TEXT NOT NULL, checksum TEXT NOT NULL, PRIMARY KEY (ast_key, device_key, beam_n))",
};

std::string Env(const char* name) {
  const char* v = getenv(name);
  return v != nullptr ? v : "";
}

// mkdir -p, mode 0700: the directory holds binaries this process will dlopen.
bool MakeDirs(const std::string& path) {
  for (size_t pos = path.find('/', 1);; pos = path.find('/', pos + 1)) {
    std::string partial = path.substr(0, pos);
    if (mkdir(partial.c_str(), 0700) != 0 && errno != EEXIST) return false;
    if (pos == std::string::npos) break;
  }
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// A row's checksum covers its key and payload, so a row copied under another key is caught too.
std::string Checksum(std::initializer_list<std::string_view> parts) {
  std::string all;
  for (std::string_view p : parts) all.append(std::to_string(p.size())).append(":").append(p);
  return StableHashBytes(all);
}

bool IsCorruption(int rc) { return (rc & 0xff) == SQLITE_CORRUPT || (rc & 0xff) == SQLITE_NOTADB; }
bool IsOk(int rc) { return rc == SQLITE_OK || rc == SQLITE_DONE || rc == SQLITE_ROW; }

// DATA_LOSS marks the failures that mean "this file is damaged", the only ones that replace it.
absl::Status Failure(int rc, std::string message) {
  return IsCorruption(rc) ? absl::DataLossError(message) : absl::UnavailableError(message);
}

}  // namespace

std::string DiskCache::DefaultDir() {
  if (!Env("TG_CACHE_DIR").empty()) return Env("TG_CACHE_DIR");
  if (!Env("XDG_CACHE_HOME").empty()) return Env("XDG_CACHE_HOME") + "/tinygrad-cc";
  if (!Env("HOME").empty()) return Env("HOME") + "/.cache/tinygrad-cc";
  return "/tmp/tinygrad-cc-" + std::to_string(getuid());
}

DiskCache* DiskCache::Global() {
  static DiskCache* cache = [] () -> DiskCache* {
    if (GetEnvInt("CACHELEVEL", 1) == 0) return nullptr;
    std::string dir = DefaultDir();
    struct stat st;
    // A shared /tmp directory someone else made could feed us their binaries: refuse it.
    if (dir.rfind("/tmp/", 0) == 0 && stat(dir.c_str(), &st) == 0 && st.st_uid != getuid()) {
      if (DebugLevel() >= 1) std::fprintf(stderr, "disk cache off: %s belongs to another user\n", dir.c_str());
      return nullptr;
    }
    absl::StatusOr<std::unique_ptr<DiskCache>> opened = Open(dir + "/cache.db");
    if (!opened.ok()) {
      if (DebugLevel() >= 1) std::fprintf(stderr, "disk cache off: %s\n", std::string(opened.status().message()).c_str());
      return nullptr;
    }
    return opened->release();  // leaked: used until exit, and sqlite needs no flush (WAL commits are durable)
  }();
  return cache;
}

absl::StatusOr<std::unique_ptr<DiskCache>> DiskCache::Open(const std::string& path) {
  std::string dir = path.substr(0, path.rfind('/'));
  if (!dir.empty() && !MakeDirs(dir))
    return absl::UnavailableError(absl::StrCat("cannot create cache directory ", dir, ": ", strerror(errno)));
  std::unique_ptr<DiskCache> cache(new DiskCache(path));
  std::lock_guard<std::mutex> lock(cache->mu_);
  if (absl::Status s = cache->Connect(); !s.ok()) return s;
  return cache;
}

DiskCache::~DiskCache() { Close(); }

void DiskCache::Close() {
  if (db_ != nullptr) sqlite3_close_v2(db_);
  db_ = nullptr;
}

absl::Status DiskCache::Connect() {
  absl::Status s = ConnectOnce();
  // Only a file sqlite calls corrupt is replaced (kept for a post-mortem); a busy or unwritable
  // database is left alone and the cache stays off.
  if (s.code() == absl::StatusCode::kDataLoss) {
    MoveAside();
    s = ConnectOnce();
  }
  if (!s.ok()) Close();
  return s;
}

absl::Status DiskCache::ConnectOnce() {
  Close();
  int rc = sqlite3_open_v2(path_.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
  if (rc != SQLITE_OK) {
    absl::Status s = absl::UnavailableError(absl::StrCat("sqlite cannot open ", path_, ": ", sqlite3_errstr(rc)));
    Close();
    return s;
  }
  chmod(path_.c_str(), 0600);
  sqlite3_busy_timeout(db_, kBusyTimeoutMs);  // another process's write transaction is milliseconds long
  rc = EnterWalMode();
  if (!IsOk(rc)) return Failure(rc, absl::StrCat(path_, ": ", sqlite3_errstr(rc)));
  Run("PRAGMA synchronous=NORMAL", {});  // WAL + NORMAL: a crash loses at most the last commits, never the file
  return EnsureSchema();
}

// The switch reads the file, then asks for its write lock. While another connection holds that lock (the
// first process to open a new file, writing its WAL header), sqlite answers SQLITE_BUSY at once rather than
// wait in the busy handler, since a reader waiting on a writer could deadlock; outside a transaction we
// hold nothing it waits for, so trying again is safe, for as long as the busy timeout would have waited.
int DiskCache::EnterWalMode() {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kBusyTimeoutMs);
  for (;;) {
    std::vector<std::string> mode;
    int rc = Run("PRAGMA journal_mode=WAL", {}, &mode);
    if ((rc & 0xff) != SQLITE_BUSY || std::chrono::steady_clock::now() > deadline) return rc;
    sqlite3_sleep(5);
  }
}

absl::Status DiskCache::EnsureSchema() {
  // Checked and rebuilt inside one write transaction, so two processes opening an old file
  // rebuild it once, and a reader never sees half a schema.
  int rc = Run("BEGIN IMMEDIATE", {});
  std::vector<std::string> version;
  if (IsOk(rc)) rc = Run("PRAGMA user_version", {}, &version);
  if (IsOk(rc) && (version.empty() || version[0] != std::to_string(kSchemaVersion))) {
    if (DebugLevel() >= 1 && !version.empty() && version[0] != "0")
      std::fprintf(stderr, "disk cache %s: schema %s, want %d: rebuilding\n", path_.c_str(), version[0].c_str(),
                   kSchemaVersion);
    for (const char* sql : kSchema)
      if (IsOk(rc)) rc = Run(sql, {});
    if (IsOk(rc)) rc = Run(absl::StrCat("PRAGMA user_version=", kSchemaVersion), {});
  }
  if (IsOk(rc)) rc = Run("COMMIT", {});
  if (IsOk(rc)) return absl::OkStatus();
  absl::Status s = Failure(rc, absl::StrCat(path_, ": schema: ", sqlite3_errmsg(db_)));
  Run("ROLLBACK", {});
  return s;
}

void DiskCache::MoveAside() {
  Close();
  std::string aside = absl::StrCat(path_, ".corrupt-", getpid());
  if (DebugLevel() >= 1) std::fprintf(stderr, "disk cache %s is corrupt: moved to %s\n", path_.c_str(), aside.c_str());
  rename(path_.c_str(), aside.c_str());
  unlink((path_ + "-wal").c_str());
  unlink((path_ + "-shm").c_str());
}

int DiskCache::Run(std::string_view sql, std::initializer_list<Param> params, std::vector<std::string>* row) {
  if (db_ == nullptr) return SQLITE_MISUSE;
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &stmt, nullptr);
  if (rc != SQLITE_OK) return rc;
  int i = 1;
  for (const Param& p : params) {
    rc = p.blob ? sqlite3_bind_blob64(stmt, i++, p.value.data(), p.value.size(), SQLITE_TRANSIENT)
                : sqlite3_bind_text64(stmt, i++, p.value.data(), p.value.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
    if (rc != SQLITE_OK) break;
  }
  if (rc == SQLITE_OK) rc = sqlite3_step(stmt);
  if (rc == SQLITE_ROW && row != nullptr) {
    for (int c = 0; c < sqlite3_column_count(stmt); ++c) {
      const void* data = sqlite3_column_blob(stmt, c);
      row->emplace_back(static_cast<const char*>(data), data ? sqlite3_column_bytes(stmt, c) : 0);
    }
  }
  sqlite3_finalize(stmt);
  return rc;
}

void DiskCache::OnError(int rc, std::string_view what) {
  if (DebugLevel() >= 1) std::fprintf(stderr, "disk cache %s: %.*s: %s\n", path_.c_str(),
                                      static_cast<int>(what.size()), what.data(), sqlite3_errstr(rc));
  if (!IsCorruption(rc)) return;
  MoveAside();
  if (absl::Status s = ConnectOnce(); !s.ok()) Close();  // then the cache stays off in this process
}

std::optional<CachedBinary> DiskCache::GetProgram(std::string_view key) {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> row;
  int rc = Run("SELECT format, bytes, checksum FROM programs WHERE key = ?", {key}, &row);
  if (!IsOk(rc)) OnError(rc, "reading a program");
  if (rc != SQLITE_ROW || row.size() != 3) return std::nullopt;
  if (row[2] != Checksum({key, row[0], row[1]})) {
    if (DebugLevel() >= 1) std::fprintf(stderr, "disk cache %s: program row fails its checksum: dropped\n", path_.c_str());
    Run("DELETE FROM programs WHERE key = ?", {key});
    return std::nullopt;
  }
  return CachedBinary{std::move(row[0]), std::move(row[1])};
}

void DiskCache::PutProgram(std::string_view key, const CachedBinary& binary) {
  std::lock_guard<std::mutex> lock(mu_);
  std::string sum = Checksum({key, binary.format, binary.bytes});
  int rc = Run("INSERT OR REPLACE INTO programs (key, format, bytes, checksum) VALUES (?, ?, ?, ?)",
               {key, binary.format, Param(binary.bytes, /*blob=*/true), sum});
  if (!IsOk(rc)) OnError(rc, "storing a program");
}

void DiskCache::DropProgram(std::string_view key) {
  std::lock_guard<std::mutex> lock(mu_);
  int rc = Run("DELETE FROM programs WHERE key = ?", {key});
  if (!IsOk(rc)) OnError(rc, "dropping a program");
}

std::optional<std::string> DiskCache::GetBeam(std::string_view ast_key, std::string_view device_key, int beam) {
  std::lock_guard<std::mutex> lock(mu_);
  std::string n = std::to_string(beam);
  std::vector<std::string> row;
  int rc = Run("SELECT opts, checksum FROM beam WHERE ast_key = ? AND device_key = ? AND beam_n = ?",
               {ast_key, device_key, n}, &row);
  if (!IsOk(rc)) OnError(rc, "reading BEAM opts");
  if (rc != SQLITE_ROW || row.size() != 2) return std::nullopt;
  if (row[1] != Checksum({ast_key, device_key, n, row[0]})) {
    if (DebugLevel() >= 1) std::fprintf(stderr, "disk cache %s: BEAM row fails its checksum: dropped\n", path_.c_str());
    Run("DELETE FROM beam WHERE ast_key = ? AND device_key = ? AND beam_n = ?", {ast_key, device_key, n});
    return std::nullopt;
  }
  return std::move(row[0]);
}

void DiskCache::PutBeam(std::string_view ast_key, std::string_view device_key, int beam, std::string_view opts) {
  std::lock_guard<std::mutex> lock(mu_);
  std::string n = std::to_string(beam);
  int rc = Run("INSERT OR REPLACE INTO beam (ast_key, device_key, beam_n, opts, checksum) VALUES (?, ?, ?, ?, ?)",
               {ast_key, device_key, n, opts, Checksum({ast_key, device_key, n, opts})});
  if (!IsOk(rc)) OnError(rc, "storing BEAM opts");
}

}  // namespace tg::runtime
