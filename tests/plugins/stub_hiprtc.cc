// stub_hiprtc.cc: a stand-in hiprtc that reports version <TG_STUB_ROCM_MAJOR>.2 and "compiles" a
// source by wrapping it in a fake code object: the ELF magic, a line naming the stub and the
// --offload-arch it was given, the source, padded to an ELF header's size. The stub HIP runtime
// loads exactly these. A source holding "#error" fails, with a log that names the stub. Built as
// ROCm 6's separate libhiprtc.so.6, and into ROCm 5's libamdhip64.so.5 stub (where hiprtc lived).
// Defined against the HIP headers, like the runtime stub.
//
// For the HIP plugin's arch probe (tests/plugins/hip_arch_probe_test.cc), environment variables
// read at each compile, so a test may change them between compiles:
//   STUB_HIPRTC_ABORT_ARCH=gfx942    abort() when compiling for that arch, as hiprtc 5.2 does for
//                                    the architectures it predates (gfx942, gfx1100);
//   STUB_HIPRTC_FAIL_ARCH=gfx1201    fail to compile for that arch, with a log, as a hiprtc that
//                                    does not know an arch and says so;
//   STUB_HIPRTC_COMPILE_LOG=<file>   append "<pid> <arch>\n" for every compile, before any abort, so
//                                    a test counts compiles and tells a child process's from its own.
#include <fcntl.h>
#include <hip/hiprtc.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>

struct _hiprtcProgram {
  std::string source, name, log, code;
};

namespace {

constexpr char kArchOption[] = "--offload-arch=";

std::string ArchOption(int num_options, const char** options) {
  for (int i = 0; i < num_options; ++i) {
    if (std::strncmp(options[i], kArchOption, sizeof kArchOption - 1) == 0) return options[i] + sizeof kArchOption - 1;
  }
  return "";
}

// One write(2) of one line with O_APPEND: lines from concurrent processes never interleave.
void LogCompile(const std::string& arch) {
  const char* path = std::getenv("STUB_HIPRTC_COMPILE_LOG");
  if (path == nullptr) return;
  int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return;
  std::string line = std::to_string(getpid()) + " " + arch + "\n";
  ssize_t ignored = write(fd, line.data(), line.size());
  (void)ignored;
  close(fd);
}

bool EnvNames(const char* var, const std::string& arch) {
  const char* a = std::getenv(var);
  return a != nullptr && arch == a;
}

std::string CodeObject(const std::string& arch, const std::string& source) {
  std::string code = std::string("\x7f" "ELF") + " stub hiprtc " + std::to_string(TG_STUB_ROCM_MAJOR) +
                     ".2 code object for " + arch + "\n" + source;
  if (code.size() < 64) code.resize(64, '\0');  // an ELF header's size: the plugin refuses less
  return code;
}

}  // namespace

extern "C" {

hiprtcResult hiprtcVersion(int* major, int* minor) {
  *major = TG_STUB_ROCM_MAJOR;
  *minor = 2;
  return HIPRTC_SUCCESS;
}
const char* hiprtcGetErrorString(hiprtcResult r) {
  switch (r) {
    case HIPRTC_SUCCESS: return "HIPRTC_SUCCESS";
    case HIPRTC_ERROR_INVALID_INPUT: return "HIPRTC_ERROR_INVALID_INPUT (stub hiprtc)";
    case HIPRTC_ERROR_INVALID_PROGRAM: return "HIPRTC_ERROR_INVALID_PROGRAM (stub hiprtc)";
    case HIPRTC_ERROR_COMPILATION: return "HIPRTC_ERROR_COMPILATION (stub hiprtc)";
    default: return "an error of the stub hiprtc";
  }
}
hiprtcResult hiprtcCreateProgram(hiprtcProgram* prog, const char* src, const char* name, int num_headers,
                                 const char** headers, const char** include_names) {
  (void)num_headers, (void)headers, (void)include_names;
  if (prog == nullptr || src == nullptr) return HIPRTC_ERROR_INVALID_INPUT;
  *prog = new _hiprtcProgram{src, name != nullptr ? name : "default_program", "", ""};
  return HIPRTC_SUCCESS;
}
hiprtcResult hiprtcCompileProgram(hiprtcProgram prog, int num_options, const char** options) {
  if (prog == nullptr) return HIPRTC_ERROR_INVALID_PROGRAM;
  const std::string arch = ArchOption(num_options, options);
  LogCompile(arch);
  if (EnvNames("STUB_HIPRTC_ABORT_ARCH", arch)) std::abort();
  if (arch.empty()) return prog->log = "stub hiprtc: no " + std::string(kArchOption), HIPRTC_ERROR_INVALID_OPTION;
  if (EnvNames("STUB_HIPRTC_FAIL_ARCH", arch)) {
    prog->log = "error: stub hiprtc does not know " + arch;
    return HIPRTC_ERROR_COMPILATION;
  }
  if (prog->source.find("#error") != std::string::npos) {
    prog->log = prog->name + ": error: stub hiprtc met #error";
    return HIPRTC_ERROR_COMPILATION;
  }
  prog->code = CodeObject(arch, prog->source);
  return HIPRTC_SUCCESS;
}
// The sizes count the terminating NUL, as hiprtc's do.
hiprtcResult hiprtcGetProgramLogSize(hiprtcProgram prog, size_t* size) {
  if (prog == nullptr) return HIPRTC_ERROR_INVALID_PROGRAM;
  *size = prog->log.size() + 1;
  return HIPRTC_SUCCESS;
}
hiprtcResult hiprtcGetProgramLog(hiprtcProgram prog, char* log) {
  if (prog == nullptr) return HIPRTC_ERROR_INVALID_PROGRAM;
  std::memcpy(log, prog->log.c_str(), prog->log.size() + 1);
  return HIPRTC_SUCCESS;
}
hiprtcResult hiprtcGetCodeSize(hiprtcProgram prog, size_t* size) {
  if (prog == nullptr) return HIPRTC_ERROR_INVALID_PROGRAM;
  *size = prog->code.size();
  return HIPRTC_SUCCESS;
}
hiprtcResult hiprtcGetCode(hiprtcProgram prog, char* code) {
  if (prog == nullptr) return HIPRTC_ERROR_INVALID_PROGRAM;
  std::memcpy(code, prog->code.data(), prog->code.size());
  return HIPRTC_SUCCESS;
}
hiprtcResult hiprtcDestroyProgram(hiprtcProgram* prog) {
  if (prog == nullptr) return HIPRTC_ERROR_INVALID_INPUT;
  delete *prog;
  *prog = nullptr;
  return HIPRTC_SUCCESS;
}

}  // extern "C"
