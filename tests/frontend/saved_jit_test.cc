// A saved tg::Jit round-trips (in this process and in a fresh one, compiling nothing, bit-identical),
// and a damaged, truncated, foreign or stale file is refused with its own message.
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "compiler/compiler.h"
#include "frontend/tg.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "plugins/abi/tg_plugin.h"

namespace tg {
namespace {

using ::testing::HasSubstr;

// A child process of this test binary runs only the case below, against the file the parent saved.
constexpr const char* kChildFileEnv = "TG_SAVED_JIT_TEST_FILE";

std::string TmpPath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir ? dir : "/tmp") + "/" + name;
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void WriteAll(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

// A layer with state: a weight it reads, and a step counter it advances in place every call.
struct Model {
  Tensor w = Tensor::randn({8, 4}).realize();
  Tensor b = Tensor::randn({4}).realize();
  Tensor steps = Tensor::zeros({1}).realize();
  Jit jit{[this](const std::vector<Tensor>& in) {
    steps.assign(steps + 1);
    return std::vector<Tensor>{(in[0].matmul(w) + b).relu() * steps, steps};
  }};
};

Tensor Input(int call) {
  std::vector<float> v(3 * 8);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>((i * 7 + call * 13) % 11) / 3.0f - 1.5f;
  return Tensor::from_vector<float>(v, Shape{3, 8});
}

// The outputs' bytes, as one string: "bit-identical" is a byte comparison.
std::string Bytes(const std::vector<Tensor>& outs) {
  std::string s;
  for (const Tensor& t : outs) {
    std::vector<float> v = t.to_vector<float>();
    s.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(float));
  }
  return s;
}

uint64_t CompilesHere() {
  return compiler::DeviceNamed(Tensor::ones({1}).device()).program_cache().counters().compiles.load();
}

// Saves a captured Model to |path| and returns what the original gives on its next call.
std::string SaveAndRunOnce(const std::string& path) {
  Tensor::manual_seed(3);
  Model m;
  m.jit({Input(0)});
  m.jit({Input(1)});
  m.jit.save(path);
  return Bytes(m.jit({Input(2)}));
}

TEST(SavedJit, RoundTripsInThisProcessWithoutCompiling) {
  std::string path = TmpPath("round_trip.tgjit");
  std::string want = SaveAndRunOnce(path);
  Tensor x = Input(2).realize();
  uint64_t before = CompilesHere();
  Jit loaded = Jit::load(path);
  std::vector<Tensor> out = loaded({x});
  std::string got = Bytes(out);
  EXPECT_EQ(CompilesHere(), before) << "loading and running a saved Jit compiled kernels";
  EXPECT_TRUE(got == want) << "the loaded Jit's outputs differ from the original's";
  EXPECT_TRUE(loaded.captured());
  EXPECT_GE(loaded.captured_kernels(), 2u);
  EXPECT_EQ(loaded({x})[1].to_vector<float>(), std::vector<float>{4.0f}) << "state does not advance in place";
}

TEST(SavedJit, RoundTripsInAFreshProcessWithoutCompiling) {
  std::string path = TmpPath("fresh_process.tgjit");
  WriteAll(path + ".want", SaveAndRunOnce(path));
  char self[PATH_MAX] = {};
  ASSERT_GT(readlink("/proc/self/exe", self, sizeof self - 1), 0);
  const char* dialect = std::getenv("TG_CPU_DIALECT");
  std::string log = path + ".child.log";
  // The child must not write this test's XML or premature-exit marker.
  std::string cmd = std::string("env -u XML_OUTPUT_FILE -u GTEST_OUTPUT -u TEST_PREMATURE_EXIT_FILE ") +
                    kChildFileEnv + "='" + path + "' '" + self + "' --gtest_filter='SavedJitChild.*' --device=" +
                    std::getenv("TG_DEVICE") + (dialect ? std::string(" --cpu-dialect=") + dialect : "") + " > '" +
                    log + "' 2>&1";
  int rc = std::system(cmd.c_str());
  EXPECT_EQ(rc, 0) << "the fresh process failed:\n" << ReadAll(log);
  EXPECT_THAT(ReadAll(log), HasSubstr("[  PASSED  ] 1 test")) << ReadAll(log);
}

// Registered only in the child (kChildFileEnv set): load, run, compare, and count compiles from zero.
void ChildLoadsAndRuns() {
  std::string path = std::getenv(kChildFileEnv);
  Tensor x = Input(2).realize();
  ASSERT_EQ(CompilesHere(), 0u);
  Jit loaded = Jit::load(path);
  std::string got = Bytes(loaded({x}));
  const auto& counters = compiler::DeviceNamed(x.device()).program_cache().counters();
  EXPECT_EQ(counters.compiles.load(), 0u) << "the fresh process compiled kernels";
  EXPECT_EQ(counters.disk_loads.load(), 0u) << "the fresh process read kernels from the disk cache";
  EXPECT_TRUE(got == ReadAll(path + ".want")) << "outputs differ from the saving process's";
}

const bool child_registered = [] {
  if (std::getenv(kChildFileEnv) == nullptr) return false;
  ::testing::RegisterTest("SavedJitChild", "LoadsAndRuns", nullptr, nullptr, __FILE__, __LINE__,
                          []() -> ::testing::Test* {
                            struct Child : ::testing::Test {
                              void TestBody() override { ChildLoadsAndRuns(); }
                            };
                            return new Child;
                          });
  return true;
}();

// A file saved once per test binary, for the refusal cases to spoil.
const std::string& GoodFile() {
  static const std::string* path = [] {
    auto* p = new std::string(TmpPath("good.tgjit"));
    SaveAndRunOnce(*p);
    return p;
  }();
  return *path;
}

// |edit| applied to the decoded good file, re-encoded with a valid checksum: only the edited fact is wrong.
std::string Edited(const std::string& name, void (*edit)(compiler::JitFile&)) {
  compiler::JitFile file = compiler::DecodeJitFile(ReadAll(GoodFile()), GoodFile());
  edit(file);
  std::string path = TmpPath(name);
  WriteAll(path, compiler::EncodeJitFile(file));
  return path;
}

std::string LoadError(const std::string& path) {
  try {
    Jit::load(path);
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << path << " loaded, but it should have been refused";
  return "";
}

TEST(SavedJit, RefusesAFlippedByte) {
  std::string bytes = ReadAll(GoodFile());
  bytes[bytes.size() / 2] ^= 0x10;
  std::string path = TmpPath("flipped.tgjit");
  WriteAll(path, bytes);
  std::string msg = LoadError(path);
  EXPECT_THAT(msg, HasSubstr("is damaged"));
  EXPECT_THAT(msg, HasSubstr("checksum does not match"));
}

TEST(SavedJit, RefusesATruncatedFile) {
  std::string bytes = ReadAll(GoodFile());
  std::string path = TmpPath("truncated.tgjit");
  WriteAll(path, bytes.substr(0, bytes.size() - 100));
  std::string msg = LoadError(path);
  EXPECT_THAT(msg, HasSubstr("is truncated"));
  EXPECT_THAT(msg, HasSubstr("promises " + std::to_string(bytes.size()) + " bytes"));
}

TEST(SavedJit, RefusesAnotherFormatVersionAndOtherFiles) {
  std::string bytes = ReadAll(GoodFile());
  bytes[8] = 7;  // the format version's low byte
  std::string path = TmpPath("version.tgjit");
  WriteAll(path, bytes);
  EXPECT_THAT(LoadError(path), HasSubstr("has format version 7; this build reads version 1"));
  WriteAll(path, "{\"not\": \"a jit\"}");
  EXPECT_THAT(LoadError(path), HasSubstr("is not a saved Jit"));
}

TEST(SavedJit, RefusesAMissingDevice) {
  std::string path = Edited("missing_device.tgjit", [](compiler::JitFile& f) { f.devices[0].name = "NOSUCH:7"; });
  std::string msg = LoadError(path);
  EXPECT_THAT(msg, HasSubstr("is for another device: it runs on NOSUCH:7"));
  EXPECT_THAT(msg, HasSubstr("which this process does not have"));
}

TEST(SavedJit, RefusesADeviceOfAnotherPlugin) {
  std::string path = Edited("foreign_plugin.tgjit", [](compiler::JitFile& f) { f.devices[0].plugin = "ELSEWHERE"; });
  std::string msg = LoadError(path);
  EXPECT_THAT(msg, HasSubstr("(plugin ELSEWHERE"));
  EXPECT_THAT(msg, HasSubstr("here is a " + compiler::DeviceNamed(Tensor::ones({1}).device()).info().plugin +
                             " device"));
}

TEST(SavedJit, RefusesAnotherCompilerFingerprint) {
  std::string path = Edited("stale_fingerprint.tgjit",
                            [](compiler::JitFile& f) { f.devices[0].fingerprint = "some-other-compiler"; });
  std::string msg = LoadError(path);
  EXPECT_THAT(msg, HasSubstr("is stale"));
  EXPECT_THAT(msg, HasSubstr("fingerprint 'some-other-compiler'"));
}

TEST(SavedJit, RefusesAnotherAbiMajor) {
  std::string path = Edited("stale_abi.tgjit", [](compiler::JitFile& f) { f.abi_major = TG_ABI_MAJOR + 1; });
  std::string msg = LoadError(path);
  EXPECT_THAT(msg, HasSubstr("compiled under plugin ABI " + std::to_string(TG_ABI_MAJOR + 1) + "." +
                             std::to_string(TG_ABI_MINOR)));
  EXPECT_THAT(msg, HasSubstr("the major must match"));
}

TEST(SavedJit, SaveBeforeCaptureIsAnError) {
  Jit f([](const std::vector<Tensor>& in) { return std::vector<Tensor>{in[0] + 1}; });
  f({Tensor::ones({4})});
  try {
    f.save(TmpPath("early.tgjit"));
    ADD_FAILURE() << "saved before the capture";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("call it twice before saving"));
  }
}

TEST(SavedJit, LoadedJitChecksItsInputs) {
  Jit loaded = Jit::load(GoodFile());
  try {
    loaded({Tensor::ones({3, 9})});
    ADD_FAILURE() << "ran with the wrong shape";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("(3, 8)"));
  }
}

}  // namespace
}  // namespace tg
