// SPDX-License-Identifier: Apache-2.0
// binary_envelope.h: the self-validating wrapper around the bytes program_binary returns.
//
// A host cache can hand back a truncated, corrupted or foreign file, and what a driver's loader or
// dlopen() does with one is not ours to promise (a truncated ELF is SIGBUS; some OpenCL drivers
// crash instead of returning CL_INVALID_BINARY). So program_binary seals its bytes and program_load
// unseals them before anything else sees them, answering FAILED_PRECONDITION (recompile) when the
// envelope does not hold.
//
// Layout, version 2, little-endian: a 32-byte header, the fingerprint, then the payload.
//   0  magic (8 bytes, one per plugin: "TGCPUBIN", "TGOCLBIN", ...)    8  uint32 version (2)
//   12 uint32 fingerprint length    16 uint64 payload length
//   24 uint64 FNV-1a-64 of the fingerprint and payload bytes
// The fingerprint says what the payload was built for (a device's compile_fingerprint); plugins
// whose driver checks that itself leave it empty.
#ifndef TG_PLUGINS_KIT_BINARY_ENVELOPE_H_
#define TG_PLUGINS_KIT_BINARY_ENVELOPE_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "plugins/kit/fnv1a64.h"
#include "plugins/kit/little_endian.h"

namespace tg_kit {

class BinaryEnvelope {
 public:
  static constexpr uint32_t kVersion = 2;
  static constexpr size_t kHeaderSize = 32;

  // |magic|: the 8 characters that name this plugin's binaries.
  explicit constexpr BinaryEnvelope(const char (&magic)[9]) : magic_(magic, 8) {}

  // |payload|, built for |fingerprint|, behind a header that Unseal verifies.
  std::string Seal(std::string_view payload, std::string_view fingerprint = {}) const {
    std::string out(magic_);
    out.reserve(kHeaderSize + fingerprint.size() + payload.size());
    PutLe(&out, kVersion, 4);
    PutLe(&out, fingerprint.size(), 4);
    PutLe(&out, payload.size(), 8);
    PutLe(&out, Fnv1a64(payload, Fnv1a64(fingerprint)), 8);
    out.append(fingerprint);
    out.append(payload);
    return out;
  }

  // Checks magic, version, exact length and checksum of |sealed|. On success |*payload| (and
  // |*fingerprint|, when not NULL) view bytes inside |sealed|; otherwise returns false and |*why|
  // says truncated, corrupt or foreign.
  bool Unseal(std::string_view sealed, std::string_view* payload, std::string* why,
              std::string_view* fingerprint = nullptr) const {
    if (!CheckHeader(sealed, why)) return false;
    // Subtractions only: a garbage length near 2^64 must not wrap into a match.
    uint64_t fp_len = GetLe(sealed, 12, 4), want = GetLe(sealed, 16, 8);
    uint64_t after_header = sealed.size() - kHeaderSize;
    if (fp_len > after_header || after_header - fp_len != want) {
      bool short_read = fp_len > after_header || after_header - fp_len < want;
      *why = std::string(short_read ? "truncated" : "corrupt") + " binary (" +
             std::to_string(sealed.size()) + " bytes, header says " +
             std::to_string(kHeaderSize + fp_len) + " + " + std::to_string(want) + ")";
      return false;
    }
    std::string_view fp = sealed.substr(kHeaderSize, fp_len), body = sealed.substr(kHeaderSize + fp_len);
    if (Fnv1a64(body, Fnv1a64(fp)) != GetLe(sealed, 24, 8)) {
      *why = "corrupt binary (checksum mismatch)";
      return false;
    }
    *payload = body;
    if (fingerprint != nullptr) *fingerprint = fp;
    return true;
  }

 private:
  // Magic, size and version; on success the fixed header can be read. A short prefix of our
  // magic is "truncated", anything else "foreign".
  bool CheckHeader(std::string_view sealed, std::string* why) const {
    if (sealed.substr(0, magic_.size()) != magic_.substr(0, sealed.size())) {
      *why = "foreign binary (no " + std::string(magic_) + " header: not from this plugin's program_binary)";
      return false;
    }
    if (sealed.size() < kHeaderSize) {
      *why = "truncated binary (" + std::to_string(sealed.size()) + " bytes, shorter than its header)";
      return false;
    }
    if (uint32_t v = uint32_t(GetLe(sealed, 8, 4)); v != kVersion) {
      *why = "foreign binary (envelope version " + std::to_string(v) + ", this plugin reads " +
             std::to_string(kVersion) + ")";
      return false;
    }
    return true;
  }

  std::string_view magic_;
};

}  // namespace tg_kit

#endif  // TG_PLUGINS_KIT_BINARY_ENVELOPE_H_
