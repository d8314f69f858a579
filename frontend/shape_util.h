// Shape arithmetic of the front end: axis normalization and numpy broadcasting, with the user
// errors they raise. Used by tg::Tensor before it records any UOp (docs/architecture.md).
#ifndef TG_FRONTEND_SHAPE_UTIL_H_
#define TG_FRONTEND_SHAPE_UTIL_H_

#include <cstdint>
#include <string_view>
#include <vector>

#include "ir/uop.h"

namespace tg {

// |axis| in [-ndim, ndim) mapped to [0, ndim); throws tg::Error naming |op| and the rank.
int64_t NormalizeAxis(int64_t axis, int64_t ndim, std::string_view op);

// The broadcast of two shapes (numpy rules, aligned right); throws naming both shapes.
Shape BroadcastShapes(const Shape& a, const Shape& b, std::string_view op);

int64_t Numel(const Shape& shape);

}  // namespace tg

#endif  // TG_FRONTEND_SHAPE_UTIL_H_
