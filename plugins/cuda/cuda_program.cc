// cuda_program.cc: module loading with the JIT error log, and NVRTC for cuda-c.
#include "plugins/cuda/cuda_program.h"

#include <cstring>
#include <string_view>

#include "plugins/cuda/cuda_api.h"
#include "plugins/cuda/nvrtc_compiler.h"
#include "plugins/cuda/scoped_context.h"
#include "plugins/kit/binary_envelope.h"

namespace tg_cuda {
namespace {

// The driver's loader is not ours to trust with a truncated image, so cached binaries are sealed.
constexpr tg_kit::BinaryEnvelope kEnvelope("TGCUDBIN");

// Loads |image| (a CUBIN, or PTX text that must end in NUL) and finds |entry|. |fail_code| is
// the code of a refused image (INVALID_ARGUMENT for source, FAILED_PRECONDITION for binaries).
tg_error* LoadModule(tg_device* d, const std::string& format, std::string image, const std::string& entry,
                     tg_code fail_code, tg_program** out) {
  ScopedContext current;
  if (tg_error* e = current.Enter(d)) return e;
  std::string image_z = image + '\0';  // PTX must be NUL-terminated; harmless after a CUBIN
  char log[8192] = {};
  CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void* vals[] = {log, reinterpret_cast<void*>(uintptr_t(sizeof log - 1))};
  CUmodule module = nullptr;
  CUresult r = Cu().cuModuleLoadDataEx(&module, image_z.data(), 2, opts, vals);
  if (r != CUDA_SUCCESS) {
    return MakeError(fail_code, "cuModuleLoadDataEx (" + format + "): " + CuResultName(r) + "\nJIT log:\n" + log);
  }
  CUfunction fn = nullptr;
  r = Cu().cuModuleGetFunction(&fn, module, entry.c_str());
  if (r != CUDA_SUCCESS) {
    Cu().cuModuleUnload(module);
    return MakeError(TG_CODE_NOT_FOUND, "cuModuleGetFunction('" + entry + "'): " + CuResultName(r));
  }
  auto* p = new tg_program;
  p->device = d, p->module = module, p->function = fn, p->entry = entry;
  p->format = format, p->binary = kEnvelope.Seal(image);
  *out = p;
  return nullptr;
}

}  // namespace

tg_error* ProgramCompile(const tg_compile_args* args, tg_program** out) {
  if (args == nullptr || out == nullptr || !TG_HAS(args, tg_compile_args, options) || args->device == nullptr ||
      args->dialect == nullptr || args->entry == nullptr || (args->source == nullptr && args->source_len > 0)) {
    return MakeError(TG_CODE_INVALID_ARGUMENT, "program_compile: NULL or short argument");
  }
  std::string source(args->source != nullptr ? args->source : "", args->source_len);
  std::string dialect = args->dialect;
  if (dialect == "ptx") return LoadModule(args->device, "ptx", source, args->entry, TG_CODE_INVALID_ARGUMENT, out);
  if (dialect != "cuda-c") {
    return MakeError(TG_CODE_INVALID_ARGUMENT, "program_compile: dialect '" + dialect + "' (cuda-c or ptx)");
  }
  std::string cubin;
  if (tg_error* e = NvrtcCompile(source, args->device->arch, args->options, NvrtcOutput::kCubin, &cubin)) return e;
  return LoadModule(args->device, "cubin", std::move(cubin), args->entry, TG_CODE_INVALID_ARGUMENT, out);
}

tg_error* ProgramLoad(tg_device* device, const char* format, const void* binary, uint64_t len,
                      const char* entry, tg_program** out) {
  if (device == nullptr || format == nullptr || entry == nullptr || out == nullptr || (binary == nullptr && len > 0)) {
    return MakeError(TG_CODE_INVALID_ARGUMENT, "program_load: NULL argument");
  }
  std::string f = format;
  if (f != "cubin" && f != "ptx") {
    return MakeError(TG_CODE_FAILED_PRECONDITION, "program_load: format '" + f + "' (cubin or ptx)");
  }
  std::string_view sealed = binary != nullptr ? std::string_view(static_cast<const char*>(binary), len)
                                               : std::string_view();
  std::string why;
  std::string_view image;
  // Before the driver sees the bytes: its loader's behaviour on a truncated image is not ours.
  if (!kEnvelope.Unseal(sealed, &image, &why)) {
    return MakeError(TG_CODE_FAILED_PRECONDITION, "program_load: " + why);
  }
  return LoadModule(device, f, std::string(image), entry, TG_CODE_FAILED_PRECONDITION, out);
}

tg_error* ProgramBinary(tg_program* program, const char** format, const void** binary, uint64_t* len) {
  if (program == nullptr || format == nullptr || binary == nullptr || len == nullptr) {
    return MakeError(TG_CODE_INVALID_ARGUMENT, "program_binary: NULL argument");
  }
  *format = program->format.c_str();
  *binary = program->binary.data();
  *len = program->binary.size();
  return nullptr;
}

void ProgramDestroy(tg_program* program) {
  if (program == nullptr) return;
  ScopedContext current;
  if (current.TryEnter(program->device)) {
    Cu().cuStreamSynchronize(program->device->stream);
    Cu().cuModuleUnload(program->module);
  }
  delete program;
}

}  // namespace tg_cuda
