// test_skip_report.h: lets a test that is not a GoogleTest suite (a tool run by sh_test, a plain program)
// tell Bazel it skipped. Bazel writes a test.xml only where the test wrote none, and its own says "passed";
// this one says "skipped" and why, so .ci/run counts a skip instead of a pass. Header only, no deps, for
// programs that link nothing else.
#ifndef TOOLS_TEST_SKIP_REPORT_H_
#define TOOLS_TEST_SKIP_REPORT_H_

#include <cstdio>
#include <cstdlib>
#include <string>

namespace tg::testing {

inline std::string XmlEscaped(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\n': out += "&#x0A;"; break;
      default: out += c;
    }
  }
  return out;
}

// Writes $XML_OUTPUT_FILE with one skipped case named `name`; does nothing outside `bazel test`.
inline void ReportSkippedToBazel(const std::string& name, const std::string& reason) {
  const char* path = std::getenv("XML_OUTPUT_FILE");
  if (path == nullptr || *path == '\0') return;
  FILE* f = std::fopen(path, "w");
  if (f == nullptr) return;
  std::string n = XmlEscaped(name);
  std::fprintf(f,
               "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
               "<testsuites tests=\"1\" failures=\"0\" errors=\"0\">\n"
               "  <testsuite name=\"%s\" tests=\"1\" failures=\"0\" errors=\"0\" skipped=\"1\">\n"
               "    <testcase name=\"%s\" status=\"run\" result=\"skipped\">"
               "<skipped message=\"%s\"/></testcase>\n"
               "  </testsuite>\n</testsuites>\n",
               n.c_str(), n.c_str(), XmlEscaped(reason).c_str());
  std::fclose(f);
}

}  // namespace tg::testing

#endif  // TOOLS_TEST_SKIP_REPORT_H_
