// entry_params.h: how many parameters each kernel of a module takes, so a launch with another number
// of arguments is refused before cuLaunchKernel reads kernelParams past what the caller passed (the
// driver trusts the count and reads garbage, or faults the context).
//
// Read from the module's PTX (a "ptx" program's source; the PTX NVRTC makes on the way to a cubin),
// and carried in the envelope of program_binary, since a cubin does not say it in a form the driver
// API reads back on every driver we support.
#ifndef TG_PLUGINS_CUDA_ENTRY_PARAMS_H_
#define TG_PLUGINS_CUDA_ENTRY_PARAMS_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

namespace tg_cuda {

// Kernel name -> number of parameters.
using EntryParams = std::map<std::string, uint32_t, std::less<>>;

// Every `.entry name(.param ..., .param ...)` of |ptx|, comments ignored; an entry without a
// parameter list takes none.
EntryParams PtxEntryParams(std::string_view ptx);

// "params k=4,k2=0", and back; Decode is false for anything else (a binary an older plugin made).
std::string EncodeEntryParams(const EntryParams& params);
bool DecodeEntryParams(std::string_view text, EntryParams* params);

}  // namespace tg_cuda

#endif  // TG_PLUGINS_CUDA_ENTRY_PARAMS_H_
