#include "compiler/schedule/reduce_store_order.h"

#include <optional>

namespace tg::compiler {
namespace {

using Index = std::vector<int64_t>;

int64_t RowMajor(const Index& idx, const Shape& shape) {
  int64_t flat = 0;
  for (size_t k = 0; k < shape.size(); ++k) flat = flat * shape[k] + idx[k];
  return flat;
}

Index FromRowMajor(int64_t flat, const Shape& shape) {
  Index idx(shape.size());
  for (size_t k = shape.size(); k-- > 0;) {
    idx[k] = shape[k] == 0 ? 0 : flat % shape[k];
    flat = shape[k] == 0 ? 0 : flat / shape[k];
  }
  return idx;
}

// The index into |op|'s source |from| that element |idx| of |op| reads; nullopt where the question
// has no single answer (a reduce's loop, a padded element, an assign's target).
std::optional<Index> IndexIntoSource(const UOp* op, const UOp* from, Index idx) {
  const Shape& in = from->shape();
  switch (op->op()) {
    case Ops::kReshape: return FromRowMajor(RowMajor(idx, op->shape()), in);
    case Ops::kPermute: {
      const auto& perm = op->arg_as<std::vector<int64_t>>();
      Index out(idx.size());
      for (size_t k = 0; k < perm.size(); ++k) out[perm[k]] = idx[k];
      return out;
    }
    case Ops::kExpand:
      for (size_t k = 0; k < idx.size(); ++k)
        if (in[k] == 1) idx[k] = 0;
      return idx;
    case Ops::kShrink: {
      const auto& bounds = op->arg_as<std::vector<int64_t>>();
      for (size_t k = 0; k < idx.size(); ++k) idx[k] += bounds[2 * k];
      return idx;
    }
    case Ops::kPad: {
      const auto& pads = op->arg_as<std::vector<int64_t>>();
      for (size_t k = 0; k < idx.size(); ++k) {
        idx[k] -= pads[2 * k];
        if (idx[k] < 0 || idx[k] >= in[k]) return std::nullopt;
      }
      return idx;
    }
    case Ops::kFlip: {
      const auto& flip = op->arg_as<std::vector<int64_t>>();
      for (size_t k = 0; k < idx.size(); ++k)
        if (flip[k]) idx[k] = in[k] - 1 - idx[k];
      return idx;
    }
    case Ops::kReduce: return std::nullopt;
    case Ops::kAssign:
      if (op->src(0).get() == from) return std::nullopt;
      return idx;
    default:  // elementwise, CONTIGUOUS, DETACH, CAST: the same element of a same-shaped source
      if (in != op->shape()) return std::nullopt;
      return idx;
  }
}

// The reduce's row-major output index that root element |idx| reads along |path|.
std::optional<int64_t> ReduceElementRead(const UOp* reduce, const std::vector<const UOp*>& path, Index idx) {
  for (size_t i = path.size(); i-- > 0;) {
    const UOp* from = i == 0 ? reduce : path[i - 1];
    std::optional<Index> next = IndexIntoSource(path[i], from, std::move(idx));
    if (!next) return std::nullopt;
    idx = std::move(*next);
  }
  return RowMajor(idx, reduce->shape());
}

}  // namespace

bool StoresReduceOutOfOrder(const UOp* reduce, const std::vector<const UOp*>& path) {
  if (path.empty() || reduce->numel() <= 1) return false;
  const Shape& shape = path.back()->shape();
  int inner = -1;
  for (size_t k = 0; k < shape.size(); ++k)
    if (shape[k] > 1) inner = static_cast<int>(k);
  if (inner < 0) return false;
  // Two samples of one step along the innermost axis: at the origin and mid-tensor (a reshape can
  // look contiguous at the origin and wrap elsewhere).
  for (bool middle : {false, true}) {
    Index at(shape.size(), 0);
    if (middle)
      for (size_t k = 0; k < shape.size(); ++k) at[k] = shape[k] / 2;
    if (at[inner] + 1 >= shape[inner]) at[inner] = 0;
    Index next = at;
    ++next[inner];
    std::optional<int64_t> a = ReduceElementRead(reduce, path, at), b = ReduceElementRead(reduce, path, next);
    if (a && b && *b - *a != 1) return true;
  }
  return false;
}

}  // namespace tg::compiler
