// cpu_kernel_cache_test.cc: the CPU plugin's compiled-kernel file cache under faults:
// a damaged .so in the cache is detected by its checksum trailer and rebuilt, never dlopen()ed; and two
// processes compiling the same kernels into one fresh cache directory at once both get correct
// results, see only whole files, and leave no temporary files behind.
//
// Every compile runs in a worker process (this binary re-executed with --worker), because the plugin
// chooses its cache directory once per process and because the fault being tested is between processes.
#include <dirent.h>
#include <dlfcn.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "plugins/abi/tg_plugin.h"
#include "tests/plugins/plugin_test_util.h"
#include "tests/runtime/test_kernels.h"

extern char** environ;

namespace {

constexpr int kKernels = 6;

// out[i] = a[i] * K + b[i], one distinct source (and cache entry) per K.
std::string KernelSource(int k) {
  std::ostringstream s;
  s << tg::testing::kCPrelude << "int32_t axpb" << k
    << "(const tg_c_dispatch_state* d, const tg_c_workgroup_state* w) {\n"
       "  float* out = (float*)d->buffers[0];\n"
       "  const float* a = (const float*)d->buffers[1];\n"
       "  const float* b = (const float*)d->buffers[2];\n"
       "  for (uint32_t l = 0; l < d->group_size[0]; ++l) {\n"
       "    int64_t i = (int64_t)w->group_id[0] * d->group_size[0] + l;\n"
       "    if (i < d->scalars[0]) out[i] = a[i] * "
    << k << ".0f + b[i];\n  }\n  return 0;\n}\n";
  return s.str();
}

// ---- worker side: plain C-style checks, the exit status is the verdict -------------------------

const tg_plugin_api* api = nullptr;
tg_device* dev = nullptr;

bool Ok(tg_error* e, const char* what) {
  if (e == nullptr) return true;
  std::cerr << "worker " << getpid() << ": " << what << ": " << api->error_message(e) << "\n";
  api->error_destroy(e);
  return false;
}

bool CompileAndRun(int k) {
  std::string src = KernelSource(k), entry = "axpb" + std::to_string(k);
  tg_compile_args a{};
  a.struct_size = sizeof a;
  a.device = dev;
  a.dialect = "c";
  a.source = src.data();
  a.source_len = src.size();
  a.entry = entry.c_str();
  tg_program* prog = nullptr;
  if (!Ok(api->program_compile(&a, &prog), "program_compile")) return false;
  constexpr int n = 1000;
  std::vector<float> x(n), y(n), out(n, -1.f);
  for (int i = 0; i < n; ++i) x[i] = float(i), y[i] = float(3 - i);
  tg_buffer *bo = nullptr, *bx = nullptr, *by = nullptr;
  bool ok = Ok(api->buffer_alloc(dev, n * 4, 0, &bo), "alloc") && Ok(api->buffer_alloc(dev, n * 4, 0, &bx), "alloc") &&
            Ok(api->buffer_alloc(dev, n * 4, 0, &by), "alloc") &&
            Ok(api->copy_h2d(nullptr, bx, 0, x.data(), n * 4, nullptr), "h2d") &&
            Ok(api->copy_h2d(nullptr, by, 0, y.data(), n * 4, nullptr), "h2d");
  if (ok) {
    tg::testing::ThreeBufferLaunch launch(prog, bo, bx, by, n);
    ok = Ok(api->launch(&launch.la), "launch") && Ok(api->stream_sync(dev, nullptr), "sync") &&
         Ok(api->copy_d2h(nullptr, out.data(), bo, 0, n * 4, nullptr), "d2h");
  }
  for (int i = 0; ok && i < n; ++i) {
    if (out[i] != x[i] * float(k) + y[i]) {
      std::cerr << "worker " << getpid() << ": kernel " << k << " computed " << out[i] << " at " << i << "\n";
      ok = false;
    }
  }
  api->buffer_free(bo), api->buffer_free(bx), api->buffer_free(by);
  api->program_destroy(prog);
  return ok;
}

// --worker GO_FILE: waits until GO_FILE exists (so two workers start together), then compiles and runs
// every kernel, in an order that depends on the pid so the two workers also race on different files.
int WorkerMain(const char* go_file) {
  while (access(go_file, F_OK) != 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  void* lib = dlopen("./plugins/cpu/libtg_cpu.so", RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) return std::cerr << dlerror() << "\n", 2;
  auto get = reinterpret_cast<tg_plugin_get_api_fn>(dlsym(lib, TG_PLUGIN_ENTRY_SYMBOL));
  api = get(TG_ABI_MAJOR, TG_ABI_MINOR);
  if (!Ok(api->initialize(nullptr), "initialize") || !Ok(api->device_open(0, &dev), "device_open")) return 2;
  bool ok = true;
  for (int i = 0; i < kKernels; ++i) ok &= CompileAndRun(1 + (i + getpid()) % kKernels);
  api->device_close(dev);
  api->shutdown();
  return ok ? 0 : 1;
}

// ---- test side ----------------------------------------------------------------------------------

std::string FreshDir(const std::string& name) {
  std::string dir = std::string(getenv("TEST_TMPDIR")) + "/" + name;
  EXPECT_EQ(system(("rm -rf '" + dir + "' && mkdir -p '" + dir + "'").c_str()), 0);
  return dir;
}

std::vector<std::string> Files(const std::string& dir) {
  std::vector<std::string> out;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      if (e->d_name[0] != '.') out.push_back(e->d_name);
    }
    closedir(d);
  }
  return out;
}

std::vector<std::string> SharedObjects(const std::string& cache_dir) {
  std::vector<std::string> out;
  for (const std::string& f : Files(cache_dir + "/cpu")) {
    if (f.size() > 3 && f.compare(f.size() - 3, 3, ".so") == 0) out.push_back(cache_dir + "/cpu/" + f);
  }
  return out;
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void Overwrite(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

uint64_t Fnv1a64(std::string_view bytes) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (char c : bytes) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ull;
  return h;
}

uint64_t Le64(const std::string& s, size_t at) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= uint64_t(static_cast<unsigned char>(s[at + i])) << (8 * i);
  return v;
}

// An ELF file followed by the plugin's 24-byte trailer: "TGCPUSUM", length, FNV-1a-64 of the ELF bytes.
bool LooksWhole(const std::string& bytes) {
  if (bytes.size() <= 64 || bytes.compare(0, 4, "\x7f" "ELF") != 0) return false;
  size_t at = bytes.size() - 24;
  return bytes.compare(at, 8, "TGCPUSUM") == 0 && Le64(bytes, at + 8) == at &&
         Le64(bytes, at + 16) == Fnv1a64(std::string_view(bytes).substr(0, at));
}

// Starts this binary as a worker with TG_CACHE_DIR=|cache_dir|.
pid_t SpawnWorker(const std::string& cache_dir, const std::string& go_file) {
  std::vector<std::string> env_strings = {"TG_CACHE_DIR=" + cache_dir};
  for (char** e = environ; *e != nullptr; ++e) {
    if (strncmp(*e, "TG_CACHE_DIR=", 13) != 0) env_strings.push_back(*e);
  }
  std::vector<char*> envp;
  for (std::string& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::string self = "/proc/self/exe", flag = "--worker", go = go_file;
  char* argv[] = {self.data(), flag.data(), go.data(), nullptr};
  pid_t pid = -1;
  EXPECT_EQ(posix_spawn(&pid, "/proc/self/exe", nullptr, nullptr, argv, envp.data()), 0);
  return pid;
}

int Wait(pid_t pid) {
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int RunWorker(const std::string& cache_dir) {
  std::string go = cache_dir + "/../go-" + std::to_string(getpid());
  Overwrite(go, "");
  return Wait(SpawnWorker(cache_dir, go));
}

TEST(CpuKernelCache, TwoProcessesCompilingTheSameKernelsIntoOneFreshDirectoryBothSucceed) {
  std::string dir = FreshDir("shared_cache");
  std::string go = FreshDir("barrier") + "/go";
  pid_t a = SpawnWorker(dir, go), b = SpawnWorker(dir, go);
  Overwrite(go, "");  // both start compiling now
  EXPECT_EQ(Wait(a), 0) << "worker A (its stderr is above)";
  EXPECT_EQ(Wait(b), 0) << "worker B (its stderr is above)";
  std::vector<std::string> sos = SharedObjects(dir);
  EXPECT_EQ(sos.size(), size_t{kKernels});
  for (const std::string& so : sos) EXPECT_TRUE(LooksWhole(Slurp(so))) << so;
  for (const std::string& f : Files(dir + "/cpu")) EXPECT_EQ(f.find(".tmp"), std::string::npos) << "left behind: " << f;
}

TEST(CpuKernelCache, DamagedSharedObjectsAreRebuiltNotLoaded) {
  std::string dir = FreshDir("damaged_cache");
  ASSERT_EQ(RunWorker(dir), 0);
  std::vector<std::string> sos = SharedObjects(dir);
  ASSERT_EQ(sos.size(), size_t{kKernels});
  std::string good = Slurp(sos[0]);
  ASSERT_TRUE(LooksWhole(good));
  std::string flipped = good;
  flipped[good.size() / 2] ^= 0x40;  // a bit flip the ELF loader would not notice
  std::string no_trailer = good.substr(0, good.size() - 24);  // an older plugin's file
  // Truncated at half: dlopen() of it would be SIGBUS. Zero bytes: a crash right after open().
  std::vector<std::string> damage = {good.substr(0, good.size() / 2), flipped, "", no_trailer, good.substr(0, 10)};
  ASSERT_GE(sos.size(), damage.size());
  for (size_t i = 0; i < damage.size(); ++i) Overwrite(sos[i], damage[i]);
  EXPECT_EQ(RunWorker(dir), 0) << "a damaged cache entry was used (see the worker's stderr above)";
  for (size_t i = 0; i < damage.size(); ++i) {
    std::string rebuilt = Slurp(sos[i]);
    EXPECT_TRUE(LooksWhole(rebuilt)) << "not rebuilt: " << sos[i];
  }
  for (const std::string& f : Files(dir + "/cpu")) EXPECT_EQ(f.find(".tmp"), std::string::npos) << "left behind: " << f;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 3 && strcmp(argv[1], "--worker") == 0) return WorkerMain(argv[2]);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
