// Which dialect the CPU plugin asks the host to render first (plugins/cpu/dialect_choice.h).
#include "plugins/cpu/dialect_choice.h"

#include <stdlib.h>

#include <algorithm>
#include <fstream>
#include <string>

#include "gtest/gtest.h"

namespace tg_cpu {
namespace {

std::string First(const char* requested, bool sanitized, bool llvm_installed) {
  return ChooseDialects(requested, sanitized, llvm_installed).first;
}

TEST(CpuDialectChoice, LlvmIrFirstByDefault) {
  EXPECT_EQ(First(nullptr, false, true), "llvm-ir");
  EXPECT_EQ(First("", false, true), "llvm-ir");
  EXPECT_STREQ(ChooseDialects(nullptr, false, true).second, "c");
}

TEST(CpuDialectChoice, CWhereLlvmIrWouldNotServe) {
  EXPECT_EQ(First(nullptr, true, true), "c") << "sanitizer builds instrument C kernels only";
  EXPECT_EQ(First(nullptr, false, false), "c") << "no libLLVM-15 installed";
  EXPECT_STREQ(ChooseDialects(nullptr, false, false).second, "llvm-ir");
}

TEST(CpuDialectChoice, TheEnvironmentDecidesWhenItNamesADialect) {
  EXPECT_EQ(First("c", false, true), "c");
  EXPECT_EQ(First("llvm-ir", true, false), "llvm-ir");
  EXPECT_EQ(First("gcc", false, true), "llvm-ir") << "an unknown value counts as unset";
  EXPECT_EQ(First("gcc", true, true), "c");
}

TEST(CpuDialectChoice, LibraryInstalledLooksInEachDirectory) {
  std::string dir = ::testing::TempDir() + "/dialect_choice_lib";
  ASSERT_EQ(system(("mkdir -p " + dir).c_str()), 0);
  std::ofstream(dir + "/libfake.so.1") << "x";
  EXPECT_TRUE(LibraryInstalled("libfake.so.1", {"/nonexistent", dir}));
  EXPECT_FALSE(LibraryInstalled("libfake.so.1", {"/nonexistent"}));
  EXPECT_FALSE(LibraryInstalled("libmissing.so.1", {dir}));
}

TEST(CpuDialectChoice, SearchDirsStartWithLdLibraryPath) {
  setenv("LD_LIBRARY_PATH", "/opt/a::/opt/b", 1);
  std::vector<std::string> dirs = LibrarySearchDirs();
  ASSERT_GE(dirs.size(), 3u);
  EXPECT_EQ(dirs[0], "/opt/a");
  EXPECT_EQ(dirs[1], "/opt/b") << "empty entries are skipped";
  EXPECT_NE(std::find(dirs.begin(), dirs.end(), "/usr/lib/x86_64-linux-gnu"), dirs.end());
}

}  // namespace
}  // namespace tg_cpu
