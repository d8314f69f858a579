// tier2_programs.cc: T2, the kernel corpus in every declared dialect, build logs, binary round trips.
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <string>
#include <vector>

#include "plugins/cts/device_session.h"
#include "plugins/cts/host_corpus.h"
#include "plugins/cts/kernel_corpus.h"
#include "plugins/cts/tiers.h"

namespace tg_cts {
namespace {

// A session on a device that declares |dialect|; skips otherwise.
struct DialectSession : DeviceSession {
  DialectSession(const Plugin& p, const std::string& dialect) : DeviceSession(p) {
    if (!HasDialect(dialect)) Skip("the device does not declare dialect \"" + dialect + "\"");
    if (!KernelSource(p, dialect, "vadd")) {
      Fail("the kernel corpus for \"" + dialect + "\" was not found (runfiles, or pass --kernels DIR)");
    }
  }
};

// Runs vadd over 1000 elements (not a multiple of the group size) and checks every element.
void CheckVadd(const DeviceSession& s, const Program& prog) {
  const int n = 1000;
  std::vector<float> a(n), b(n), out(n, -1.0f);
  for (int i = 0; i < n; ++i) {
    a[i] = 0.5f * i;
    b[i] = 1000.0f - 3.0f * i;
  }
  Buffer bo = s.Alloc(n * 4), ba = s.Alloc(n * 4), bb = s.Alloc(n * 4);
  s.Write(ba, 0, a.data(), n * 4);
  s.Write(bb, 0, b.data(), n * 4);
  s.Write(bo, 0, out.data(), n * 4);
  s.Launch(prog, Linear(s, n, 64), {BufferArg(bo), BufferArg(ba), BufferArg(bb), I32Arg(n)});
  s.Sync();
  out = s.ReadAll<float>(bo, n);
  for (int i = 0; i < n; ++i) {
    CTS_CHECK(out[i] == a[i] + b[i], "out[" + std::to_string(i) + "] = " + std::to_string(out[i]) +
                                         ", want " + std::to_string(a[i] + b[i]));
  }
}

void Vadd(const Plugin& p, const std::string& d) {
  DialectSession s(p, d);
  CheckVadd(s, s.Compile(d, "vadd"));
}

void Scalars(const Plugin& p, const std::string& d) {
  DialectSession s(p, d);
  Program prog = s.Compile(d, "scalars");
  Buffer out = s.Alloc(3 * 8);
  const int32_t a = -7;
  const int64_t b = (int64_t{1} << 40) + 3;  // does not fit 32 bits: an i64 truncated shows
  s.Launch(prog, Grid{}, {BufferArg(out), I32Arg(a), I64Arg(b)});
  s.Sync();
  std::vector<int64_t> got = s.ReadAll<int64_t>(out, 3);
  CTS_CHECK(got[1] == a, "i32 argument arrived as " + std::to_string(got[1]) + ", want -7");
  CTS_CHECK(got[2] == b, "i64 argument arrived as " + std::to_string(got[2]));
  CTS_CHECK(got[0] == a + b, "a + b = " + std::to_string(got[0]));
}

// Every work item of a 3-D launch writes its group and local ids at its linear global id.
void Index3d(const Plugin& p, const std::string& d) {
  DialectSession s(p, d);
  Program prog = s.Compile(d, "index3d");
  Grid g;
  const uint32_t groups[3] = {3, 2, 2}, size[3] = {2, 3, 2};
  std::copy(groups, groups + 3, g.groups);
  std::copy(size, size + 3, g.size);
  const uint32_t gx = 6, gy = 6, gz = 4, items = gx * gy * gz;
  Buffer out = s.Alloc(items * 6 * 4);
  std::vector<int32_t> init(items * 6, -1);
  s.Write(out, 0, init.data(), init.size() * 4);
  s.Launch(prog, g, {BufferArg(out)});
  s.Sync();
  std::vector<int32_t> got = s.ReadAll<int32_t>(out, items * 6);
  for (uint32_t z = 0; z < gz; ++z) {
    for (uint32_t y = 0; y < gy; ++y) {
      for (uint32_t x = 0; x < gx; ++x) {
        const int32_t* e = &got[6 * (x + gx * (y + gy * z))];
        const int32_t want[6] = {int32_t(x / 2), int32_t(y / 3), int32_t(z / 2),
                                 int32_t(x % 2), int32_t(y % 3), int32_t(z % 2)};
        CTS_CHECK(std::equal(want, want + 6, e),
                  "work item (" + std::to_string(x) + "," + std::to_string(y) + "," + std::to_string(z) +
                      ") wrote ids " + std::to_string(e[0]) + "," + std::to_string(e[1]) + "," +
                      std::to_string(e[2]) + " / " + std::to_string(e[3]) + "," + std::to_string(e[4]) +
                      "," + std::to_string(e[5]));
      }
    }
  }
}

// The largest group the device declares, in dimension 0.
void MaxGroup(const Plugin& p, const std::string& d) {
  DialectSession s(p, d);
  Program prog = s.Compile(d, "max_group");
  uint32_t gs = std::min(s.props().max_group_threads, s.props().max_group_size[0]);
  Grid g;
  g.groups[0] = 2;
  g.size[0] = gs;
  Buffer out = s.Alloc(2 * gs * 4);
  s.Launch(prog, g, {BufferArg(out)});
  s.Sync();
  std::vector<int32_t> got = s.ReadAll<int32_t>(out, 2 * gs);
  for (uint32_t i = 0; i < 2 * gs; ++i) {
    int32_t want = int32_t(i % gs + 1000 * (i / gs));
    CTS_CHECK(got[i] == want, "group size " + std::to_string(gs) + ": out[" + std::to_string(i) + "] = " +
                                  std::to_string(got[i]) + ", want " + std::to_string(want));
  }
}

void SyntaxError(const Plugin& p, const std::string& d) {
  DialectSession s(p, d);
  std::optional<std::string> src = KernelSource(p, d, "syntax_error");
  if (!src) Fail("corpus file " + d + "/syntax_error missing");
  tg_program* prog = nullptr;
  Status st = Take(s.api(), s.CompileRaw(d, *src, "syntax_error", &prog));
  if (st.ok() && prog != nullptr) s.api().program_destroy(prog);
  CTS_CHECK(!st.ok(), "a syntax error compiled");
  std::string lower = st.message;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  CTS_CHECK(lower.find("error") != std::string::npos,
            "the message does not look like a build log (no \"error\"): " + st.message.substr(0, 300));
}

void MissingEntry(const Plugin& p, const std::string& d) {
  DialectSession s(p, d);
  tg_program* prog = nullptr;
  Status st = Take(s.api(), s.CompileRaw(d, *KernelSource(p, d, "vadd"), "tg_cts_no_such_kernel", &prog));
  if (st.ok() && prog != nullptr) s.api().program_destroy(prog);
  CTS_CHECK(!st.ok(), "compiling with an entry point that does not exist succeeded");
  CTS_CHECK(!st.message.empty(), "empty error message");
}

// program_binary -> program_load; the loaded program outlives the one it came from.
void BinaryRoundTrip(const Plugin& p, const std::string& d) {
  DialectSession s(p, d);
  if (s.api().program_binary == nullptr || s.api().program_load == nullptr) {
    Skip("program_binary or program_load is NULL (optional: nothing is cached)");
  }
  Program prog = s.Compile(d, "vadd");
  const char* format = nullptr;
  const void* bin = nullptr;
  uint64_t len = 0;
  Check(s.api(), s.api().program_binary(prog.get(), &format, &bin, &len), "program_binary");
  CTS_CHECK(format != nullptr && bin != nullptr && len > 0, "program_binary returned an empty binary");
  std::string fmt = format, bytes(static_cast<const char*>(bin), len);
  prog.reset();
  tg_program* loaded = nullptr;
  Check(s.api(), s.api().program_load(s.device(), fmt.c_str(), bytes.data(), len, "vadd", &loaded),
        "program_load(" + fmt + ", " + std::to_string(len) + " bytes)");
  CTS_CHECK(loaded != nullptr, "program_load returned OK and no program");
  CheckVadd(s, Program(&s.api(), loaded));
}

void ExpectStale(const DeviceSession& s, const std::string& format, const std::string& bytes,
                 const std::string& what) {
  tg_program* prog = nullptr;
  Status st = Take(s.api(), s.api().program_load(s.device(), format.c_str(), bytes.data(), bytes.size(),
                                                 "vadd", &prog));
  if (st.ok() && prog != nullptr) s.api().program_destroy(prog);
  CTS_CHECK(st.code == TG_CODE_FAILED_PRECONDITION, what + ": want FAILED_PRECONDITION, got " + Describe(st));
}

// Garbage, a truncated binary and a foreign format are refused, so the host recompiles.
void CorruptBinary(const Plugin& p, const std::string& d) {
  DialectSession s(p, d);
  if (s.api().program_load == nullptr) Skip("program_load is NULL (optional)");
  const tg_device_props& props = s.props();
  std::string format = props.num_binary_formats > 0 ? props.binary_formats[0] : "unknown";
  std::string garbage(4096, '\0');
  for (size_t i = 0; i < garbage.size(); ++i) garbage[i] = static_cast<char>(i * 2654435761u >> 13);
  ExpectStale(s, format, garbage, "random bytes as " + format);
  ExpectStale(s, "tg-cts-foreign-format", garbage, "an unknown format");
  if (s.api().program_binary != nullptr) {
    Program prog = s.Compile(d, "vadd");
    const char* f = nullptr;
    const void* bin = nullptr;
    uint64_t len = 0;
    Check(s.api(), s.api().program_binary(prog.get(), &f, &bin, &len), "program_binary");
    ExpectStale(s, f, std::string(static_cast<const char*>(bin), len / 2), "the first half of a binary");
  }
}

void UnknownDialectRefused(const Plugin& p) {
  DeviceSession s(p);
  tg_program* prog = nullptr;
  Status st = Take(s.api(), s.CompileRaw("tg-cts-no-such-dialect", "x", "x", &prog));
  if (st.ok() && prog != nullptr) s.api().program_destroy(prog);
  CTS_CHECK(!st.ok(), "program_compile accepted an undeclared dialect");
}

// A device none of whose dialects either corpus has would pass every program case by skipping them:
// that is a failure (nothing it runs was tested); some dialects uncovered beside a covered one skip.
void DeclaredDialectsCovered(const Plugin& p) {
  DeviceSession s(p);
  std::vector<std::string> known = CorpusDialects();  // hand-written, then the host corpus's
  for (const std::string& d : LoadHostCorpus(p).Dialects()) {
    if (std::find(known.begin(), known.end(), d) == known.end()) known.push_back(d);
  }
  std::string covered, uncovered;
  for (uint32_t i = 0; i < s.props().num_source_dialects; ++i) {
    std::string d = s.props().source_dialects[i] != nullptr ? s.props().source_dialects[i] : "";
    (std::find(known.begin(), known.end(), d) == known.end() ? uncovered : covered) += " " + d;
  }
  if (covered.empty()) {
    std::string corpus;
    for (const std::string& d : known) corpus += " " + d;
    Fail("the device declares" + (uncovered.empty() ? std::string(" no dialect") : uncovered) +
         " and the CTS has kernels for" + corpus + " only: none of its programs would be tested");
  }
  if (!uncovered.empty()) Skip("the CTS has no kernel corpus for:" + uncovered);
}

}  // namespace

std::vector<Case> Tier2ProgramCases() {
  std::vector<Case> cases = {
      {2, "Programs.unknown_dialect_refused", UnknownDialectRefused},
      {2, "Programs.declared_dialects_covered", DeclaredDialectsCovered},
  };
  using Body = void (*)(const Plugin&, const std::string&);
  const std::pair<const char*, Body> kPerDialect[] = {
      {"vadd", Vadd},           {"scalars", Scalars},           {"index3d", Index3d},
      {"max_group", MaxGroup},  {"syntax_error", SyntaxError},  {"missing_entry", MissingEntry},
      {"binary_round_trip", BinaryRoundTrip}, {"corrupt_binary", CorruptBinary},
  };
  for (const std::string& d : CorpusDialects()) {
    for (const auto& [name, body] : kPerDialect) {
      cases.push_back({2, "Programs." + d + "." + name, [d, body = body](const Plugin& p) { body(p, d); }});
    }
  }
  return cases;
}

}  // namespace tg_cts
