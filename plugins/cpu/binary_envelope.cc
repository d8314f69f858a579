// binary_envelope.cc: "elf-so" binaries in the kit's envelope, and the checksum trailer of the
// plugin's cached shared objects (layouts in binary_envelope.h).
#include "plugins/cpu/binary_envelope.h"

#include "plugins/kit/binary_envelope.h"
#include "plugins/kit/fnv1a64.h"
#include "plugins/kit/little_endian.h"

namespace tg_cpu {
namespace {

constexpr tg_kit::BinaryEnvelope kEnvelope("TGCPUBIN");
constexpr char kTrailerMagic[8] = {'T', 'G', 'C', 'P', 'U', 'S', 'U', 'M'};
constexpr size_t kTrailerSize = 24;

}  // namespace

uint64_t Fnv1a64(std::string_view bytes) { return tg_kit::Fnv1a64(bytes); }

std::string SealBinary(std::string_view payload) { return kEnvelope.Seal(payload); }

bool UnsealBinary(std::string_view sealed, std::string_view* payload, std::string* why) {
  return kEnvelope.Unseal(sealed, payload, why);
}

std::string AppendTrailer(std::string_view payload) {
  std::string out(payload);
  out.append(kTrailerMagic, sizeof kTrailerMagic);
  tg_kit::PutLe(&out, payload.size(), 8);
  tg_kit::PutLe(&out, tg_kit::Fnv1a64(payload), 8);
  return out;
}

bool CheckTrailer(std::string_view file, std::string_view* payload, std::string* why) {
  if (file.size() < kTrailerSize ||
      file.substr(file.size() - kTrailerSize, sizeof kTrailerMagic) !=
          std::string_view(kTrailerMagic, sizeof kTrailerMagic)) {
    *why = "no TGCPUSUM trailer (truncated, or written by an older plugin)";
    return false;
  }
  size_t at = file.size() - kTrailerSize;
  if (uint64_t length = tg_kit::GetLe(file, at + 8, 8); length != at) {
    *why = "corrupt file (length " + std::to_string(at) + ", trailer says " + std::to_string(length) + ")";
    return false;
  }
  std::string_view body = file.substr(0, at);
  if (tg_kit::Fnv1a64(body) != tg_kit::GetLe(file, at + 16, 8)) {
    *why = "corrupt file (checksum mismatch)";
    return false;
  }
  *payload = body;
  return true;
}

}  // namespace tg_cpu
