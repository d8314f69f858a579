// DiskCache: round trips, and that nothing damaged is ever trusted: a row failing its checksum,
// an old schema, a file that is not a database. Plus two processes writing at once.
#include "runtime/disk_cache.h"

#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>

#include "gtest/gtest.h"

namespace tg::runtime {
namespace {

std::string FreshPath(const std::string& name) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  std::string dir = std::string(tmp ? tmp : "/tmp") + "/disk_cache_test_" + name + "_" + std::to_string(getpid());
  return dir + "/cache.db";
}

// Raw SQL on the file behind the cache's back, as a damaged disk or an old version would leave it.
void RawSql(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* err = nullptr;
  EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err), SQLITE_OK) << (err ? err : "");
  sqlite3_free(err);
  sqlite3_close(db);
}

int64_t RawCount(const std::string& path, const std::string& table) {
  sqlite3* db = nullptr;
  sqlite3_open(path.c_str(), &db);
  sqlite3_stmt* st = nullptr;
  int64_t n = -1;
  if (sqlite3_prepare_v2(db, ("SELECT COUNT(*) FROM " + table).c_str(), -1, &st, nullptr) == SQLITE_OK &&
      sqlite3_step(st) == SQLITE_ROW)
    n = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  sqlite3_close(db);
  return n;
}

std::unique_ptr<DiskCache> OpenOrDie(const std::string& path) {
  absl::StatusOr<std::unique_ptr<DiskCache>> c = DiskCache::Open(path);
  EXPECT_TRUE(c.ok()) << c.status();
  return c.ok() ? *std::move(c) : nullptr;
}

const std::string kBinary("\x7f" "ELF\0\1\2 binary bytes", 20);

TEST(DiskCache, RoundTrip) {
  auto cache = OpenOrDie(FreshPath("roundtrip"));
  ASSERT_NE(cache, nullptr);
  EXPECT_FALSE(cache->GetProgram("k1").has_value());
  cache->PutProgram("k1", {"elf-so", kBinary});
  std::optional<CachedBinary> got = cache->GetProgram("k1");
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->format, "elf-so");
  EXPECT_EQ(got->bytes, kBinary);  // binary-safe: the NUL inside survives
  cache->PutProgram("k1", {"elf-so", "newer"});
  EXPECT_EQ(cache->GetProgram("k1")->bytes, "newer");
  cache->DropProgram("k1");
  EXPECT_FALSE(cache->GetProgram("k1").has_value());

  cache->PutBeam("ast", "CPU|fp|c", 2, "UPCAST:0:4;UNROLL:1:8");
  EXPECT_EQ(cache->GetBeam("ast", "CPU|fp|c", 2), "UPCAST:0:4;UNROLL:1:8");
  EXPECT_FALSE(cache->GetBeam("ast", "CPU|fp|c", 3).has_value());  // BEAM width is part of the key
  EXPECT_FALSE(cache->GetBeam("ast", "CUDA|fp|c", 2).has_value());
}

TEST(DiskCache, SurvivesReopen) {
  std::string path = FreshPath("reopen");
  OpenOrDie(path)->PutProgram("k", {"elf-so", kBinary});
  EXPECT_EQ(OpenOrDie(path)->GetProgram("k")->bytes, kBinary);
}

TEST(DiskCache, RowFailingItsChecksumIsDroppedNotTrusted) {
  std::string path = FreshPath("corrupt_row");
  auto cache = OpenOrDie(path);
  cache->PutProgram("k", {"elf-so", kBinary});
  cache->PutBeam("ast", "dev", 1, "UPCAST:0:4");
  // One byte of the binary flipped, and an edited opts text: both keep their old checksums.
  RawSql(path, "UPDATE programs SET bytes = X'7F454C47' || substr(bytes, 5) WHERE key = 'k'");
  RawSql(path, "UPDATE beam SET opts = 'UPCAST:0:8'");
  EXPECT_FALSE(cache->GetProgram("k").has_value());
  EXPECT_FALSE(cache->GetBeam("ast", "dev", 1).has_value());
  EXPECT_EQ(RawCount(path, "programs"), 0);  // deleted, so the next run recompiles and rewrites it
  EXPECT_EQ(RawCount(path, "beam"), 0);
  cache->PutProgram("k", {"elf-so", kBinary});
  EXPECT_EQ(cache->GetProgram("k")->bytes, kBinary);
}

TEST(DiskCache, OldSchemaVersionIsRebuilt) {
  std::string path = FreshPath("old_schema");
  OpenOrDie(path)->PutProgram("k", {"elf-so", kBinary});
  // What an older release might have left: another layout under another version number.
  RawSql(path, "DROP TABLE programs; CREATE TABLE programs (key TEXT, blob BLOB);"
               "INSERT INTO programs VALUES ('k', X'00'); PRAGMA user_version = 0;");
  auto cache = OpenOrDie(path);
  EXPECT_FALSE(cache->GetProgram("k").has_value());
  cache->PutProgram("k", {"elf-so", kBinary});
  EXPECT_EQ(cache->GetProgram("k")->bytes, kBinary);
  RawSql(path, "PRAGMA user_version = 999");  // a newer release's file is not trusted either
  EXPECT_FALSE(OpenOrDie(path)->GetProgram("k").has_value());
}

TEST(DiskCache, CorruptFileIsMovedAsideAndRecreated) {
  std::string path = FreshPath("corrupt_file");
  OpenOrDie(path).reset();
  unlink((path + "-wal").c_str());
  unlink((path + "-shm").c_str());
  std::ofstream(path, std::ios::trunc | std::ios::binary) << std::string(8192, 'x');
  auto cache = OpenOrDie(path);
  ASSERT_NE(cache, nullptr);
  cache->PutProgram("k", {"elf-so", kBinary});
  EXPECT_EQ(cache->GetProgram("k")->bytes, kBinary);
  std::string aside = path + ".corrupt-" + std::to_string(getpid());
  EXPECT_EQ(access(aside.c_str(), F_OK), 0) << "the damaged file is kept for a post-mortem";
}

// Each child opens its own connection (sqlite connections must not cross fork) and writes rows
// of its own plus rows both write; every row must come back intact.
TEST(DiskCache, TwoProcessesWriteConcurrently) {
  std::string path = FreshPath("concurrent");
  constexpr int kRows = 150;
  pid_t kids[2];
  for (int c = 0; c < 2; ++c) {
    kids[c] = fork();
    ASSERT_GE(kids[c], 0);
    if (kids[c] == 0) {
      absl::StatusOr<std::unique_ptr<DiskCache>> cache = DiskCache::Open(path);
      if (!cache.ok()) {
        std::fprintf(stderr, "child %d: %s\n", c, cache.status().ToString().c_str());
        _exit(2);
      }
      for (int i = 0; i < kRows; ++i) {
        std::string tag = std::to_string(c) + "-" + std::to_string(i);
        (*cache)->PutProgram("own" + tag, {"elf-so", kBinary + tag});
        (*cache)->PutProgram("shared" + std::to_string(i), {"elf-so", kBinary});
        (*cache)->PutBeam("ast" + tag, "dev", 2, "UPCAST:0:" + std::to_string(i + 1));
      }
      _exit(0);
    }
  }
  for (pid_t kid : kids) {
    int status = 0;
    ASSERT_EQ(waitpid(kid, &status, 0), kid);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child status " << status;
  }
  auto cache = OpenOrDie(path);
  for (int c = 0; c < 2; ++c) {
    for (int i = 0; i < kRows; ++i) {
      std::string tag = std::to_string(c) + "-" + std::to_string(i);
      std::optional<CachedBinary> own = cache->GetProgram("own" + tag);
      ASSERT_TRUE(own.has_value()) << tag;
      EXPECT_EQ(own->bytes, kBinary + tag);
      EXPECT_EQ(cache->GetProgram("shared" + std::to_string(i))->bytes, kBinary);
      EXPECT_EQ(cache->GetBeam("ast" + tag, "dev", 2), "UPCAST:0:" + std::to_string(i + 1));
    }
  }
  EXPECT_EQ(RawCount(path, "programs"), 3 * kRows);
}

// Switching a new file to WAL starts as a read and then asks for the write lock. While another connection
// holds that lock (its first write transaction on a rollback-journal file), sqlite answers "database is
// locked" at once instead of calling the busy handler: the first two processes to open a fresh cache meet
// this when one is still writing the WAL header. Open must wait for it as it waits for any writer.
TEST(DiskCache, OpenWaitsForTheFirstWriterOfANewFile) {
  std::string path = FreshPath("writer_holds_new_file");
  ASSERT_EQ(system(("mkdir -p $(dirname " + path + ")").c_str()), 0);
  sqlite3* writer = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &writer), SQLITE_OK);
  sqlite3_busy_timeout(writer, 10000);  // its COMMIT waits out Open's brief reads of the file
  ASSERT_EQ(sqlite3_exec(writer, "BEGIN IMMEDIATE; CREATE TABLE t (x);", nullptr, nullptr, nullptr), SQLITE_OK);
  std::thread commit_later([writer] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    EXPECT_EQ(sqlite3_exec(writer, "COMMIT", nullptr, nullptr, nullptr), SQLITE_OK);
  });
  absl::StatusOr<std::unique_ptr<DiskCache>> cache = DiskCache::Open(path);
  commit_later.join();
  sqlite3_close(writer);
  ASSERT_TRUE(cache.ok()) << cache.status();
  (*cache)->PutProgram("k", {"elf-so", kBinary});
  EXPECT_EQ((*cache)->GetProgram("k")->bytes, kBinary);
}

TEST(DiskCache, DefaultDirWorksWithoutHome) {
  std::string saved_home = std::getenv("HOME") ? std::getenv("HOME") : "";
  std::string saved_dir = std::getenv("TG_CACHE_DIR") ? std::getenv("TG_CACHE_DIR") : "";
  unsetenv("HOME");
  unsetenv("XDG_CACHE_HOME");
  unsetenv("TG_CACHE_DIR");
  EXPECT_EQ(DiskCache::DefaultDir(), "/tmp/tinygrad-cc-" + std::to_string(getuid()));
  setenv("TG_CACHE_DIR", "/some/dir", 1);
  EXPECT_EQ(DiskCache::DefaultDir(), "/some/dir");
  if (!saved_home.empty()) setenv("HOME", saved_home.c_str(), 1);
  if (!saved_dir.empty()) setenv("TG_CACHE_DIR", saved_dir.c_str(), 1);
  else unsetenv("TG_CACHE_DIR");
}

}  // namespace
}  // namespace tg::runtime
