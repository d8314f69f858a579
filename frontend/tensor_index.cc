// Python's t[...] and t[...] = v (frontend/index.h spells the indices). Basic indices become
// SHRINK/FLIP/RESHAPE views; integer tensors become one-hot masks reduced with a sum, as tinygrad
// does, so everything stays lazy and differentiable. setitem is the same walk run backwards: the new
// value is placed with pads and masks, and a WHERE picks it over the old value.
#include <algorithm>

#include "frontend/index.h"
#include "frontend/op_util.h"
#include "frontend/shape_util.h"
#include "frontend/tensor_state.h"

namespace tg {

SliceIndices slice_indices(const Slice& s, int64_t size) {
  if (s.step == 0) throw Error("index: a slice step must not be 0");
  auto adjust = [&](std::optional<int64_t> v, int64_t dflt) {
    if (!v) return dflt;
    int64_t x = *v < 0 ? *v + size : *v;
    if (x < 0) return s.step < 0 ? int64_t{-1} : int64_t{0};
    if (x >= size) return s.step < 0 ? size - 1 : size;
    return x;
  };
  return {adjust(s.start, s.step > 0 ? 0 : size - 1), adjust(s.stop, s.step > 0 ? size : -1), s.step};
}

namespace {

enum class Kind { kInt, kSlice, kNewAxis, kTensor };

// One index after parsing: the window [begin, end) it reads, its stride, and its extent afterwards.
struct Parsed {
  Kind kind;
  int64_t size = 1, begin = 0, end = 1, stride = 1;
  std::optional<Tensor> tensor;
};

bool Is(const Index& i, size_t alt) { return i.value.index() == alt; }
constexpr size_t kSliceAlt = 1, kNewAxisAlt = 2, kEllipsisAlt = 3;

// The ellipsis (or the end of the list) becomes as many full slices as the real indices leave.
std::vector<Index> Normalize(const std::vector<Index>& indices, int64_t ndim) {
  int64_t ellipses = 0, real = 0;
  for (const Index& i : indices) {
    ellipses += Is(i, kEllipsisAlt);
    real += !Is(i, kEllipsisAlt) && !Is(i, kNewAxisAlt);
  }
  if (ellipses > 1) throw Error("index: at most one tg::Ellipsis is allowed, got " + std::to_string(ellipses));
  if (real > ndim)
    throw Error("index: " + std::to_string(real) + " indices for a tensor of rank " + std::to_string(ndim) +
                "; give at most one per axis");
  std::vector<Index> out;
  bool filled = false;
  for (const Index& i : indices) {
    if (Is(i, kEllipsisAlt)) {
      out.insert(out.end(), ndim - real, Index(Slice{}));
      filled = true;
    } else {
      out.push_back(i);
    }
  }
  if (!filled) out.insert(out.end(), ndim - real, Index(Slice{}));
  return out;
}

// The window [begin, end) of slice.indices(size) and how many elements the step visits.
Parsed ParseSlice(const Slice& s, int64_t size) {
  const auto [start, stop, step] = slice_indices(s, size);
  Parsed p{Kind::kSlice};
  p.stride = step;
  if (step * (stop - start) < 0) p.begin = p.end = 0;
  else if (step < 0) p.begin = stop + 1, p.end = start + 1;
  else p.begin = start, p.end = stop;
  p.size = CeilDiv(p.end - p.begin, std::abs(step));
  return p;
}

Parsed ParseOne(const Index& index, const Tensor& self, int64_t dim) {
  if (Is(index, kNewAxisAlt)) return Parsed{Kind::kNewAxis};
  int64_t size = self.shape()[dim];
  if (const int64_t* i = std::get_if<int64_t>(&index.value)) {
    if (*i >= size || *i < -size)
      throw Error("index: index " + std::to_string(*i) + " is out of bounds for axis " + std::to_string(dim) +
                  " of " + ShapeString(self.shape()) + " (allowed: " + std::to_string(-size) + " to " +
                  std::to_string(size - 1) + ")");
    int64_t b = *i < 0 ? *i + size : *i;
    return Parsed{Kind::kInt, size, b, b + 1};
  }
  if (const Slice* s = std::get_if<Slice>(&index.value)) return ParseSlice(*s, size);
  const Tensor& t = std::get<Tensor>(index.value);
  if (!t.dtype().is_int())
    throw Error("index: index tensors must have an integer dtype, got " + t.dtype().name() +
                " (cast with .cast(tg::dtypes::int32))");
  if (t.device() != self.device())
    throw Error("index: the index tensor is on " + t.device() + " but the tensor is on " + self.device());
  Parsed p{Kind::kTensor, size, 0, size};
  p.tensor = (t < 0).where(t + size, t);  // negative indices count from the end
  return p;
}

// SHRINK to each window, FLIP negative steps, then keep every stride-th element by padding the axis to a
// multiple of the stride, splitting it into (n, stride) and keeping column 0.
Tensor ApplyViewOps(const Tensor& x0, const std::vector<Parsed>& mops) {
  Pads bounds;
  std::vector<int> flips;
  for (size_t d = 0; d < mops.size(); ++d) {
    bounds.emplace_back(mops[d].begin, mops[d].end);
    if (mops[d].stride < 0) flips.push_back(static_cast<int>(d));
  }
  Tensor x = x0.shrink(bounds).flip(flips);
  if (std::all_of(mops.begin(), mops.end(), [](const Parsed& p) { return std::abs(p.stride) == 1; })) return x;
  Pads pads, keep;
  Shape split, out;
  for (size_t d = 0; d < mops.size(); ++d) {
    int64_t st = std::abs(mops[d].stride), s = x.shape()[d], n = CeilDiv(s, st);
    pads.emplace_back(0, n * st - s);
    split.insert(split.end(), {n, st});
    keep.insert(keep.end(), {{0, n}, {0, 1}});
    out.push_back(n);
  }
  return x.pad(pads).reshape(split).shrink(keep).reshape(out);
}

Tensor And(const std::optional<Tensor>& a, const Tensor& b) {  // broadcasting logical and
  if (!a) return b;
  Shape s = BroadcastShapes(a->shape(), b.shape(), "index");
  return Tensor(logical_and(a->cast(dtypes::bool_).expand(s).uop(), b.cast(dtypes::bool_).expand(s).uop()), b.device());
}

Tensor GetItem(const Tensor& self, const std::vector<Index>& indices, const std::optional<Tensor>& v);

// Several index tensors on consecutive axes read one flattened axis with a single linear index.
Tensor LinearGather(const Tensor& x, const std::vector<int64_t>& dims, const std::vector<Tensor>& ts, const Shape& big) {
  Shape pre(x.shape().begin(), x.shape().begin() + dims[0]), post(x.shape().begin() + dims.back() + 1, x.shape().end());
  int64_t stride = 1;
  std::optional<Tensor> linear, valid;
  for (size_t i = dims.size(); i-- > 0;) {
    int64_t s = x.shape()[dims[i]];
    linear = linear ? *linear + ts[i] * stride : ts[i] * stride;
    valid = And(valid, And(ts[i] >= 0, ts[i] < s));
    stride *= s;
  }
  Shape flat = pre;
  flat.push_back(stride);
  flat.insert(flat.end(), post.begin(), post.end());
  std::vector<Index> idx(pre.size(), Index(Slice{}));
  idx.emplace_back(valid->where(*linear, 0));
  Tensor got = GetItem(x.reshape(flat), idx, std::nullopt);
  Shape vshape(pre.size(), 1);
  vshape.insert(vshape.end(), big.begin(), big.end());
  vshape.insert(vshape.end(), post.size(), 1);
  return valid->reshape(vshape).where(got, ValueOf(got, 0));
}

}  // namespace

// Writes |values| where |mask| holds, reducing the (contiguous) mask axes [a0, a0+n): when several
// entries hit one element the last wins, as a sequential scatter would. O(1) graph: the winner is the
// largest (k+1) among the mask hits, found with one max reduce.
Tensor MaskedMerge(const Tensor& self, const Tensor& values, const Tensor& mask, int64_t a0, int64_t n) {
  Shape ms(mask.shape().begin(), mask.shape().begin() + a0);
  int64_t k = 1;
  for (int64_t i = 0; i < n; ++i) k *= mask.shape()[a0 + i];
  ms.push_back(k);
  ms.insert(ms.end(), mask.shape().begin() + a0 + n, mask.shape().end());
  Shape full = BroadcastShapes(mask.shape(), values.shape(), "setitem");
  Tensor m = mask.expand(full).reshape(ms), vals = values.expand(full).reshape(ms);
  Tensor score = m.where(AxisArange(k, a0, static_cast<int64_t>(ms.size()), self.device()) + 1, 0);
  Tensor last = score.max({static_cast<int>(a0)}, true);
  Tensor pick = And(m, score.eq(last));
  Tensor merged = SumKeepDType(pick.where(vals, ValueOf(vals, 0)), {static_cast<int>(a0)});
  return (last.squeeze(static_cast<int>(a0)) > 0).where(merged, self);
}

namespace {

// Places |vb| (shaped like the basic-indexed view) back into |self|'s shape and selects it there.
Tensor PlaceBasic(const Tensor& self, Tensor vb, const std::vector<Parsed>& mops) {
  std::optional<Tensor> inside;
  std::vector<int> flips;
  Pads pads;
  for (size_t d = 0; d < mops.size(); ++d) {
    const Parsed& m = mops[d];
    int64_t st = std::abs(m.stride), n = self.shape()[d];
    if (st != 1) {  // un-stride: interleave with zeros, then cut to the window
      Shape s = vb.shape();
      vb = vb.unsqueeze(static_cast<int>(d) + 1);
      Pads p(vb.ndim(), {0, 0});
      p[d + 1] = {0, st - 1};
      s[d] *= st;
      vb = vb.pad(p).reshape(s);
      Pads cut;
      for (int64_t j = 0; j < vb.ndim(); ++j) cut.emplace_back(0, j == static_cast<int64_t>(d) ? m.end - m.begin : s[j]);
      vb = vb.shrink(cut);
    }
    std::vector<bool> hit(n);  // which positions of this axis the index writes (host-side: it is static)
    for (int64_t i = 0; i < n; ++i)
      hit[i] = i >= m.begin && i < m.end && ((m.stride < 0 ? m.end - 1 - i : i - m.begin) % st == 0);
    Shape hs(self.ndim(), 1);
    hs[d] = n;
    inside = And(inside, Tensor::from_vector(hit, hs, self.device()));
    if (m.stride < 0) flips.push_back(static_cast<int>(d));
    pads.emplace_back(m.begin, n - m.end);
  }
  vb = vb.flip(flips).pad(pads);
  if (!inside) return vb;
  return inside->where(vb, self);
}

}  // namespace

namespace {

// tinygrad's _getitem: with |v| absent it reads, with |v| present it returns self with v written in.
Tensor GetItem(const Tensor& self, const std::vector<Index>& raw, const std::optional<Tensor>& v) {
  std::vector<Parsed> parsed, mops;
  int64_t dim = 0;
  for (const Index& i : Normalize(raw, self.ndim())) {
    parsed.push_back(ParseOne(i, self, dim));
    if (parsed.back().kind != Kind::kNewAxis) mops.push_back(parsed.back()), ++dim;
  }
  Shape view;
  for (const Parsed& p : parsed)
    if (p.kind != Kind::kInt) view.push_back(p.size);
  Tensor x = ApplyViewOps(self, mops).reshape(view);
  std::vector<int64_t> dims;
  std::vector<Tensor> ts;
  Shape big;
  int64_t d = 0;
  for (const Parsed& p : parsed) {
    if (p.kind == Kind::kInt) continue;
    if (p.kind == Kind::kTensor) {
      dims.push_back(d), ts.push_back(*p.tensor);
      big = ts.size() == 1 ? p.tensor->shape() : BroadcastShapes(big, p.tensor->shape(), "index");
    }
    ++d;
  }
  Tensor vb = x;
  if (!dims.empty()) {
    bool consecutive = dims.back() - dims.front() + 1 == static_cast<int64_t>(dims.size());
    if (!v && dims.size() > 1 && consecutive) return LinearGather(x, dims, ts, big);
    int64_t d0 = dims[0], nb = static_cast<int64_t>(big.size());
    Shape pre_reduce(x.shape().begin(), x.shape().begin() + d0), reshape_arg = pre_reduce;
    pre_reduce.insert(pre_reduce.end(), big.begin(), big.end());
    pre_reduce.insert(pre_reduce.end(), x.shape().begin() + d0, x.shape().end());
    reshape_arg.insert(reshape_arg.end(), nb, 1);
    reshape_arg.insert(reshape_arg.end(), x.shape().begin() + d0, x.shape().end());
    std::optional<Tensor> mask;
    for (size_t i = 0; i < dims.size(); ++i) {
      Shape s = ts[i].shape();
      s.insert(s.end(), x.ndim() - d0, 1);
      Tensor e = ts[i].reshape(s).expand(pre_reduce);
      mask = And(mask, OneHotAlongDim(e, x.shape()[dims[i]], static_cast<int>(dims[i] - x.ndim()), "index"));
    }
    std::vector<int> sum_axes;
    for (int64_t dd : dims) sum_axes.push_back(static_cast<int>(dd + nb));
    Tensor x_pre = x;
    x = SumKeepDType(mask->where(x.reshape(reshape_arg), ValueOf(x, 0)), sum_axes);
    // Index tensors split by a slice move their broadcast axes to the front, as numpy does.
    bool permuted = d0 != 0 && dims.size() != 1 && !consecutive;
    if (permuted) {
      std::vector<int> perm;
      for (int64_t i = d0; i < d0 + nb; ++i) perm.push_back(static_cast<int>(i));
      for (int64_t i = 0; i < d0; ++i) perm.push_back(static_cast<int>(i));
      for (int64_t i = d0 + nb; i < mask->ndim(); ++i) perm.push_back(static_cast<int>(i));
      mask = mask->permute(perm);
      std::vector<int> xp;
      for (int64_t i = d0; i < d0 + nb; ++i) xp.push_back(static_cast<int>(i));
      for (int64_t i = 0; i < d0; ++i) xp.push_back(static_cast<int>(i));
      for (int64_t i = d0 + nb; i < x.ndim(); ++i) xp.push_back(static_cast<int>(i));
      x = x.permute(xp);
    }
    if (!v) return x;
    Tensor w = v->expand(BroadcastShapes(x.shape(), v->shape(), "setitem"));
    for (int a : sum_axes) w = w.unsqueeze(a);
    vb = MaskedMerge(x_pre, w, *mask, permuted ? 0 : d0, nb);
  } else if (!v) {
    return x;
  } else {
    vb = v->expand(x.shape());
  }
  Shape placed;
  for (const Parsed& p : parsed)
    if (p.kind != Kind::kNewAxis) placed.push_back(p.kind == Kind::kInt ? 1 : p.size);
  return PlaceBasic(self, vb.reshape(placed), mops);
}

}  // namespace

Tensor Tensor::operator[](const std::vector<Index>& indices) const { return GetItem(*this, indices, std::nullopt); }
Tensor Tensor::index(const std::vector<Index>& indices) const { return GetItem(*this, indices, std::nullopt); }

Tensor& Tensor::setitem(const std::vector<Index>& indices, const Tensor& value) {
  if (value.dtype() != dtype())
    throw Error("setitem: the value's dtype " + value.dtype().name() + " differs from the tensor's " + dtype().name() +
                "; cast it with .cast(tg::dtypes::" + dtype().name() + ")");
  if (value.device() != device())
    throw Error("setitem: the value is on " + value.device() + " but the tensor is on " + device());
  Tensor updated = GetItem(*this, indices, value);
  state_->uop = updated.uop();  // every handle sharing this state sees the new value
  return *this;
}

Tensor& Tensor::setitem(const std::vector<Index>& indices, Scalar value) {
  return setitem(indices, Tensor::full({}, value, dtype(), device()));
}

}  // namespace tg
