// nvrtc_compiler.cc: one NVRTC program per compile, its log on failure.
#include "plugins/cuda/nvrtc_compiler.h"

#include <sstream>
#include <vector>

#include "plugins/cuda/cuda_api.h"

namespace tg_cuda {
namespace {

std::string ProgramLog(const NvrtcApi& nv, nvrtcProgram prog) {
  size_t n = 0;
  if (nv.nvrtcGetProgramLogSize(prog, &n) != NVRTC_SUCCESS || n == 0) return "";
  std::string log(n, '\0');
  if (nv.nvrtcGetProgramLog(prog, log.data()) != NVRTC_SUCCESS) return "";
  while (!log.empty() && log.back() == '\0') log.pop_back();
  return log;
}

// Copies the program's PTX or CUBIN into |out|.
tg_error* TakeOutput(const NvrtcApi& nv, nvrtcProgram prog, NvrtcOutput output, std::string* out) {
  bool ptx = output == NvrtcOutput::kPtx;
  size_t n = 0;
  nvrtcResult r = ptx ? nv.nvrtcGetPTXSize(prog, &n) : nv.nvrtcGetCUBINSize(prog, &n);
  if (r != NVRTC_SUCCESS || n == 0) {
    return MakeError(TG_CODE_INVALID_ARGUMENT, std::string("NVRTC produced no ") + (ptx ? "PTX" : "CUBIN") +
                                                   " (a virtual compute_XX arch has no CUBIN)");
  }
  out->assign(n, '\0');
  r = ptx ? nv.nvrtcGetPTX(prog, out->data()) : nv.nvrtcGetCUBIN(prog, out->data());
  if (r != NVRTC_SUCCESS) return MakeError(TG_CODE_INTERNAL, nv.nvrtcGetErrorString(r));
  if (ptx) {
    while (!out->empty() && out->back() == '\0') out->pop_back();  // size counts the NUL
  }
  return nullptr;
}

}  // namespace

tg_error* NvrtcCompile(const NvrtcApi& nv, const std::string& source, const std::string& arch,
                       const char* extra_options, NvrtcOutput output, std::string* out, std::string* ptx) {
  std::vector<std::string> opts = {"--gpu-architecture=" + arch, "-default-device"};
  if (!nv.headers.empty()) opts.push_back("--include-path=" + nv.headers);
  if (extra_options != nullptr) {
    std::istringstream in(extra_options);
    for (std::string o; in >> o;) opts.push_back(o);
  }
  std::vector<const char*> argv;
  for (const std::string& o : opts) argv.push_back(o.c_str());
  nvrtcProgram prog = nullptr;
  nvrtcResult r = nv.nvrtcCreateProgram(&prog, source.c_str(), "tg_kernel.cu", 0, nullptr, nullptr);
  if (r != NVRTC_SUCCESS) return MakeError(TG_CODE_INTERNAL, std::string("nvrtcCreateProgram: ") + nv.nvrtcGetErrorString(r));
  r = nv.nvrtcCompileProgram(prog, int(argv.size()), argv.data());
  tg_error* err = nullptr;
  if (r != NVRTC_SUCCESS) {
    err = MakeError(TG_CODE_INVALID_ARGUMENT, std::string("NVRTC compile failed (") + nv.nvrtcGetErrorString(r) +
                                                  ") for " + arch + "\nlog:\n" + ProgramLog(nv, prog));
  } else {
    err = TakeOutput(nv, prog, output, out);
    if (err == nullptr && ptx != nullptr) err = TakeOutput(nv, prog, NvrtcOutput::kPtx, ptx);
  }
  nv.nvrtcDestroyProgram(&prog);
  return err;
}

std::string NvrtcDescription() {
  const NvrtcApi* nv = LoadNvrtc(nullptr);
  return nv == nullptr ? "" : nv->library + " " + nv->version;
}

}  // namespace tg_cuda
