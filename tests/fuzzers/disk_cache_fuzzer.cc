// Fuzz target: rows of the sqlite disk cache (runtime/disk_cache.h) written by someone else: another version,
// a crashed process, a bit flip. The input is split into the columns of one programs row and one beam row,
// written with raw SQL; DiskCache must return nothing or exactly a row whose checksum holds, never crash, and a
// rejected row must be rebuilt by the next put.
#include <sqlite3.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "runtime/disk_cache.h"

namespace {

// Splits |data| at 0xFF bytes into at most |n| fields (missing ones empty).
std::vector<std::string> Fields(const uint8_t* data, size_t size, size_t n) {
  std::vector<std::string> out(1);
  for (size_t i = 0; i < size; ++i) {
    if (data[i] == 0xFF && out.size() < n) out.emplace_back();
    else out.back() += static_cast<char>(data[i]);
  }
  out.resize(n);
  return out;
}

struct Db {
  std::string path;
  std::unique_ptr<tg::runtime::DiskCache> cache;
  sqlite3* raw = nullptr;
};

Db& Get() {
  static Db db = [] {
    Db d;
    const char* dir = std::getenv("TEST_TMPDIR");
    d.path = std::string(dir ? dir : "/tmp") + "/tg_disk_cache_fuzz_" + std::to_string(getpid()) + ".db";
    unlink(d.path.c_str());
    d.cache = std::move(tg::runtime::DiskCache::Open(d.path).value());
    if (sqlite3_open(d.path.c_str(), &d.raw) != SQLITE_OK) std::abort();
    sqlite3_busy_timeout(d.raw, 5000);
    // The raw writer stands for another process; its rows need no durability. Left at sqlite's default
    // (FULL) each of its two commits per input was an fsync of the WAL, which bounded the run at ~60 inputs/s.
    if (sqlite3_exec(d.raw, "PRAGMA synchronous=OFF", nullptr, nullptr, nullptr) != SQLITE_OK) std::abort();
    return d;
  }();
  return db;
}

void Exec(sqlite3* db, const char* sql, const std::vector<std::string>& params, bool blob_last) {
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(db, sql, -1, &st, nullptr) != SQLITE_OK) std::abort();
  for (size_t i = 0; i < params.size(); ++i) {
    const std::string& p = params[i];
    if (blob_last && i + 1 == params.size()) sqlite3_bind_blob(st, i + 1, p.data(), p.size(), SQLITE_TRANSIENT);
    else sqlite3_bind_text(st, i + 1, p.data(), p.size(), SQLITE_TRANSIENT);
  }
  sqlite3_step(st);
  sqlite3_finalize(st);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Db& db = Get();
  std::vector<std::string> f = Fields(data, size, 8);
  // programs(key, format, bytes, checksum): bytes last so it can be a blob
  Exec(db.raw, "INSERT OR REPLACE INTO programs (key, format, checksum, bytes) VALUES (?, ?, ?, ?)",
       {f[0], f[1], f[3], f[2]}, true);
  auto got = db.cache->GetProgram(f[0]);
  if (got && (got->format != f[1] || got->bytes != f[2])) std::abort();
  if (!got) {  // a rejected row is rebuilt: the next put under its key reads back
    db.cache->PutProgram(f[0], {f[1], f[2]});
    auto rebuilt = db.cache->GetProgram(f[0]);
    if (!rebuilt || rebuilt->format != f[1] || rebuilt->bytes != f[2]) std::abort();
  }
  Exec(db.raw, "INSERT OR REPLACE INTO beam (ast_key, device_key, beam_n, opts, checksum) VALUES (?, ?, ?, ?, ?)",
       {f[4], f[5], f[6], f[7], f[3]}, false);
  (void)db.cache->GetBeam(f[4], f[5], static_cast<int>(f[6].size()));
  // A round trip through the API always reads back.
  db.cache->PutProgram(f[1], {f[0], f[2]});
  auto back = db.cache->GetProgram(f[1]);
  if (!back || back->bytes != f[2] || back->format != f[0]) std::abort();
  return 0;
}
