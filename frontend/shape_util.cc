#include "frontend/shape_util.h"

#include <algorithm>
#include <string>

#include "ir/error.h"

namespace tg {

int64_t NormalizeAxis(int64_t axis, int64_t ndim, std::string_view op) {
  int64_t lo = ndim == 0 ? -1 : -ndim, hi = ndim == 0 ? 0 : ndim - 1;
  if (axis < lo || axis > hi)
    throw Error(std::string(op) + ": axis " + std::to_string(axis) + " is out of range for a tensor of rank " +
                std::to_string(ndim) + " (allowed: " + std::to_string(lo) + " to " + std::to_string(hi) + ")");
  return axis < 0 ? axis + std::max<int64_t>(ndim, 1) : axis;
}

Shape BroadcastShapes(const Shape& a, const Shape& b, std::string_view op) {
  size_t n = std::max(a.size(), b.size());
  Shape out(n);
  for (size_t i = 0; i < n; ++i) {
    int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    if (da != db && da != 1 && db != 1)
      throw Error(std::string(op) + ": shapes " + ShapeString(a) + " and " + ShapeString(b) +
                  " cannot be broadcast together (axis " + std::to_string(i) + ": " + std::to_string(da) +
                  " vs " + std::to_string(db) + "; each axis must match or be 1)");
    out[i] = da == 1 ? db : da;
  }
  return out;
}

int64_t Numel(const Shape& shape) {
  // A shape with a 0 has no elements, however large its other axes (no overflow to report then).
  if (std::find(shape.begin(), shape.end(), 0) != shape.end()) return 0;
  int64_t n = 1;
  for (int64_t d : shape)
    if (__builtin_mul_overflow(n, d, &n))
      throw Error("shape " + ShapeString(shape) + " has more elements than an int64 counts (2^63 - 1); " +
                  "each tensor must have fewer");
  return n;
}

}  // namespace tg
