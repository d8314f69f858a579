// compile_only.cc: hiprtc without a device, for CI on machines with no AMD GPU.
#include "plugins/hip/compile_only.h"

#include <cstdlib>
#include <cstring>
#include <string>

#include "plugins/hip/hip_error.h"
#include "plugins/hip/hiprtc_compiler.h"
#include "plugins/hip/hiprtc_program.h"
#include "plugins/kit/api_table.h"

namespace tg_hip {
namespace {

tg_error* CompileImpl(const char* source, uint64_t source_len, const char* arch, const char* format,
                      char** out_code, uint64_t* out_len) {
  if ((source == nullptr && source_len > 0) || arch == nullptr || format == nullptr || out_code == nullptr ||
      out_len == nullptr) {
    return MakeError(TG_CODE_INVALID_ARGUMENT, "compile_only: NULL argument");
  }
  if (std::strcmp(format, "hsaco") != 0) {
    return MakeError(TG_CODE_INVALID_ARGUMENT, std::string("compile_only: format '") + format + "' (only hsaco)");
  }
  std::string code;
  if (tg_error* e = HiprtcCompile(std::string(source != nullptr ? source : "", source_len), arch, nullptr, &code)) {
    return e;
  }
  char* buf = static_cast<char*>(std::malloc(code.size()));  // malloc: free_code is a plain free()
  if (buf == nullptr) return MakeError(TG_CODE_RESOURCE_EXHAUSTED, "compile_only: out of host memory");
  std::memcpy(buf, code.data(), code.size());
  *out_code = buf;
  *out_len = code.size();
  return nullptr;
}

tg_error* Compile(const char* source, uint64_t source_len, const char* arch, const char* format,
                  char** out_code, uint64_t* out_len) {
  return Guard([&] { return CompileImpl(source, source_len, arch, format, out_code, out_len); });
}

void FreeCode(char* code) { std::free(code); }

const char* CompilerVersion() {
  try {
    static const std::string v = HiprtcDescription();
    return v.empty() ? nullptr : v.c_str();
  } catch (...) {
    return nullptr;
  }
}

tg_hip_compile_only_ext MakeExt() {
  auto e = tg_kit::NewExtension<tg_hip_compile_only_ext>(TG_HIP_COMPILE_ONLY_NAME, TG_HIP_COMPILE_ONLY_VERSION);
  e.compile = Compile;
  e.free_code = FreeCode;
  e.compiler_version = CompilerVersion;
  return e;
}

const tg_hip_compile_only_ext kExt = MakeExt();

}  // namespace

const tg_ext* CompileOnlyExtension() { return &kExt.base; }

}  // namespace tg_hip
