// binary_envelope.h: the self-validating wrapper around the driver's CL_PROGRAM_BINARIES bytes that
// program_binary returns ("opencl-binary"). Some drivers (PoCL among them) crash on a truncated or
// foreign binary instead of returning CL_INVALID_BINARY, so program_load checks the envelope and
// the device fingerprint before clCreateProgramWithBinary sees anything.
//
// Layout, little-endian, 32-byte header, the fingerprint, then the payload (the driver's bytes):
//   0  magic "TGOCLBIN"    8  uint32 version (1)    12 uint32 fingerprint length
//   16 uint64 payload length    24 uint64 FNV-1a-64 of the payload
// (The earlier "TGCLBIN1" layout had no length or checksum; it now reads as foreign: recompile.)
#ifndef TG_PLUGINS_OPENCL_BINARY_ENVELOPE_H_
#define TG_PLUGINS_OPENCL_BINARY_ENVELOPE_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace tg_ocl {

// FNV-1a, 64-bit: catches truncation and bit flips; not a defence against a deliberate forgery.
uint64_t Fnv1a64(std::string_view bytes);

// |payload|, built for the device with |fingerprint|, behind a header UnsealBinary verifies.
std::string SealBinary(std::string_view fingerprint, std::string_view payload);

// Checks magic, version, exact length and checksum of |sealed|. On success |*fingerprint| and
// |*payload| view bytes inside |sealed| (the caller compares the fingerprint with its device's);
// otherwise returns false and |*why| says truncated, corrupt or foreign.
bool UnsealBinary(std::string_view sealed, std::string_view* fingerprint, std::string_view* payload,
                  std::string* why);

}  // namespace tg_ocl

#endif  // TG_PLUGINS_OPENCL_BINARY_ENVELOPE_H_
