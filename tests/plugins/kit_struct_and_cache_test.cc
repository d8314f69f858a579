// kit_struct_and_cache_test.cc: the plugin kit's struct_size-bounded reads and writes
// (plugins/kit/sized_struct.h) and its cache directory choice (plugins/kit/cache_dir.h).
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <string>

#include "gtest/gtest.h"
#include "plugins/abi/tg_plugin.h"
#include "plugins/kit/cache_dir.h"
#include "plugins/kit/sized_struct.h"

namespace {

TEST(KitSizedStructTest, ReadSizedZeroesWhatAnOlderCallerDidNotKnow) {
  tg_launch_args full;
  std::memset(&full, 0x5a, sizeof full);  // garbage past the caller's size
  full.struct_size = TG_SIZE_TO(tg_launch_args, program);
  tg_launch_args got = tg_kit::ReadSized(&full);
  EXPECT_EQ(got.struct_size, sizeof(tg_launch_args));
  EXPECT_EQ(got.program, full.program);  // known: copied
  EXPECT_EQ(got.num_args, 0u);           // unknown: the default
  EXPECT_EQ(got.args, nullptr);
}

TEST(KitSizedStructTest, WriteSizedStopsAtTheCallersSize) {
  tg_device_props full{};
  full.struct_size = sizeof full;
  full.name = "kit device";
  full.compute_units = 7;
  alignas(tg_device_props) unsigned char raw[sizeof(tg_device_props) + 16];
  std::memset(raw, 0xee, sizeof raw);
  auto* short_props = reinterpret_cast<tg_device_props*>(raw);
  short_props->struct_size = TG_SIZE_TO(tg_device_props, name);
  tg_kit::WriteSized(full, short_props);
  EXPECT_EQ(short_props->struct_size, TG_SIZE_TO(tg_device_props, name));  // the caller's, kept
  EXPECT_STREQ(short_props->name, "kit device");
  for (size_t i = TG_SIZE_TO(tg_device_props, name); i < sizeof raw; ++i) {
    ASSERT_EQ(raw[i], 0xee) << "byte " << i << " past the caller's struct was written";
  }
}

// A fresh directory under the test's temporary directory.
std::string TempDir(const char* name) {
  const char* base = getenv("TEST_TMPDIR");
  std::string dir = std::string(base != nullptr ? base : "/tmp") + "/" + name;
  mkdir(dir.c_str(), 0700);
  return dir;
}

TEST(KitCacheDirTest, TgCacheDirComesFirstAndIsCreated) {
  std::string base = TempDir("kit_cache_first") + "/not/yet";
  setenv("TG_CACHE_DIR", base.c_str(), 1);
  std::string why;
  EXPECT_EQ(tg_kit::MakeCacheDir("acme", &why), base + "/acme") << why;
  struct stat st;
  ASSERT_EQ(stat((base + "/acme").c_str(), &st), 0);
  EXPECT_TRUE(S_ISDIR(st.st_mode));
  EXPECT_EQ(st.st_mode & 0777, 0700u);  // it will hold code we run
  unsetenv("TG_CACHE_DIR");
}

TEST(KitCacheDirTest, AnUnusableCandidateFallsThroughToTheNext) {
  std::string blocker = TempDir("kit_cache_fall") + "/a_file";
  std::ofstream(blocker) << "not a directory";
  std::string xdg = TempDir("kit_cache_xdg");
  setenv("TG_CACHE_DIR", blocker.c_str(), 1);
  setenv("XDG_CACHE_HOME", xdg.c_str(), 1);
  std::string why;
  EXPECT_EQ(tg_kit::MakeCacheDir("acme", &why), xdg + "/tinygrad-cc/acme") << why;
  unsetenv("TG_CACHE_DIR");
  unsetenv("XDG_CACHE_HOME");
}

TEST(KitCacheDirTest, TheListOfCandidatesEndsInAPerUserTmpDirectory) {
  unsetenv("TG_CACHE_DIR");
  unsetenv("XDG_CACHE_HOME");
  unsetenv("HOME");
  auto bases = tg_kit::CacheBases();
  ASSERT_EQ(bases.size(), 1u);
  EXPECT_EQ(bases[0], "/tmp/tinygrad-cc-" + std::to_string(getuid()));
}

}  // namespace
