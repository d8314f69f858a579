// binary_envelope.h: the self-validating wrapper around the AMDGPU code object that program_binary
// returns ("hsaco"). The HIP runtime reads ELF headers and offsets before it can know the image's
// size, so a truncated or corrupted code object could crash it: program_load checks the envelope
// before hipModuleLoadData sees anything.
//
// Layout, little-endian, 28-byte header then the payload (the code object):
//   0  magic "TGHIPBIN"    8  uint32 version (1)
//   12 uint64 payload length    20 uint64 FNV-1a-64 of the payload
#ifndef TG_PLUGINS_HIP_BINARY_ENVELOPE_H_
#define TG_PLUGINS_HIP_BINARY_ENVELOPE_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace tg_hip {

// FNV-1a, 64-bit: catches truncation and bit flips; not a defence against a deliberate forgery.
uint64_t Fnv1a64(std::string_view bytes);

// |payload| behind a header that lets UnsealBinary verify it.
std::string SealBinary(std::string_view payload);

// Checks magic, version, exact length and checksum of |sealed|. On success |*payload| views the
// bytes inside |sealed|; otherwise returns false and |*why| says truncated, corrupt or foreign.
bool UnsealBinary(std::string_view sealed, std::string_view* payload, std::string* why);

}  // namespace tg_hip

#endif  // TG_PLUGINS_HIP_BINARY_ENVELOPE_H_
