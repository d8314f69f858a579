// kit_process_dir_test.cc: a cache directory of one process's own (plugins/kit/process_dir.h), kept
// while its process lives and swept by the next process once it has ended.
#include <stdlib.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "gtest/gtest.h"
#include "plugins/kit/process_dir.h"

namespace {

namespace fs = std::filesystem;

// TG_CACHE_DIR pointed at a fresh directory under the test's temporary directory; returns <it>/scratch.
std::string FreshCache(const char* name) {
  const char* tmp = getenv("TEST_TMPDIR");
  std::string base = std::string(tmp != nullptr ? tmp : "/tmp") + "/" + name;
  fs::remove_all(base);
  fs::create_directories(base);
  setenv("TG_CACHE_DIR", base.c_str(), 1);
  return base + "/scratch";
}

TEST(KitProcessDirTest, IsNewNamedAfterThisProcessAndTheSameOnASecondCall) {
  std::string parent = FreshCache("kit_process_own");
  std::string why;
  std::string dir = tg_kit::MakeProcessCacheDir("scratch", &why);
  ASSERT_NE(dir, "") << why;
  std::string prefix = parent + "/" + std::to_string(getpid()) + "-";
  EXPECT_EQ(dir.substr(0, prefix.size()), prefix);
  EXPECT_TRUE(fs::is_directory(dir));
  EXPECT_TRUE(fs::is_empty(dir));
  EXPECT_TRUE(fs::exists(dir + ".lock"));
  std::ofstream(dir + "/kernel.so") << "code";
  EXPECT_EQ(tg_kit::MakeProcessCacheDir("scratch", &why), dir);
  EXPECT_TRUE(fs::exists(dir + "/kernel.so")) << "a second call must not empty the directory in use";
}

TEST(KitProcessDirTest, DirectoriesOfEndedProcessesAreSwept) {
  std::string parent = FreshCache("kit_process_sweep");
  fs::create_directories(parent + "/4000001-ab/kernels");  // its lock file exists, no one holds it
  std::ofstream(parent + "/4000001-ab.lock");
  fs::create_directories(parent + "/4000002-cd");  // no lock file at all
  std::ofstream(parent + "/4000003-ef.lock");      // a lock whose directory was never made
  fs::create_directories(parent + "/not_a_process_dir");  // not ours to judge
  std::string why;
  ASSERT_NE(tg_kit::MakeProcessCacheDir("scratch", &why), "") << why;
  EXPECT_FALSE(fs::exists(parent + "/4000001-ab"));
  EXPECT_FALSE(fs::exists(parent + "/4000001-ab.lock"));
  EXPECT_FALSE(fs::exists(parent + "/4000002-cd"));
  EXPECT_FALSE(fs::exists(parent + "/4000003-ef.lock"));
  EXPECT_TRUE(fs::exists(parent + "/not_a_process_dir"));
}

TEST(KitProcessDirTest, ALiveProcesssDirectoryIsKeptUntilItEnds) {
  std::string parent = FreshCache("kit_process_live");
  int ready[2], release[2];
  ASSERT_EQ(pipe(ready), 0);
  ASSERT_EQ(pipe(release), 0);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {  // takes its directory, sends its path, and waits to be told to end
    std::string dir = tg_kit::MakeProcessCacheDir("scratch", nullptr);
    std::ofstream(dir + "/kernel.so") << "code";
    dir.push_back('\n');
    char c;
    if (write(ready[1], dir.data(), dir.size()) != static_cast<ssize_t>(dir.size()) || read(release[0], &c, 1) != 1)
      _exit(2);
    _exit(0);
  }
  std::string theirs;
  for (char c; read(ready[0], &c, 1) == 1 && c != '\n';) theirs.push_back(c);
  ASSERT_NE(theirs, "");
  std::string why;
  ASSERT_NE(tg_kit::MakeProcessCacheDir("scratch", &why), "") << why;
  EXPECT_TRUE(fs::exists(theirs + "/kernel.so")) << "a live process's directory was swept";

  char c = 'x';
  ASSERT_EQ(write(release[1], &c, 1), 1);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  ASSERT_NE(tg_kit::MakeProcessCacheDir("scratch", &why), "") << why;
  EXPECT_FALSE(fs::exists(theirs)) << "an ended process's directory was kept";
}

}  // namespace
