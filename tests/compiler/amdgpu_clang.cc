#include "tests/compiler/amdgpu_clang.h"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

namespace tg::testing {
namespace {

namespace fs = std::filesystem;

// What hiprtc declares before every source, for a clang without HIP's headers: the kernel and memory
// qualifiers, the block and thread indices, the barrier, and __half.
constexpr const char* kHiprtcBuiltins = R"(#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __shared__ __attribute__((shared))
typedef _Float16 __half;
struct tg_index3 { unsigned x, y, z; };
__device__ inline tg_index3 tg_block_index() {
  return {__builtin_amdgcn_workgroup_id_x(), __builtin_amdgcn_workgroup_id_y(), __builtin_amdgcn_workgroup_id_z()};
}
__device__ inline tg_index3 tg_thread_index() {
  return {__builtin_amdgcn_workitem_id_x(), __builtin_amdgcn_workitem_id_y(), __builtin_amdgcn_workitem_id_z()};
}
#define blockIdx tg_block_index()
#define threadIdx tg_thread_index()
__device__ inline void __syncthreads() {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}
)";

// The oldest architecture with the same matrix instructions, for a clang that predates |arch|.
std::string FamilyFallback(const std::string& arch) {
  if (arch == "gfx941" || arch == "gfx942") return "gfx940";
  if (arch.rfind("gfx11", 0) == 0 && arch != "gfx1100") return "gfx1100";
  return "";
}

int VersionOf(const fs::path& llvm_dir) {  // /usr/lib/llvm-15 -> 15
  std::string name = llvm_dir.filename().string();
  return std::atoi(name.substr(name.find('-') + 1).c_str());
}

std::string FindClang() {
  if (const char* env = std::getenv("TG_TEST_AMDGPU_CLANG"); env != nullptr && *env != '\0') return env;
  std::vector<fs::path> dirs;
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator("/usr/lib", ec))
    if (e.path().filename().string().rfind("llvm-", 0) == 0 && fs::exists(e.path() / "bin/clang")) dirs.push_back(e.path());
  if (dirs.empty()) return "clang";
  std::sort(dirs.begin(), dirs.end(), [](const fs::path& a, const fs::path& b) { return VersionOf(a) > VersionOf(b); });
  return (dirs.front() / "bin/clang").string();
}

std::string ReadAll(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

struct Run {
  int rc;
  std::string assembly, errors;
};

Run Compile(const std::string& clang, const fs::path& dir, const std::string& arch) {
  const fs::path out = dir / ("kernel-" + arch + ".s"), err = dir / ("errors-" + arch + ".txt");
  std::string cmd = "'" + clang + "' -x hip --cuda-device-only -nogpulib -nogpuinc --offload-arch=" + arch +
                    " -O3 -S -include '" + (dir / "hiprtc_builtins.h").string() + "' '" + (dir / "kernel.hip").string() +
                    "' -o '" + out.string() + "' 2> '" + err.string() + "'";
  int status = std::system(cmd.c_str());
  int rc = status == -1 ? -1 : WIFEXITED(status) ? WEXITSTATUS(status) : 128;
  return {rc, rc == 0 ? ReadAll(out) : "", ReadAll(err)};
}

bool UnknownArch(const Run& r) {
  return r.rc != 0 && (r.errors.find("invalid target ID") != std::string::npos ||
                       r.errors.find("unsupported CUDA gpu architecture") != std::string::npos ||
                       r.errors.find("unsupported HIP gpu architecture") != std::string::npos);
}

}  // namespace

AmdgpuAssembly AssembleHip(const std::string& source, const std::string& arch) {
  AmdgpuAssembly result;
  const std::string clang = FindClang();
  char tmpl[] = "/tmp/tg_amdgpu_XXXXXX";
  if (mkdtemp(tmpl) == nullptr) {
    result.skip_reason = "no temporary directory";
    return result;
  }
  const fs::path dir = tmpl;
  std::ofstream(dir / "hiprtc_builtins.h") << kHiprtcBuiltins;
  std::ofstream(dir / "kernel.hip") << source;
  Run run = Compile(clang, dir, arch);
  result.compiled_for = arch;
  if (UnknownArch(run) && !FamilyFallback(arch).empty()) {
    result.compiled_for = FamilyFallback(arch);
    run = Compile(clang, dir, result.compiled_for);
  }
  if (run.rc == 127 || UnknownArch(run)) {
    result.skip_reason = clang + " cannot compile HIP for " + arch + ": " + run.errors.substr(0, 300);
  } else if (run.rc == 0) {
    result.assembly = std::move(run.assembly);
  } else {
    result.errors = run.errors.empty() ? clang + " exited with " + std::to_string(run.rc) : run.errors;
  }
  std::error_code ec;
  fs::remove_all(dir, ec);
  return result;
}

}  // namespace tg::testing
