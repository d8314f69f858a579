// High-level movement ops, each composed from RESHAPE/PERMUTE/EXPAND/PAD/SHRINK/FLIP (and ADD or
// WHERE for cat/tril), so autograd needs no rule of its own: squeeze, cat, stack, repeat, split,
// unfold, roll, diag, meshgrid, tril and the non-constant pad modes. Semantics: tinygrad's mixins.
#include <algorithm>
#include <numeric>

#include "frontend/op_util.h"
#include "frontend/shape_util.h"
#include "frontend/tensor.h"

namespace tg {
namespace {

// Like NormalizeAxis, but for ops that insert an axis: [-ndim-1, ndim] is allowed.
int64_t InsertAxis(int64_t dim, int64_t ndim, const char* op) { return NormalizeAxis(dim, ndim + 1, op); }

Pads Whole(const Tensor& t) {
  Pads b;
  for (int64_t s : t.shape()) b.emplace_back(0, s);
  return b;
}

// |t| restricted to [start, stop) along axis |d|.
Tensor Slab(const Tensor& t, int64_t d, int64_t start, int64_t stop) {
  Pads b = Whole(t);
  b[d] = {start, stop};
  return t.shrink(b);
}

Tensor Tri(int64_t r, int64_t c, int64_t diagonal, const std::string& device) {  // col - row >= diagonal
  return (AxisArange(r, 0, 2, device) + diagonal).le(AxisArange(c, 1, 2, device));
}

}  // namespace

Tensor Tensor::flatten(int start_dim, int end_dim) const {
  if (ndim() == 0) return reshape({1});
  int64_t start = NormalizeAxis(start_dim, ndim(), "flatten"), end = NormalizeAxis(end_dim, ndim(), "flatten");
  if (start > end)
    throw Error("flatten: start_dim " + std::to_string(start_dim) + " comes after end_dim " + std::to_string(end_dim));
  Shape shape(this->shape().begin(), this->shape().begin() + start);
  shape.push_back(Numel(Shape(this->shape().begin() + start, this->shape().begin() + end + 1)));
  shape.insert(shape.end(), this->shape().begin() + end + 1, this->shape().end());
  return reshape(shape);
}

Tensor Tensor::squeeze() const {
  Shape shape;
  for (int64_t s : this->shape())
    if (s != 1) shape.push_back(s);
  return reshape(shape);
}

Tensor Tensor::squeeze(int dim) const {
  int64_t d = NormalizeAxis(dim, ndim(), "squeeze");
  if (ndim() == 0 || shape()[d] != 1) return *this;
  Shape shape = this->shape();
  shape.erase(shape.begin() + d);
  return reshape(shape);
}

Tensor Tensor::unsqueeze(int dim) const {
  int64_t d = InsertAxis(dim, ndim(), "unsqueeze");
  Shape shape = this->shape();
  shape.insert(shape.begin() + d, 1);
  return reshape(shape);
}

Tensor Tensor::unflatten(int dim, const Shape& sizes) const {
  int64_t d = NormalizeAxis(dim, ndim(), "unflatten");
  Shape shape(this->shape().begin(), this->shape().begin() + d);
  shape.insert(shape.end(), sizes.begin(), sizes.end());
  shape.insert(shape.end(), this->shape().begin() + d + 1, this->shape().end());
  Shape inner = sizes;
  if (std::count(sizes.begin(), sizes.end(), -1) == 0 && Numel(sizes) != this->shape()[d])
    throw Error("unflatten: sizes " + ShapeString(sizes) + " do not multiply to axis " + std::to_string(dim) +
                " of " + ShapeString(this->shape()) + " (" + std::to_string(this->shape()[d]) + ")");
  return reshape(shape);
}

// Each piece is padded out to the full length along |dim| and the pieces are added (OR for bool):
// a sum of pads, which fuses into one kernel and whose gradient is a shrink per piece.
Tensor Tensor::cat(const std::vector<Tensor>& others, int dim) const {
  int64_t d = NormalizeAxis(dim, ndim(), "cat");
  if (ndim() == 0) throw Error("cat: zero-dimensional tensors cannot be concatenated; unsqueeze or stack them");
  std::vector<Tensor> all = {*this};
  all.insert(all.end(), others.begin(), others.end());
  DType dtype = this->dtype();
  int64_t total = 0;
  for (const Tensor& t : all) {
    bool ok = t.ndim() == ndim();
    for (int64_t i = 0; ok && i < ndim(); ++i) ok = i == d || t.shape()[i] == shape()[i];
    if (!ok)
      throw Error("cat: shape " + ShapeString(t.shape()) + " does not match " + ShapeString(shape()) +
                  " outside axis " + std::to_string(dim) + "; all axes but the joined one must be equal");
    if (t.device() != device()) throw Error("cat: tensors are on " + device() + " and " + t.device());
    dtype = PromoteTypes(dtype, t.dtype());
    total += t.shape()[d];
  }
  std::optional<Tensor> out;
  int64_t offset = 0;
  for (const Tensor& t : all) {
    // Empty pieces add nothing; skipping them also avoids a compiler crash on PAD of a 0-size buffer.
    if (t.shape()[d] == 0 && total > 0) continue;
    Pads pads(ndim(), {0, 0});
    pads[d] = {offset, total - offset - t.shape()[d]};
    offset += t.shape()[d];
    Tensor piece = t.cast(dtype).pad(pads);
    if (!out) out = piece;
    else out = dtype.is_bool() ? Tensor(logical_or(out->uop(), piece.uop()), device()) : *out + piece;
  }
  return *out;
}

Tensor Tensor::stack(const std::vector<Tensor>& others, int dim) const {
  int64_t d = InsertAxis(dim, ndim(), "stack");
  std::vector<Tensor> rest;
  for (const Tensor& t : others) {
    if (t.shape() != shape())
      throw Error("stack: shapes " + ShapeString(shape()) + " and " + ShapeString(t.shape()) +
                  " differ; stacked tensors must all have the same shape");
    rest.push_back(t.unsqueeze(static_cast<int>(d)));
  }
  return unsqueeze(static_cast<int>(d)).cat(rest, static_cast<int>(d));
}

Tensor Tensor::repeat(const Shape& repeats) const {
  if (static_cast<int64_t>(repeats.size()) < ndim())
    throw Error("repeat: " + std::to_string(repeats.size()) + " repeats for a tensor of rank " +
                std::to_string(ndim()) + "; give at least one per axis");
  Shape base(repeats.size() - ndim(), 1), unsq, expd, fin;
  base.insert(base.end(), shape().begin(), shape().end());
  for (size_t i = 0; i < repeats.size(); ++i) {
    int64_t r = repeats[i], s = base[i];
    if (r < 0) throw Error("repeat: repeats must be >= 0, got " + std::to_string(r));
    if (r != 1) unsq.push_back(1), expd.push_back(r);
    unsq.push_back(s), expd.push_back(s), fin.push_back(r * s);
  }
  return reshape(unsq).expand(expd).reshape(fin);
}

Tensor Tensor::repeat_interleave(int64_t repeats, std::optional<int> dim) const {
  if (repeats < 0) throw Error("repeat_interleave: repeats must be >= 0, got " + std::to_string(repeats));
  Tensor x = dim ? *this : flatten();
  int64_t d = dim ? NormalizeAxis(*dim, ndim(), "repeat_interleave") : 0;
  Shape unsq = x.shape(), expd = x.shape(), fin = x.shape();
  unsq.insert(unsq.begin() + d + 1, 1);
  expd.insert(expd.begin() + d + 1, repeats);
  fin[d] *= repeats;
  return x.reshape(unsq).expand(expd).reshape(fin);
}

std::vector<Tensor> Tensor::split(int64_t size, int dim) const {
  if (size <= 0) throw Error("split: the chunk size must be > 0, got " + std::to_string(size));
  int64_t n = shape()[NormalizeAxis(dim, ndim(), "split")];
  std::vector<int64_t> sizes;
  for (int64_t i = 0; i < std::max<int64_t>(n, 1); i += size) sizes.push_back(std::min(size, n - i));
  return split(sizes, dim);
}

std::vector<Tensor> Tensor::split(const std::vector<int64_t>& sizes, int dim) const {
  int64_t d = NormalizeAxis(dim, ndim(), "split");
  if (std::accumulate(sizes.begin(), sizes.end(), int64_t{0}) != shape()[d] ||
      std::any_of(sizes.begin(), sizes.end(), [](int64_t s) { return s < 0; }))
    throw Error("split: sizes must be >= 0 and sum to axis " + std::to_string(dim) + " of " +
                ShapeString(shape()) + " (" + std::to_string(shape()[d]) + ")");
  std::vector<Tensor> out;
  int64_t start = 0;
  for (int64_t s : sizes) out.push_back(Slab(*this, d, start, start + s)), start += s;
  return out;
}

std::vector<Tensor> Tensor::chunk(int64_t chunks, int dim) const {
  if (chunks <= 0) throw Error("chunk: chunks must be > 0, got " + std::to_string(chunks));
  int64_t n = shape()[NormalizeAxis(dim, ndim(), "chunk")];
  if (n == 0) return split(std::vector<int64_t>(chunks, 0), dim);
  return split(CeilDiv(n, chunks), dim);
}

Tensor Tensor::unfold(int dim, int64_t size, int64_t step) const {
  int64_t d = NormalizeAxis(dim, ndim(), "unfold");
  if (size < 0 || step <= 0 || size > shape()[d])
    throw Error("unfold: need 0 <= size <= " + std::to_string(shape()[d]) + " and step > 0, got size " +
                std::to_string(size) + ", step " + std::to_string(step));
  std::vector<int> to_last, back(ndim() + 1);
  for (int i = 0; i < ndim(); ++i)
    if (i != d) to_last.push_back(i);
  to_last.push_back(static_cast<int>(d));
  for (int i = 0; i < ndim(); ++i) back[to_last[i]] = i;
  back[ndim()] = static_cast<int>(ndim());
  return Pool(permute(to_last), {size}, {step}, {1}, "unfold").permute(back);
}

Tensor Tensor::roll(int64_t shift) const { return flatten().roll(shift, 0).reshape(shape()); }
Tensor Tensor::roll(int64_t shift, int dim) const { return roll(std::vector<int64_t>{shift}, std::vector<int>{dim}); }

// Two copies side by side, read from the offset the shift leaves.
Tensor Tensor::roll(const std::vector<int64_t>& shifts, const std::vector<int>& dims) const {
  if (shifts.size() != dims.size())
    throw Error("roll: " + std::to_string(shifts.size()) + " shifts for " + std::to_string(dims.size()) + " dims");
  if (numel() == 0) return *this;
  Shape reps(ndim(), 1);
  Pads bounds = Whole(*this);
  for (size_t i = 0; i < dims.size(); ++i) {
    int64_t d = NormalizeAxis(dims[i], ndim(), "roll"), n = shape()[d];
    int64_t delta = n - ((shifts[i] % n) + n) % n;
    reps[d] = 2;
    bounds[d] = {delta, delta + n};
  }
  return repeat(reps).shrink(bounds);
}

// A row of n+1 (the value, then n zeros), repeated: reading it as n x n puts each value on the diagonal.
Tensor Tensor::diag() const {
  if (ndim() != 1) throw Error("diag: needs a 1-D tensor, got shape " + ShapeString(shape()));
  int64_t n = shape()[0];
  return unsqueeze(-1).pad({{0, 0}, {0, n}}).flatten().shrink({{0, n * n}}).reshape({n, n});
}

Tensor Tensor::diagonal(int64_t offset, int dim1, int dim2) const {
  int64_t d1 = NormalizeAxis(dim1, ndim(), "diagonal"), d2 = NormalizeAxis(dim2, ndim(), "diagonal");
  if (d1 == d2) throw Error("diagonal: dim1 and dim2 are the same axis " + std::to_string(d1));
  std::vector<int> perm;
  for (int i = 0; i < ndim(); ++i)
    if (i != d1 && i != d2) perm.push_back(i);
  perm.push_back(static_cast<int>(d1)), perm.push_back(static_cast<int>(d2));
  Tensor x = permute(perm);
  int64_t r = ndim();
  int64_t rows = x.shape()[r - 2], cols = x.shape()[r - 1];
  int64_t n = std::max<int64_t>(0, std::min(offset >= 0 ? rows : rows + offset, offset >= 0 ? cols - offset : cols));
  Shape lead(x.shape().begin(), x.shape().end() - 2), out = lead;
  out.push_back(n);
  if (n == 0) return ConstTensor(0, dtype(), out, device());  // an empty diagonal reads nothing
  Pads b = Whole(x);
  int64_t r0 = offset >= 0 ? 0 : -offset, c0 = offset >= 0 ? offset : 0;
  b[r - 2] = {r0, r0 + n}, b[r - 1] = {c0, c0 + n};
  // n x n flattened, padded to n x (n+1): column 0 of each row is then a diagonal element.
  Tensor sq = x.shrink(b).flatten(static_cast<int>(r - 2));
  Pads p(r - 1, {0, 0});
  p.back() = {0, n};
  Shape rowwise = lead;
  rowwise.insert(rowwise.end(), {n, n + 1});
  Tensor y = sq.pad(p).reshape(rowwise);
  Pads pick = Whole(y);
  pick.back() = {0, 1};
  return y.shrink(pick).reshape(out);
}

std::vector<Tensor> Tensor::meshgrid(const std::vector<Tensor>& tensors, std::string_view indexing) {
  if (indexing != "ij" && indexing != "xy")
    throw Error("meshgrid: indexing must be \"ij\" or \"xy\", got \"" + std::string(indexing) + "\"");
  if (tensors.size() <= 1) return tensors;
  size_t n = tensors.size();
  Shape out(n);
  for (size_t i = 0; i < n; ++i) {
    if (tensors[i].ndim() > 1)
      throw Error("meshgrid: inputs must be 0-D or 1-D, input " + std::to_string(i) + " has shape " +
                  ShapeString(tensors[i].shape()));
    size_t axis = indexing == "xy" && i < 2 ? 1 - i : i;
    out[axis] = tensors[i].numel();
  }
  std::vector<Tensor> grids;
  for (size_t i = 0; i < n; ++i) {
    size_t axis = indexing == "xy" && i < 2 ? 1 - i : i;
    Shape s(n, 1);
    s[axis] = tensors[i].numel();
    grids.push_back(tensors[i].reshape(s).expand(out));
  }
  return grids;
}

// Wraps around: three copies side by side (only where padding is asked), read from the offset.
static Tensor PadCircular(const Tensor& t, const Pads& padding) {
  Pads crop, pads;
  for (int64_t d = 0; d < t.ndim(); ++d) {
    auto [b, a] = padding[d];
    crop.emplace_back(-std::min<int64_t>(b, 0), t.shape()[d] + std::min<int64_t>(a, 0));
    pads.emplace_back(std::max<int64_t>(b, 0), std::max<int64_t>(a, 0));
  }
  Tensor x = t.shrink(crop);
  Shape reps;
  for (int64_t d = 0; d < x.ndim(); ++d) {
    if (pads[d].first > x.shape()[d] || pads[d].second > x.shape()[d])
      throw Error("pad: circular padding (" + std::to_string(pads[d].first) + ", " + std::to_string(pads[d].second) +
                  ") wraps around axis " + std::to_string(d) + " (size " + std::to_string(x.shape()[d]) +
                  ") more than once");
    reps.push_back(1 + (pads[d].first > 0) + (pads[d].second > 0));
  }
  Tensor y = x.repeat(reps);
  Pads bounds;
  for (int64_t d = 0; d < x.ndim(); ++d) {
    int64_t n = x.shape()[d], m = y.shape()[d];
    auto [b, a] = pads[d];
    bounds.emplace_back(b == 0 ? 0 : n - b, a == 0 ? m : m - n + a);
  }
  return y.shrink(bounds);
}

// Reflect mirrors without repeating the edge, replicate repeats the edge; both as cat of views.
static Tensor PadReflectReplicate(const Tensor& t, const Pads& padding, bool reflect) {
  Tensor x = t;
  for (int64_t d = 0; d < t.ndim(); ++d) {
    int64_t b = std::max<int64_t>(padding[d].first, 0), a = std::max<int64_t>(padding[d].second, 0), s = x.shape()[d];
    if (b == 0 && a == 0) continue;
    if (reflect && (b >= s || a >= s))
      throw Error("pad: reflect padding (" + std::to_string(b) + ", " + std::to_string(a) +
                  ") must be smaller than axis " + std::to_string(d) + " (size " + std::to_string(s) + ")");
    if (!reflect && s == 0) throw Error("pad: cannot replicate the edge of the empty axis " + std::to_string(d));
    std::vector<int> axis = {static_cast<int>(d)};
    Shape eb = x.shape(), ea = x.shape();
    eb[d] = b, ea[d] = a;
    Tensor before = reflect ? Slab(x, d, 1, b + 1).flip(axis) : Slab(x, d, 0, 1).expand(eb);
    Tensor after = reflect ? Slab(x, d, s - 1 - a, s - 1).flip(axis) : Slab(x, d, s - 1, s).expand(ea);
    x = before.cat({x, after}, static_cast<int>(d));
  }
  Pads crop;  // negative amounts crop after the reflection saw the whole axis
  for (int64_t d = 0; d < t.ndim(); ++d)
    crop.emplace_back(-std::min<int64_t>(padding[d].first, 0), x.shape()[d] + std::min<int64_t>(padding[d].second, 0));
  return x.shrink(crop);
}

Tensor Tensor::pad(const std::vector<std::pair<int64_t, int64_t>>& padding, std::string_view mode, Scalar value) const {
  if (mode == "constant") return pad(padding, value);
  if (padding.size() != static_cast<size_t>(ndim()))
    throw Error("pad: got " + std::to_string(padding.size()) + " (before, after) pairs for a tensor of rank " +
                std::to_string(ndim()) + "; give one per axis");
  for (int64_t d = 0; d < ndim(); ++d)
    if (-std::min<int64_t>(padding[d].first, 0) - std::min<int64_t>(padding[d].second, 0) > shape()[d])
      throw Error("pad: cropping removes more than axis " + std::to_string(d) + " of " + ShapeString(shape()) + " holds");
  if (mode == "circular") return PadCircular(*this, padding);
  if (mode == "reflect" || mode == "replicate") return PadReflectReplicate(*this, padding, mode == "reflect");
  throw Error("pad: unknown mode \"" + std::string(mode) + "\"; use constant, reflect, replicate or circular");
}

Tensor Tensor::triu(int64_t diagonal) const {
  if (ndim() < 2) throw Error("triu: needs at least 2 axes, got shape " + ShapeString(shape()));
  return Tri(shape()[ndim() - 2], shape()[ndim() - 1], diagonal, device()).where(*this, ValueOf(*this, 0));
}

Tensor Tensor::tril(int64_t diagonal) const {
  if (ndim() < 2) throw Error("tril: needs at least 2 axes, got shape " + ShapeString(shape()));
  return Tri(shape()[ndim() - 2], shape()[ndim() - 1], diagonal + 1, device()).where(ValueOf(*this, 0), *this);
}

}  // namespace tg
