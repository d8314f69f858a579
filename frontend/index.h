// The spelling of Python's t[...] in C++: a list of tg::Index, each an int, a tg::Slice, tg::NewAxis,
// tg::Ellipsis or an integer tg::Tensor. Read by Tensor::operator[] / index / setitem (tensor_index.cc).
//
//   t[{1}]                                  t[1]
//   t[{tg::Slice{1, -1, 2}, 0}]             t[1:-1:2, 0]
//   t[{tg::Slice{.step = -1}}]              t[::-1]
//   t[{tg::Slice{.stop = 3}, tg::NewAxis}]  t[:3, None]
//   t[{tg::Ellipsis, idx}]                  t[..., idx]     (idx: an integer Tensor)
//   t.setitem({0, tg::Slice{}}, 5.0f)       t[0, :] = 5
#ifndef TG_FRONTEND_INDEX_H_
#define TG_FRONTEND_INDEX_H_

#include <concepts>
#include <cstdint>
#include <optional>
#include <variant>

#include "frontend/tensor.h"

namespace tg {

// Python's start:stop:step. An absent bound means the end of the axis in the direction of |step|;
// negative bounds count from the end; bounds past the axis clamp, as in Python.
struct Slice {
  std::optional<int64_t> start;
  std::optional<int64_t> stop;
  int64_t step = 1;
};

// Python's slice(start, stop, step).indices(size): the first index |s| visits on an axis of |size|, the
// bound it stops before (-1 when a negative step runs through the front), and the step. tg::Error for a
// step of 0.
struct SliceIndices {
  int64_t start, stop, step;
};
SliceIndices slice_indices(const Slice& s, int64_t size);

struct NewAxisT {};  // Python's None in an index: a new size-1 axis
struct EllipsisT {};  // Python's ...: as many full slices as the other indices leave
inline constexpr NewAxisT NewAxis{};
inline constexpr EllipsisT Ellipsis{};

// One entry of an index list; converts implicitly from each of the spellings above.
struct Index {
  // Any integer type (int, int64_t, size_t loop counters); implicit on purpose, so {1, tg::Slice{}} reads
  // as t[1, :]. bool is left out: Python's t[True] is a new axis, not index 1.
  template <std::integral I>
    requires(!std::same_as<I, bool>)
  Index(I i) : value(static_cast<int64_t>(i)) {}  // NOLINT
  Index(Slice s) : value(s) {}                      // NOLINT
  Index(NewAxisT n) : value(n) {}                   // NOLINT
  Index(EllipsisT e) : value(e) {}                  // NOLINT
  Index(Tensor t) : value(std::move(t)) {}          // NOLINT
  std::variant<int64_t, Slice, NewAxisT, EllipsisT, Tensor> value;
};

}  // namespace tg

#endif  // TG_FRONTEND_INDEX_H_
