// binary_envelope.h: the self-validating wrapper around the CUBIN or PTX image that program_binary
// returns (formats "cubin" and "ptx"). A host cache can hand back a truncated or corrupted file,
// and what the driver's loader does with one is not ours to promise, so program_load checks the
// envelope before cuModuleLoadDataEx sees anything.
//
// Layout, little-endian, 28-byte header then the payload (the CUBIN or PTX bytes):
//   0  magic "TGCUDBIN"    8  uint32 version (1)
//   12 uint64 payload length    20 uint64 FNV-1a-64 of the payload
#ifndef TG_PLUGINS_CUDA_BINARY_ENVELOPE_H_
#define TG_PLUGINS_CUDA_BINARY_ENVELOPE_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace tg_cuda {

// FNV-1a, 64-bit: catches truncation and bit flips; not a defence against a deliberate forgery.
uint64_t Fnv1a64(std::string_view bytes);

// |payload| behind a header that lets UnsealBinary verify it.
std::string SealBinary(std::string_view payload);

// Checks magic, version, exact length and checksum of |sealed|. On success |*payload| views the
// bytes inside |sealed|; otherwise returns false and |*why| says truncated, corrupt or foreign.
bool UnsealBinary(std::string_view sealed, std::string_view* payload, std::string* why);

}  // namespace tg_cuda

#endif  // TG_PLUGINS_CUDA_BINARY_ENVELOPE_H_
