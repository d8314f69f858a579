// cpu_program.cc: compile/load/serialize c-dialect kernels as cached shared objects, llvm-ir kernels as
// JIT objects, and parse tg-uops kernels for the interpreter.
#include "plugins/cpu/cpu_program.h"

#include <dlfcn.h>
#include <elf.h>
#include <string.h>

#include <string_view>

#include "plugins/cpu/binary_envelope.h"
#include "plugins/cpu/c_compiler.h"
#include "plugins/cpu/device_queue.h"
#include "plugins/cpu/disk_cache.h"
#include "plugins/cpu/sized_struct.h"

namespace tg_cpu {
namespace {

constexpr char kFormat[] = "elf-so";
constexpr char kObjectFormat[] = "llvm-obj";

// dlopen + dlsym. |stale_code| is the code for a library that will not load (INTERNAL after our
// own compile, FAILED_PRECONDITION for a binary the host handed us).
tg_error* OpenLibrary(tg_device* device, const std::string& path, const std::string& entry,
                      tg_code stale_code, tg_program** out) {
  void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    const char* why = dlerror();
    return MakeError(stale_code, "cannot dlopen " + path + ": " + (why ? why : "unknown error"));
  }
  void* sym = dlsym(lib, entry.c_str());
  if (sym == nullptr) {
    dlclose(lib);
    return MakeError(TG_CODE_NOT_FOUND, "entry point '" + entry + "' not found in " + path);
  }
  auto* p = new tg_program;
  p->device = device;
  p->library = lib;
  p->fn = reinterpret_cast<tg_c_kernel_fn>(sym);
  p->entry = entry;
  p->so_path = path;
  *out = p;
  return nullptr;
}

// Whether |bin| looks like something this process could dlopen: a 64-bit little-endian x86-64
// ELF shared object. Anything else is "foreign" and the host recompiles.
bool IsLoadableElf(std::string_view bin) {
  if (bin.size() < sizeof(Elf64_Ehdr)) return false;
  Elf64_Ehdr h;
  memcpy(&h, bin.data(), sizeof h);
  return memcmp(h.e_ident, ELFMAG, SELFMAG) == 0 && h.e_ident[EI_CLASS] == ELFCLASS64 &&
         h.e_ident[EI_DATA] == ELFDATA2LSB && h.e_type == ET_DYN && h.e_machine == EM_X86_64;
}

tg_program* NewJitProgram(tg_device* device, const std::string& entry, JitObject object, JitKernel jit) {
  auto* p = new tg_program;
  p->device = device;
  p->fn = jit.fn;
  p->jit = std::move(jit);
  p->object = std::move(object);
  p->entry = entry;
  return p;
}

// An llvm-ir program's binary: the CPU its code is for, its symbol and the object, NUL-separated (the
// first two never hold a NUL), sealed like the shared objects.
std::string ObjectBinary(const JitObject& o) {
  return SealBinary(o.target + '\0' + o.symbol + '\0' + o.object);
}

tg_error* LoadObject(tg_device* device, std::string_view sealed, const char* entry, tg_program** out) {
  std::string why;
  std::string_view bytes;
  if (!UnsealBinary(sealed, &bytes, &why)) return MakeError(TG_CODE_FAILED_PRECONDITION, "program_load: " + why);
  size_t a = bytes.find('\0'), b = a == std::string_view::npos ? a : bytes.find('\0', a + 1);
  if (b == std::string_view::npos) {
    return MakeError(TG_CODE_FAILED_PRECONDITION, "program_load: the llvm-obj binary has no target and symbol");
  }
  JitObject object{std::string(bytes.substr(0, a)), std::string(bytes.substr(a + 1, b - a - 1)),
                   std::string(bytes.substr(b + 1))};
  // The symbol is the entry made unique (llvm_jit.h): a binary of another kernel is refused here.
  if (object.symbol.rfind(std::string(entry) + ".tg", 0) != 0) {
    return MakeError(TG_CODE_NOT_FOUND, "entry point '" + std::string(entry) + "' not found in the llvm-obj binary");
  }
  JitKernel jit;
  if (tg_error* e = JitLoad(object, &jit)) return e;
  *out = NewJitProgram(device, entry, std::move(object), std::move(jit));
  return nullptr;
}

tg_error* CompileUops(tg_device* device, std::string_view source, const char* entry, tg_program** out) {
  std::unique_ptr<uops::UopKernel> kernel;
  if (tg_error* e = uops::UopKernel::Build(source, &kernel)) return e;
  if (kernel->entry() != entry) {
    return MakeError(TG_CODE_NOT_FOUND, "entry point '" + std::string(entry) + "' not found: the tg-uops program is '" +
                                            kernel->entry() + "'");
  }
  auto* p = new tg_program;
  p->device = device;
  p->entry = entry;
  p->uops = std::move(kernel);
  *out = p;
  return nullptr;
}

}  // namespace

tg_error* ProgramCompile(const tg_compile_args* raw, tg_program** out) {
  if (raw == nullptr || out == nullptr) {
    return MakeError(TG_CODE_INVALID_ARGUMENT, "program_compile: NULL args or out_program");
  }
  tg_compile_args a = ReadSized(raw);
  if (a.device == nullptr || a.source == nullptr || a.entry == nullptr || a.entry[0] == '\0') {
    return MakeError(TG_CODE_INVALID_ARGUMENT, "program_compile: device, source and entry are required");
  }
  std::string_view source(a.source, a.source_len);
  if (a.dialect != nullptr && strcmp(a.dialect, "llvm-ir") == 0) {
    JitObject object;
    if (tg_error* e = JitCompile(source, a.entry, &object)) return e;
    JitKernel jit;
    if (tg_error* e = JitLoad(object, &jit)) return e;
    *out = NewJitProgram(a.device, a.entry, std::move(object), std::move(jit));
    return nullptr;
  }
  if (a.dialect != nullptr && strcmp(a.dialect, TG_UOPS_DIALECT) == 0) return CompileUops(a.device, source, a.entry, out);
  if (a.dialect == nullptr || strcmp(a.dialect, "c") != 0) {
    return MakeError(TG_CODE_INVALID_ARGUMENT, std::string("program_compile: dialect '") +
                                                   (a.dialect ? a.dialect : "(null)") +
                                                   "' is not supported; the CPU plugin accepts \"c\", \"llvm-ir\" and \"tg-uops\"");
  }
  std::string so_path;
  if (tg_error* e = CompileToSharedObject(source, a.options ? a.options : "", &so_path)) return e;
  return OpenLibrary(a.device, so_path, a.entry, TG_CODE_INTERNAL, out);
}

tg_error* ProgramLoad(tg_device* device, const char* format, const void* binary, uint64_t len,
                      const char* entry, tg_program** out) {
  if (device == nullptr || out == nullptr || entry == nullptr) {
    return MakeError(TG_CODE_INVALID_ARGUMENT, "program_load: NULL device, entry or out_program");
  }
  std::string_view sealed = binary != nullptr ? std::string_view(static_cast<const char*>(binary), len)
                                               : std::string_view();
  if (format != nullptr && strcmp(format, kObjectFormat) == 0) return LoadObject(device, sealed, entry, out);
  if (format == nullptr || strcmp(format, kFormat) != 0) {
    return MakeError(TG_CODE_FAILED_PRECONDITION, std::string("program_load: format '") +
                                                      (format ? format : "(null)") +
                                                      "' is not \"elf-so\" or \"llvm-obj\"");
  }
  std::string why;
  std::string_view bytes;
  // Before anything touches the bytes: dlopen() of a truncated ELF is SIGBUS, not an error.
  if (!UnsealBinary(sealed, &bytes, &why)) {
    return MakeError(TG_CODE_FAILED_PRECONDITION, "program_load: " + why);
  }
  if (!IsLoadableElf(bytes)) {
    return MakeError(TG_CODE_FAILED_PRECONDITION,
                     "program_load: the binary is not an x86-64 ELF shared object");
  }
  std::string dir = CacheDir(&why);
  if (dir.empty()) return MakeError(TG_CODE_UNAVAILABLE, why);
  std::string path = dir + "/" + HashHex({"elf-so", bytes}) + ".so";
  if (!CachedObjectIsIntact(path, nullptr) && !WriteCachedObject(path, bytes, &why)) {
    return MakeError(TG_CODE_INTERNAL, "program_load: " + why);
  }
  return OpenLibrary(device, path, entry, TG_CODE_FAILED_PRECONDITION, out);
}

tg_error* ProgramBinary(tg_program* program, const char** out_format, const void** out_binary,
                        uint64_t* out_len) {
  if (program == nullptr || out_format == nullptr || out_binary == nullptr || out_len == nullptr) {
    return MakeError(TG_CODE_INVALID_ARGUMENT, "program_binary: NULL argument");
  }
  if (program->uops != nullptr) {
    return MakeError(TG_CODE_UNIMPLEMENTED, "program_binary: tg-uops programs have no binary: the host keeps the text");
  }
  const bool jit = program->library == nullptr;
  std::call_once(program->binary_once, [program, jit] {
    std::string so;
    if (jit) program->binary = ObjectBinary(program->object);
    else if (ReadCachedObject(program->so_path, &so, &program->binary_error)) program->binary = SealBinary(so);
  });
  if (program->binary.empty()) {
    return MakeError(TG_CODE_INTERNAL, "program_binary: " + program->binary_error);
  }
  *out_format = jit ? kObjectFormat : kFormat;
  *out_binary = program->binary.data();
  *out_len = program->binary.size();
  return nullptr;
}

void ProgramDestroy(tg_program* program) {
  if (program == nullptr) return;
  DeviceQueue::Task destroy_now = [program] {
    if (program->library != nullptr) dlclose(program->library);
    JitRelease(&program->jit);
    delete program;
  };
  // Launches still queued on the device call into the code (ABI: safe with pending launches).
  if (program->device != nullptr && program->device->queue.DeferIfBusy(destroy_now)) return;
  destroy_now();
}

}  // namespace tg_cpu
