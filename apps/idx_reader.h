// IDX files (the MNIST family's format), gzip-compressed or not: a strict parser and a file reader.
// Data in for the apps (README.md): bytes to a validated array, before any tg::Tensor exists.
#ifndef TG_APPS_IDX_READER_H_
#define TG_APPS_IDX_READER_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace tg::apps {

// The format (yann.lecun.com/exdb/mnist): bytes 0-1 are zero, byte 2 the element type, byte 3 the
// number of dimensions; then one big-endian uint32 per dimension; then the elements, row-major,
// big-endian. Type codes: 0x08 uint8, 0x09 int8, 0x0B int16, 0x0C int32, 0x0D float32, 0x0E float64.
enum class IdxType : uint8_t { kUint8 = 0x08, kInt8 = 0x09, kInt16 = 0x0B, kInt32 = 0x0C, kFloat32 = 0x0D, kFloat64 = 0x0E };

// A parsed IDX array. |data| holds the elements in host byte order, ElementSize(type) bytes each.
struct IdxArray {
  IdxType type;
  std::vector<int64_t> dims;
  std::vector<unsigned char> data;

  int64_t numel() const;
};

size_t ElementSize(IdxType type);

// Parses |bytes| (already decompressed). InvalidArgument, naming the fault, unless the first two bytes
// are zero, the type code is known, there are 1-8 dimensions, the header fits, and the rest of |bytes|
// is exactly prod(dims) * element size long (trailing bytes are an error too: a mislabeled file). Never
// reads past |bytes|; a product that overflows is rejected before anything is allocated.
absl::StatusOr<IdxArray> ParseIdx(std::string_view bytes);

// Reads |path| whole, inflating it when it is gzip (zlib reads plain files unchanged). NotFound when it
// does not exist; DataLoss when the gzip stream is corrupt or inflates past |max_bytes|.
absl::StatusOr<std::string> ReadMaybeGzip(const std::string& path, size_t max_bytes = size_t{1} << 30);

// ReadMaybeGzip then ParseIdx, with a tg::Error naming |path| and the fault on any failure. A plain file
// larger than the load budget (frontend/load_budget.h) is refused before it is read, a gzip file that
// inflates past it as soon as it does.
IdxArray LoadIdx(const std::string& path);

}  // namespace tg::apps

#endif  // TG_APPS_IDX_READER_H_
