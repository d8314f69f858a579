// What a release ships beside the code: the license, the SPDX line on every file a vendor builds
// against or copies (the ABI headers, the kit, the null template), and a changelog entry for the version
// ir/version.h names. Files come through Bazel `data`, read from the runfiles.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "gtest/gtest.h"
#include "ir/version.h"

namespace {

constexpr char kSpdx[] = "SPDX-License-Identifier: Apache-2.0";

std::string Read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string FirstLine(const std::string& text) { return text.substr(0, text.find('\n')); }

TEST(ReleaseFiles, LicenseIsApache2) {
  const std::string text = Read("LICENSE");
  ASSERT_FALSE(text.empty()) << "no LICENSE in the runfiles";
  // Debian's copy, taken verbatim, opens with a blank line and centring spaces.
  const size_t start = text.find_first_not_of(" \n");
  EXPECT_EQ(text.compare(start, 14, "Apache License"), 0) << text.substr(0, 200);
  EXPECT_NE(text.find("Version 2.0, January 2004"), std::string::npos);
}

TEST(ReleaseFiles, PluginHeaderCarriesSpdx) {
  const std::string text = Read("plugins/abi/tg_plugin.h");
  ASSERT_FALSE(text.empty()) << "no tg_plugin.h in the runfiles";
  EXPECT_NE(FirstLine(text).find(kSpdx), std::string::npos) << FirstLine(text);
}

// A new header or template file without the line fails here, whoever adds it.
TEST(ReleaseFiles, EveryVendorFacingFileCarriesSpdx) {
  int checked = 0;
  for (const char* dir : {"plugins/abi", "plugins/kit", "plugins/null"}) {
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      const std::string path = entry.path().string();
      const std::string ext = entry.path().extension().string();
      if (ext != ".h" && ext != ".c") continue;
      EXPECT_NE(FirstLine(Read(path)).find(kSpdx), std::string::npos) << path;
      ++checked;
    }
  }
  EXPECT_GE(checked, 3) << "the data of this test lost the files it checks";
}

// Cutting a release moves "Unreleased" under the new number (docs/releasing.md); a bump without it fails.
TEST(ReleaseFiles, ChangelogHasTheCurrentVersion) {
  const std::string text = Read("CHANGELOG.md");
  ASSERT_FALSE(text.empty()) << "no CHANGELOG.md in the runfiles";
  EXPECT_NE(text.find("## [Unreleased]"), std::string::npos);
  EXPECT_NE(text.find(std::string("## [") + TG_VERSION_STRING + "]"), std::string::npos) << TG_VERSION_STRING;
}

}  // namespace
