// `tg viz`: runs a program with VIZ=1, which writes its page at exit; the command says where, passes the
// program's exit status through, and says so when no page came.
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "gtest/gtest.h"
#include "tools/viz_command.h"

namespace tg::tools {
namespace {

constexpr char kProgram[] = "tests/viz/viz_program";  // a data dependency, in the runfiles

std::string Read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string TempPath(const std::string& name) { return std::string(std::getenv("TEST_TMPDIR")) + "/" + name; }

TEST(VizCommand, RunsTheProgramAndSaysWhereItsPageIs) {
  VizOptions options;
  options.out = TempPath("run.html");
  options.program = {kProgram};
  std::ostringstream out, err;
  ASSERT_EQ(VizCommand(options, out, err), 0) << err.str();
  EXPECT_NE(out.str().find(options.out), std::string::npos) << out.str();
  std::string page = Read(options.out);
  EXPECT_EQ(page.rfind("<!doctype html>", 0), 0u);
  EXPECT_NE(page.find("\"pass\":\"rangeify\""), std::string::npos) << "the program's passes are in it";
}

TEST(VizCommand, PassesTheProgramsExitStatusThrough) {
  VizOptions options;
  options.out = TempPath("status.html");
  options.program = {kProgram, "--exit=3"};
  std::ostringstream out, err;
  EXPECT_EQ(VizCommand(options, out, err), 3);
  EXPECT_FALSE(Read(options.out).empty()) << "the page is written whatever the status";
}

TEST(VizCommand, SaysSoWhenTheProgramCannotRun) {
  VizOptions options;
  options.out = TempPath("none.html");
  options.program = {"/nonexistent/program"};
  std::ostringstream out, err;
  EXPECT_NE(VizCommand(options, out, err), 0);
  EXPECT_NE(err.str().find("could not be run"), std::string::npos) << err.str();
  EXPECT_NE(err.str().find("wrote no page"), std::string::npos) << err.str();
}

TEST(VizCommand, ParsesOutAndTheProgramAfterTheSeparator) {
  VizOptions o;
  std::string error;
  ASSERT_TRUE(ParseVizArgs({"--out", "p.html", "--", "prog", "--flag"}, &o, &error)) << error;
  EXPECT_EQ(o.out, "p.html");
  EXPECT_EQ(o.program, (std::vector<std::string>{"prog", "--flag"}));
  EXPECT_FALSE(ParseVizArgs({"prog"}, &o, &error));
  EXPECT_NE(error.find("--"), std::string::npos) << error;
  EXPECT_FALSE(ParseVizArgs({"--"}, &o, &error));
  EXPECT_NE(error.find("no program"), std::string::npos) << error;
}

}  // namespace
}  // namespace tg::tools
