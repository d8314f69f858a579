// cuda_program.cc: module loading with the JIT error log, and NVRTC for cuda-c.
#include "plugins/cuda/cuda_program.h"

#include <cstring>
#include <string_view>

#include "plugins/cuda/cuda_api.h"
#include "plugins/cuda/entry_params.h"
#include "plugins/cuda/nvrtc_compiler.h"
#include "plugins/cuda/scoped_context.h"
#include "plugins/kit/binary_envelope.h"

namespace tg_cuda {
namespace {

// The driver's loader is not ours to trust with a truncated image, so cached binaries are sealed.
// The envelope's fingerprint field carries the kernels' parameter counts (entry_params.h): the
// driver checks a cubin's arch itself, and nothing else in a cubin tells a launch what it takes.
constexpr tg_kit::BinaryEnvelope kEnvelope("TGCUDBIN");

// A module and the parameter counts of its kernels.
struct Module {
  std::string format;  // "cubin" or "ptx"
  std::string image;   // a CUBIN, or PTX text
  EntryParams params;
};

// Loads |m| and finds |entry|. |fail_code| is the code of a refused image (INVALID_ARGUMENT for
// source, FAILED_PRECONDITION for binaries).
tg_error* LoadModule(tg_device* d, Module m, const std::string& entry, tg_code fail_code, tg_program** out) {
  ScopedContext current;
  if (tg_error* e = current.Enter(d)) return e;
  std::string image_z = m.image + '\0';  // PTX must be NUL-terminated; harmless after a CUBIN
  char log[8192] = {};
  CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void* vals[] = {log, reinterpret_cast<void*>(uintptr_t(sizeof log - 1))};
  CUmodule module = nullptr;
  CUresult r = Cu().cuModuleLoadDataEx(&module, image_z.data(), 2, opts, vals);
  if (r != CUDA_SUCCESS) {
    return MakeError(fail_code, "cuModuleLoadDataEx (" + m.format + "): " + CuResultName(r) + "\nJIT log:\n" + log);
  }
  CUfunction fn = nullptr;
  r = Cu().cuModuleGetFunction(&fn, module, entry.c_str());
  auto count = m.params.find(entry);
  tg_error* e = nullptr;
  if (r != CUDA_SUCCESS) {
    e = MakeError(TG_CODE_NOT_FOUND, "cuModuleGetFunction('" + entry + "'): " + CuResultName(r));
  } else if (count == m.params.end()) {
    // The driver has the kernel but its signature was not read: refused rather than launched blind.
    e = MakeError(fail_code, "'" + entry + "': the kernel's parameter list was not found in its PTX");
  }
  if (e != nullptr) {
    Cu().cuModuleUnload(module);
    return e;
  }
  auto* p = new tg_program;
  p->device = d, p->module = module, p->function = fn, p->entry = entry, p->num_params = count->second;
  p->format = m.format, p->binary = kEnvelope.Seal(m.image, EncodeEntryParams(m.params));
  d->programs.Add(p);
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
  if (dialect == "ptx") {
    EntryParams params = PtxEntryParams(source);
    return LoadModule(args->device, {"ptx", std::move(source), std::move(params)}, args->entry,
                      TG_CODE_INVALID_ARGUMENT, out);
  }
  if (dialect != "cuda-c") {
    return MakeError(TG_CODE_INVALID_ARGUMENT, "program_compile: dialect '" + dialect + "' (cuda-c or ptx)");
  }
  const tg_device* d = args->device;
  if (d->nvrtc == nullptr) return MakeError(TG_CODE_UNAVAILABLE, "program_compile: " + d->no_nvrtc);
  // A cubin for the device's sm_XX, never PTX: an NVRTC of a newer minor version than the driver
  // makes PTX the driver's JIT refuses, and cubins the driver loads.
  std::string cubin, ptx;
  if (tg_error* e = NvrtcCompile(*d->nvrtc, source, d->arch, args->options, NvrtcOutput::kCubin, &cubin, &ptx)) {
    return e;
  }
  return LoadModule(args->device, {"cubin", std::move(cubin), PtxEntryParams(ptx)}, args->entry,
                    TG_CODE_INVALID_ARGUMENT, out);
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
  std::string_view image, params_text;
  // Before the driver sees the bytes: its loader's behaviour on a truncated image is not ours.
  if (!kEnvelope.Unseal(sealed, &image, &why, &params_text)) {
    return MakeError(TG_CODE_FAILED_PRECONDITION, "program_load: " + why);
  }
  Module m{f, std::string(image), {}};
  if (!DecodeEntryParams(params_text, &m.params)) {
    return MakeError(TG_CODE_FAILED_PRECONDITION,
                     "program_load: the binary does not record its kernels' parameters (an older plugin made "
                     "it): recompile");
  }
  return LoadModule(device, std::move(m), entry, TG_CODE_FAILED_PRECONDITION, out);
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
  program->device->programs.Remove(program);
  ReleaseProgram(program);
}

void ReleaseProgram(tg_program* program) {
  ScopedContext current;
  if (current.TryEnter(program->device)) {
    Cu().cuStreamSynchronize(program->device->stream);
    Cu().cuModuleUnload(program->module);
  }
  delete program;
}

}  // namespace tg_cuda
