// ocl_program.cc: clBuildProgram from source or binary, and CL_PROGRAM_BINARIES for the cache.
//
// Binary format "opencl-binary": the driver's CL_PROGRAM_BINARIES bytes sealed with the device's
// compile_fingerprint (plugins/kit/binary_envelope.h). Length, checksum and fingerprint are checked
// before the driver sees the bytes: some drivers crash on truncated or foreign binaries instead of
// returning CL_INVALID_BINARY.
#include "plugins/opencl/ocl_program.h"

#include <cstring>
#include <string_view>
#include <vector>

#include "plugins/kit/binary_envelope.h"
#include "plugins/opencl/cl_api.h"

namespace tg_ocl {
namespace {

constexpr char kFormat[] = "opencl-binary";
constexpr tg_kit::BinaryEnvelope kEnvelope("TGOCLBIN");

std::string BuildLog(cl_program program, cl_device_id device) {
  size_t n = 0;
  Cl().clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n);
  std::string log(n, '\0');
  if (n > 0) Cl().clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, n, log.data(), nullptr);
  while (!log.empty() && log.back() == '\0') log.pop_back();
  return log;
}

// Builds |program| and creates the |entry| kernel; on success |out| owns both. On failure
// |program| is released and the error carries |fail_code| and the build log.
tg_error* BuildAndWrap(tg_device* d, cl_program program, const char* options, const std::string& entry,
                       tg_code fail_code, tg_program** out) {
  cl_int s = Cl().clBuildProgram(program, 1, &d->id, options != nullptr ? options : "", nullptr, nullptr);
  if (s != CL_SUCCESS) {
    std::string log = BuildLog(program, d->id);
    Cl().clReleaseProgram(program);
    return MakeError(fail_code, "clBuildProgram failed: " + ClStatusName(s) + "\nbuild log:\n" + log);
  }
  cl_kernel kernel = Cl().clCreateKernel(program, entry.c_str(), &s);
  if (s != CL_SUCCESS) {
    Cl().clReleaseProgram(program);
    tg_code code = s == CL_INVALID_KERNEL_NAME ? TG_CODE_NOT_FOUND : CodeForStatus(s);
    return MakeError(code, "clCreateKernel('" + entry + "'): " + ClStatusName(s));
  }
  auto* p = new tg_program;
  p->device = d;
  p->program = program;
  p->kernel = kernel;
  p->entry = entry;
  *out = p;
  return nullptr;
}

// Checks the envelope and that it was built for |d|; on success |*payload| is the driver's part.
tg_error* OpenEnvelope(const tg_device* d, std::string_view sealed, std::string_view* payload) {
  std::string why;
  std::string_view fp;
  if (!kEnvelope.Unseal(sealed, payload, &why, &fp)) {
    return MakeError(TG_CODE_FAILED_PRECONDITION, "program_load: " + why);
  }
  if (fp != d->fingerprint) {
    return MakeError(TG_CODE_FAILED_PRECONDITION, "program_load: binary was built for '" + std::string(fp) +
                                                      "', this device is '" + d->fingerprint + "'");
  }
  return nullptr;
}

}  // namespace

tg_error* ProgramCompile(const tg_compile_args* args, tg_program** out) {
  if (args == nullptr || out == nullptr || !TG_HAS(args, tg_compile_args, options) ||
      args->device == nullptr || args->dialect == nullptr || args->entry == nullptr ||
      (args->source == nullptr && args->source_len > 0)) {
    return MakeError(TG_CODE_INVALID_ARGUMENT, "program_compile: NULL or short argument");
  }
  if (std::strcmp(args->dialect, "opencl-c") != 0) {
    return MakeError(TG_CODE_INVALID_ARGUMENT,
                     std::string("program_compile: dialect '") + args->dialect + "' (only opencl-c)");
  }
  const char* src = args->source != nullptr ? args->source : "";
  size_t len = args->source_len;
  cl_int s = CL_SUCCESS;
  cl_program program = Cl().clCreateProgramWithSource(args->device->context, 1, &src, &len, &s);
  if (tg_error* e = CheckCl(s, "clCreateProgramWithSource")) return e;
  return BuildAndWrap(args->device, program, args->options, args->entry, TG_CODE_INVALID_ARGUMENT, out);
}

tg_error* ProgramLoad(tg_device* device, const char* format, const void* binary, uint64_t len,
                      const char* entry, tg_program** out) {
  if (device == nullptr || format == nullptr || entry == nullptr || out == nullptr ||
      (binary == nullptr && len > 0)) {
    return MakeError(TG_CODE_INVALID_ARGUMENT, "program_load: NULL argument");
  }
  if (std::strcmp(format, kFormat) != 0) {
    return MakeError(TG_CODE_FAILED_PRECONDITION,
                     std::string("program_load: format '") + format + "' (only opencl-binary)");
  }
  std::string_view payload;
  std::string_view sealed = binary != nullptr ? std::string_view(static_cast<const char*>(binary), len)
                                               : std::string_view();
  if (tg_error* e = OpenEnvelope(device, sealed, &payload)) return e;
  size_t n = payload.size();
  auto* bytes = reinterpret_cast<const unsigned char*>(payload.data());
  cl_int binary_status = CL_SUCCESS, s = CL_SUCCESS;
  cl_program program =
      Cl().clCreateProgramWithBinary(device->context, 1, &device->id, &n, &bytes, &binary_status, &s);
  if (s != CL_SUCCESS || binary_status != CL_SUCCESS) {
    if (program != nullptr) Cl().clReleaseProgram(program);
    return MakeError(TG_CODE_FAILED_PRECONDITION, "clCreateProgramWithBinary: " +
                                                      ClStatusName(s != CL_SUCCESS ? s : binary_status));
  }
  return BuildAndWrap(device, program, nullptr, entry, TG_CODE_FAILED_PRECONDITION, out);
}

tg_error* ProgramBinary(tg_program* program, const char** format, const void** binary, uint64_t* len) {
  if (program == nullptr || format == nullptr || binary == nullptr || len == nullptr) {
    return MakeError(TG_CODE_INVALID_ARGUMENT, "program_binary: NULL argument");
  }
  std::lock_guard<std::mutex> lock(program->binary_mu);
  if (program->binary.empty()) {
    size_t size = 0;  // one device per program, so one binary
    cl_int s = Cl().clGetProgramInfo(program->program, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, nullptr);
    if (tg_error* e = CheckCl(s, "clGetProgramInfo(CL_PROGRAM_BINARY_SIZES)")) return e;
    if (size == 0) return MakeError(TG_CODE_UNIMPLEMENTED, "program_binary: the driver returned no binary");
    std::vector<unsigned char> bytes(size);
    unsigned char* ptr = bytes.data();
    s = Cl().clGetProgramInfo(program->program, CL_PROGRAM_BINARIES, sizeof ptr, &ptr, nullptr);
    if (tg_error* e = CheckCl(s, "clGetProgramInfo(CL_PROGRAM_BINARIES)")) return e;
    program->binary = kEnvelope.Seal({reinterpret_cast<const char*>(bytes.data()), bytes.size()},
                                     program->device->fingerprint);
  }
  *format = kFormat;
  *binary = program->binary.data();
  *len = program->binary.size();
  return nullptr;
}

void ProgramDestroy(tg_program* program) {
  if (program == nullptr) return;
  Cl().clReleaseKernel(program->kernel);
  Cl().clReleaseProgram(program->program);
  delete program;
}

}  // namespace tg_ocl
