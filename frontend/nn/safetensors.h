// tg::nn safetensors IO: safe_load (lazy, memory-mapped), safe_load_metadata and safe_save, for every
// dtype the format and tinygrad-cc share. Files in, tensors out: the loading end of tg::nn's state.
#ifndef TG_FRONTEND_NN_SAFETENSORS_H_
#define TG_FRONTEND_NN_SAFETENSORS_H_

#include <map>
#include <string>
#include <string_view>

#include "frontend/nn/state.h"

namespace tg::nn {

// The format (github.com/huggingface/safetensors): an 8-byte little-endian header length, a JSON object
// {"name": {"dtype": "F32", "shape": [2, 3], "data_offsets": [begin, end]}, ..., "__metadata__": {"k": "v"}},
// then the data, offsets relative to its start. Dtypes: BOOL U8 I8 U16 I16 U32 I32 U64 I64 F16 BF16 F32 F64.

// The tensors of |path| on |device| ("" = default). Only the header is read now: the file is memory-
// mapped and each tensor's bytes are copied to the device the first time a realize needs them (the
// mapping lives as long as an unread tensor does; the file must not change meanwhile). Any malformed
// file (header past the end, invalid JSON, bad dtype, shape, or offsets) is a tg::Error naming the fault.
StateDict safe_load(const std::string& path, std::string_view device = "");

// The "__metadata__" map of |path| (empty when absent); validates the whole header as safe_load does.
std::map<std::string, std::string> safe_load_metadata(const std::string& path);

// Writes |tensors| (realized in one schedule) and |metadata| to |path|, replacing it. tg::Error when it
// cannot be written.
void safe_save(const StateDict& tensors, const std::string& path,
               const std::map<std::string, std::string>& metadata = {});

}  // namespace tg::nn

#endif  // TG_FRONTEND_NN_SAFETENSORS_H_
