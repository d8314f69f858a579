// binary_envelope.cc: sealing and checking "elf-so" binaries (layout in binary_envelope.h).
#include "plugins/cpu/binary_envelope.h"

namespace tg_cpu {
namespace {

constexpr char kMagic[8] = {'T', 'G', 'C', 'P', 'U', 'B', 'I', 'N'};
constexpr uint32_t kVersion = 1;
constexpr size_t kVersionAt = 8, kLengthAt = 12, kChecksumAt = 20, kHeaderSize = 28;

// Explicit little-endian, so a cached binary means the same on any host that can run it.
void PutLe(std::string* out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out->push_back(static_cast<char>(v >> (8 * i)));
}
uint64_t GetLe(std::string_view in, size_t at, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= uint64_t(static_cast<unsigned char>(in[at + i])) << (8 * i);
  return v;
}

// Compares as much of the magic as |bytes| holds: a short prefix of ours is "truncated" below,
// anything else is "foreign".
bool MagicMatches(std::string_view bytes) {
  std::string_view magic(kMagic, sizeof kMagic);
  return bytes.substr(0, magic.size()) == magic.substr(0, bytes.size());
}

// Magic, size and version; on success the fixed header can be read.
bool CheckHeader(std::string_view sealed, std::string* why) {
  if (!MagicMatches(sealed)) {
    *why = "foreign binary (no TGCPUBIN header: not from this plugin's program_binary)";
    return false;
  }
  if (sealed.size() < kHeaderSize) {
    *why = "truncated binary (" + std::to_string(sealed.size()) + " bytes, shorter than its header)";
    return false;
  }
  if (uint32_t v = uint32_t(GetLe(sealed, kVersionAt, 4)); v != kVersion) {
    *why = "foreign binary (envelope version " + std::to_string(v) + ", this plugin reads " +
           std::to_string(kVersion) + ")";
    return false;
  }
  return true;
}

}  // namespace

uint64_t Fnv1a64(std::string_view bytes) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (char c : bytes) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ull;
  return h;
}

std::string SealBinary(std::string_view payload) {
  std::string out(kMagic, sizeof kMagic);
  out.reserve(kHeaderSize + payload.size());
  PutLe(&out, kVersion, 4);
  PutLe(&out, payload.size(), 8);
  PutLe(&out, Fnv1a64(payload), 8);
  out.append(payload);
  return out;
}

bool UnsealBinary(std::string_view sealed, std::string_view* payload, std::string* why) {
  if (!CheckHeader(sealed, why)) return false;
  uint64_t want = GetLe(sealed, kLengthAt, 8), have = sealed.size() - kHeaderSize;
  if (have != want) {
    *why = std::string(have < want ? "truncated" : "corrupt") + " binary (payload of " +
           std::to_string(have) + " bytes, header says " + std::to_string(want) + ")";
    return false;
  }
  std::string_view body = sealed.substr(kHeaderSize);
  if (Fnv1a64(body) != GetLe(sealed, kChecksumAt, 8)) {
    *why = "corrupt binary (checksum mismatch)";
    return false;
  }
  *payload = body;
  return true;
}

namespace {
constexpr char kTrailerMagic[8] = {'T', 'G', 'C', 'P', 'U', 'S', 'U', 'M'};
constexpr size_t kTrailerSize = 24;
}  // namespace

std::string AppendTrailer(std::string_view payload) {
  std::string out(payload);
  out.append(kTrailerMagic, sizeof kTrailerMagic);
  PutLe(&out, payload.size(), 8);
  PutLe(&out, Fnv1a64(payload), 8);
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
  if (GetLe(file, at + 8, 8) != at) {
    *why = "corrupt file (length " + std::to_string(at) + ", trailer says " +
           std::to_string(GetLe(file, at + 8, 8)) + ")";
    return false;
  }
  std::string_view body = file.substr(0, at);
  if (Fnv1a64(body) != GetLe(file, at + 16, 8)) {
    *why = "corrupt file (checksum mismatch)";
    return false;
  }
  *payload = body;
  return true;
}

}  // namespace tg_cpu
