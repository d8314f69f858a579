// IDX parsing and gzip reading (apps/idx_reader.h). Every length is checked against what is left of
// the input before it is used, since a fuzzer feeds this arbitrary bytes.
#include "apps/idx_reader.h"

#include <zlib.h>

#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <limits>

#include "absl/status/status.h"
#include "frontend/load_budget.h"
#include "ir/error.h"

namespace tg::apps {
namespace {

constexpr int kMaxDims = 8;  // MNIST uses 1 and 3; anything past this is a corrupt byte 3

uint32_t BigEndian32(const unsigned char* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | uint32_t{p[3]};
}

bool KnownType(uint8_t code) {
  switch (static_cast<IdxType>(code)) {
    case IdxType::kUint8: case IdxType::kInt8: case IdxType::kInt16:
    case IdxType::kInt32: case IdxType::kFloat32: case IdxType::kFloat64:
      return true;
  }
  return false;
}

// Copies |n| big-endian elements of |size| bytes from |src| into |dst| in host (little-endian) order.
void CopyToHostOrder(const unsigned char* src, size_t n, size_t size, unsigned char* dst) {
  if (size == 1) {
    if (n != 0) std::memcpy(dst, src, n);  // an empty tensor has no buffer (dst may be null)
    return;
  }
  for (size_t i = 0; i < n; ++i)
    for (size_t b = 0; b < size; ++b) dst[i * size + b] = src[i * size + size - 1 - b];
}

// True when |path| starts with gzip's magic bytes 1f 8b.
bool IsGzip(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return false;
  unsigned char magic[2] = {0, 0};
  size_t got = std::fread(magic, 1, 2, f);
  std::fclose(f);
  return got == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
}

}  // namespace

size_t ElementSize(IdxType type) {
  switch (type) {
    case IdxType::kUint8: case IdxType::kInt8: return 1;
    case IdxType::kInt16: return 2;
    case IdxType::kInt32: case IdxType::kFloat32: return 4;
    case IdxType::kFloat64: return 8;
  }
  return 0;
}

int64_t IdxArray::numel() const {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

absl::StatusOr<IdxArray> ParseIdx(std::string_view bytes) {
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  if (bytes.size() < 4)
    return absl::InvalidArgumentError("IDX: " + std::to_string(bytes.size()) + " bytes, shorter than the 4-byte magic");
  if (p[0] != 0 || p[1] != 0)
    return absl::InvalidArgumentError("IDX: bad magic (first two bytes must be 0; not an IDX file?)");
  if (!KnownType(p[2]))
    return absl::InvalidArgumentError("IDX: unknown element type code " + std::to_string(p[2]));
  int ndims = p[3];
  if (ndims < 1 || ndims > kMaxDims)
    return absl::InvalidArgumentError("IDX: " + std::to_string(ndims) + " dimensions (expected 1-8)");
  size_t header = 4 + 4 * static_cast<size_t>(ndims);
  if (bytes.size() < header)
    return absl::InvalidArgumentError("IDX: truncated header (" + std::to_string(bytes.size()) + " bytes, needs " +
                                      std::to_string(header) + ")");
  IdxArray out{static_cast<IdxType>(p[2]), {}, {}};
  size_t elem = ElementSize(out.type), payload = elem;
  // Tensor shapes multiply as int64 even when another axis is 0 (an empty tensor of (2^32-1, 2^32-3,
  // 0) overflows there), so the nonzero dims must fit that too.
  uint64_t nonzero = 1;
  for (int i = 0; i < ndims; ++i) {
    uint32_t d = BigEndian32(p + 4 + 4 * i);
    if (d != 0 && nonzero > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) / d)
      return absl::InvalidArgumentError("IDX: dimensions overflow the addressable size");
    if (d != 0) nonzero *= d;
    // Overflow check before multiplying: the product must stay addressable.
    if (d != 0 && payload > std::numeric_limits<size_t>::max() / d)
      return absl::InvalidArgumentError("IDX: dimensions overflow the addressable size");
    payload *= d;
    out.dims.push_back(d);
  }
  size_t available = bytes.size() - header;
  if (available != payload)
    return absl::InvalidArgumentError(std::string("IDX: data is ") + std::to_string(available) + " bytes but the " +
                                      "dimensions need " + std::to_string(payload) +
                                      (available < payload ? " (truncated file)" : " (trailing bytes)"));
  out.data.resize(payload);
  CopyToHostOrder(p + header, payload / elem, elem, out.data.data());
  return out;
}

absl::StatusOr<std::string> ReadMaybeGzip(const std::string& path, size_t max_bytes) {
  gzFile file = gzopen(path.c_str(), "rb");
  if (file == nullptr) return absl::NotFoundError("cannot open " + path + ": " + std::strerror(errno));
  std::string out;
  char chunk[1 << 16];
  while (true) {
    int n = gzread(file, chunk, sizeof(chunk));
    if (n < 0) {
      int code = 0;
      std::string why = gzerror(file, &code);
      gzclose(file);
      return absl::DataLossError("corrupt gzip data in " + path + ": " + why);
    }
    if (n == 0) break;
    if (out.size() + static_cast<size_t>(n) > max_bytes) {
      gzclose(file);
      return absl::DataLossError(path + " inflates past " + std::to_string(max_bytes) +
                                 " bytes, the most it may allocate (TG_LOAD_MAX_BYTES)");
    }
    out.append(chunk, static_cast<size_t>(n));
  }
  // gzread returns 0 both at the end and on a stream cut short; gzclose tells them apart.
  int rc = gzclose(file);
  if (rc != Z_OK) return absl::DataLossError("gzip stream of " + path + " is truncated or corrupt (zlib " +
                                             std::to_string(rc) + ")");
  return out;
}

IdxArray LoadIdx(const std::string& path) {
  // A plain file is read whole: its size must fit the budget before the first byte. A gzip file's
  // inflated size is only known by inflating it, which stops at the budget.
  if (struct stat st {}; ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && !IsGzip(path))
    CheckLoadBudget(path, "the file", static_cast<uint64_t>(st.st_size));
  uint64_t budget = LoadBudgetBytes();
  absl::StatusOr<std::string> bytes =
      ReadMaybeGzip(path, static_cast<size_t>(std::min<uint64_t>(budget, std::numeric_limits<size_t>::max())));
  if (!bytes.ok()) throw Error(std::string(bytes.status().message()));
  absl::StatusOr<IdxArray> array = ParseIdx(*bytes);
  if (!array.ok()) throw Error(path + ": " + std::string(array.status().message()));
  return *std::move(array);
}

}  // namespace tg::apps
