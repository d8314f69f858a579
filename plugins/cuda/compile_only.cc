// compile_only.cc: NVRTC without a device, for CI on machines with no NVIDIA GPU.
#include "plugins/cuda/compile_only.h"

#include <cstdlib>
#include <cstring>
#include <string>

#include "plugins/cuda/cuda_error.h"
#include "plugins/kit/api_table.h"
#include "plugins/cuda/nvrtc_compiler.h"

namespace tg_cuda {
namespace {

tg_error* CompileImpl(const char* source, uint64_t source_len, const char* arch, const char* format,
                      char** out_code, uint64_t* out_len) {
  if ((source == nullptr && source_len > 0) || arch == nullptr || format == nullptr || out_code == nullptr ||
      out_len == nullptr) {
    return MakeError(TG_CODE_INVALID_ARGUMENT, "compile_only: NULL argument");
  }
  std::string f = format;
  if (f != "ptx" && f != "cubin") {
    return MakeError(TG_CODE_INVALID_ARGUMENT, "compile_only: format '" + f + "' (ptx or cubin)");
  }
  std::string code;
  std::string src(source != nullptr ? source : "", source_len);
  NvrtcOutput out = f == "ptx" ? NvrtcOutput::kPtx : NvrtcOutput::kCubin;
  std::string why;
  const NvrtcApi* nv = LoadNvrtc(&why);  // no device, no driver to match: the first NVRTC found
  if (nv == nullptr) return MakeError(TG_CODE_UNAVAILABLE, why);
  if (tg_error* e = NvrtcCompile(*nv, src, arch, nullptr, out, &code)) return e;
  // malloc so free_code is a plain free(); one extra NUL keeps PTX usable as a C string.
  char* buf = static_cast<char*>(std::malloc(code.size() + 1));
  if (buf == nullptr) return MakeError(TG_CODE_RESOURCE_EXHAUSTED, "compile_only: out of host memory");
  std::memcpy(buf, code.data(), code.size());
  buf[code.size()] = '\0';
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
    static const std::string v = NvrtcDescription();  // loads NVRTC once
    return v.empty() ? nullptr : v.c_str();
  } catch (...) {
    return nullptr;
  }
}

tg_cuda_compile_only_ext MakeExt() {
  auto e = tg_kit::NewExtension<tg_cuda_compile_only_ext>(TG_CUDA_COMPILE_ONLY_NAME, TG_CUDA_COMPILE_ONLY_VERSION);
  e.compile = Compile;
  e.free_code = FreeCode;
  e.compiler_version = CompilerVersion;
  return e;
}

const tg_cuda_compile_only_ext kExt = MakeExt();

}  // namespace

const tg_ext* CompileOnlyExtension() { return &kExt.base; }

}  // namespace tg_cuda
