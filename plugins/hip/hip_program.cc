// hip_program.cc: hiprtc for hip-c and hipModuleLoadData for code objects.
#include "plugins/hip/hip_program.h"

#include <cstring>
#include <string_view>

#include "plugins/hip/hip_api.h"
#include "plugins/hip/hiprtc_compiler.h"
#include "plugins/kit/binary_envelope.h"

namespace tg_hip {
namespace {

// The runtime reads a code object's offsets before it can know its size, so cached binaries are
// sealed and checked before it sees them.
constexpr tg_kit::BinaryEnvelope kEnvelope("TGHIPBIN");

tg_error* LoadModule(tg_device* d, std::string image, const std::string& entry, tg_code fail_code,
                     tg_program** out) {
  if (tg_error* e = MakeCurrent(d)) return e;
  // The runtime reads ELF headers before it can know the size: refuse what is not ELF ourselves.
  if (image.size() < 64 || image.compare(0, 4, "\x7f" "ELF") != 0) {
    return MakeError(fail_code, "not an AMDGPU code object (no ELF header)");
  }
  hipModule_t module = nullptr;
  hipError_t r = Hip().hipModuleLoadData(&module, image.data());
  if (r != hipSuccess) return MakeError(fail_code, "hipModuleLoadData: " + HipErrorText(r));
  hipFunction_t fn = nullptr;
  r = Hip().hipModuleGetFunction(&fn, module, entry.c_str());
  if (r != hipSuccess) {
    Hip().hipModuleUnload(module);
    return MakeError(TG_CODE_NOT_FOUND, "hipModuleGetFunction('" + entry + "'): " + HipErrorText(r));
  }
  auto* p = new tg_program;
  p->device = d, p->module = module, p->function = fn, p->entry = entry, p->image = std::move(image);
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
  if (std::strcmp(args->dialect, "hip-c") != 0) {
    return MakeError(TG_CODE_INVALID_ARGUMENT, std::string("program_compile: dialect '") + args->dialect + "' (only hip-c)");
  }
  std::string source(args->source != nullptr ? args->source : "", args->source_len);
  std::string code;
  if (tg_error* e = HiprtcCompile(source, args->device->arch, args->options, &code)) return e;
  return LoadModule(args->device, std::move(code), args->entry, TG_CODE_INVALID_ARGUMENT, out);
}

tg_error* ProgramLoad(tg_device* device, const char* format, const void* binary, uint64_t len,
                      const char* entry, tg_program** out) {
  if (device == nullptr || format == nullptr || entry == nullptr || out == nullptr || (binary == nullptr && len > 0)) {
    return MakeError(TG_CODE_INVALID_ARGUMENT, "program_load: NULL argument");
  }
  if (std::strcmp(format, "hsaco") != 0) {
    return MakeError(TG_CODE_FAILED_PRECONDITION, std::string("program_load: format '") + format + "' (only hsaco)");
  }
  std::string_view sealed = binary != nullptr ? std::string_view(static_cast<const char*>(binary), len)
                                               : std::string_view();
  std::string why;
  std::string_view image;
  // Before the runtime sees the bytes: it trusts the ELF offsets of a truncated code object.
  if (!kEnvelope.Unseal(sealed, &image, &why)) {
    return MakeError(TG_CODE_FAILED_PRECONDITION, "program_load: " + why);
  }
  return LoadModule(device, std::string(image), entry, TG_CODE_FAILED_PRECONDITION, out);
}

tg_error* ProgramBinary(tg_program* program, const char** format, const void** binary, uint64_t* len) {
  if (program == nullptr || format == nullptr || binary == nullptr || len == nullptr) {
    return MakeError(TG_CODE_INVALID_ARGUMENT, "program_binary: NULL argument");
  }
  std::call_once(program->binary_once, [program] { program->binary = kEnvelope.Seal(program->image); });
  *format = "hsaco";
  *binary = program->binary.data();
  *len = program->binary.size();
  return nullptr;
}

void ProgramDestroy(tg_program* program) {
  if (program == nullptr) return;
  program->device->programs.Remove(program);
  if (MakeCurrent(program->device) == nullptr) {
    Hip().hipStreamSynchronize(program->device->stream);
    Hip().hipModuleUnload(program->module);
  }
  delete program;
}

void ReleaseProgram(tg_program* program) {
  Hip().hipModuleUnload(program->module);
  delete program;
}

}  // namespace tg_hip
