// `tg --version` and `tg version`: the release and the plugin ABI on one line, exit 0; `tg --help` names it.
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

#include "gtest/gtest.h"
#include "ir/version.h"
#include "plugins/abi/tg_plugin.h"

namespace {

constexpr char kTg[] = "tools/tg";  // a data dependency, in the runfiles

struct TgRun {
  std::string out;
  int status = -1;
};

TgRun RunTg(const std::string& args) {
  TgRun run;
  FILE* pipe = popen((std::string(kTg) + " " + args + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return run;
  std::array<char, 256> chunk;
  size_t n;
  while ((n = fread(chunk.data(), 1, chunk.size(), pipe)) > 0) run.out.append(chunk.data(), n);
  const int raw = pclose(pipe);
  run.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return run;
}

std::string ExpectedLine() {
  return std::string("tinygrad-cc ") + TG_VERSION_STRING + " (plugin ABI " + std::to_string(TG_ABI_MAJOR) + "." +
         std::to_string(TG_ABI_MINOR) + ")\n";
}

TEST(TgVersion, FlagPrintsTheReleaseAndTheAbi) {
  TgRun run = RunTg("--version");
  EXPECT_EQ(run.status, 0) << run.out;
  EXPECT_EQ(run.out, ExpectedLine());
}

TEST(TgVersion, SubcommandPrintsTheSameLine) {
  TgRun run = RunTg("version");
  EXPECT_EQ(run.status, 0) << run.out;
  EXPECT_EQ(run.out, ExpectedLine());
}

TEST(TgVersion, HelpMentionsIt) {
  TgRun run = RunTg("--help");
  EXPECT_EQ(run.status, 0) << run.out;
  EXPECT_NE(run.out.find("--version"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("  version "), std::string::npos) << run.out;
}

TEST(TgVersion, ExtraArgumentsAreRefused) {
  EXPECT_EQ(RunTg("--version extra").status, 2);
}

}  // namespace
