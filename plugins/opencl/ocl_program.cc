// ocl_program.cc: clBuildProgram from source or binary, and CL_PROGRAM_BINARIES for the cache.
//
// Binary layout (format "opencl-binary"): "TGCLBIN1", a little-endian uint32 length, the device's
// compile_fingerprint, then the driver's CL_PROGRAM_BINARIES bytes. The fingerprint check turns a
// binary from another driver or device into FAILED_PRECONDITION before the driver sees it (some
// drivers crash on foreign binaries instead of returning CL_INVALID_BINARY).
#include "plugins/opencl/ocl_program.h"

#include <cstring>
#include <vector>

#include "plugins/opencl/cl_api.h"

namespace tg_ocl {
namespace {

constexpr char kMagic[8] = {'T', 'G', 'C', 'L', 'B', 'I', 'N', '1'};
constexpr char kFormat[] = "opencl-binary";

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

// Checks our header; on success |*payload| / |*payload_len| is the driver's part.
tg_error* ParseHeader(const tg_device* d, const char* bytes, uint64_t len, const char** payload,
                      uint64_t* payload_len) {
  uint32_t fp_len = 0;
  if (len < sizeof kMagic + 4 || std::memcmp(bytes, kMagic, sizeof kMagic) != 0) {
    return MakeError(TG_CODE_FAILED_PRECONDITION, "program_load: not an opencl-binary of this plugin");
  }
  std::memcpy(&fp_len, bytes + sizeof kMagic, 4);
  uint64_t head = sizeof kMagic + 4 + uint64_t(fp_len);
  if (head > len) return MakeError(TG_CODE_FAILED_PRECONDITION, "program_load: truncated binary");
  std::string fp(bytes + sizeof kMagic + 4, fp_len);
  if (fp != d->fingerprint) {
    return MakeError(TG_CODE_FAILED_PRECONDITION, "program_load: binary was built for '" + fp +
                                                      "', this device is '" + d->fingerprint + "'");
  }
  *payload = bytes + head;
  *payload_len = len - head;
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
  const char* payload = nullptr;
  uint64_t payload_len = 0;
  if (tg_error* e = ParseHeader(device, static_cast<const char*>(binary), len, &payload, &payload_len)) {
    return e;
  }
  size_t n = payload_len;
  auto* bytes = reinterpret_cast<const unsigned char*>(payload);
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
    const std::string& fp = program->device->fingerprint;
    uint32_t fp_len = uint32_t(fp.size());
    std::string out(kMagic, sizeof kMagic);
    out.append(reinterpret_cast<const char*>(&fp_len), 4);
    out += fp;
    out.append(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    program->binary = std::move(out);
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
