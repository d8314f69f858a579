#include "tests/fuzz/reference_eval.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace tg::fuzz {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// Rounding allowance per operation, relative: a few float32 ulps for + * /, more for the device's
// polynomial exp2/log2/sin, which are accurate to a few ulps of their own argument reduction.
constexpr double kEps = 4.0 / (1 << 24);
constexpr double kEpsTranscendental = 64.0 / (1 << 24);

void Check(bool ok, const char* what) {
  if (!ok) throw std::logic_error(std::string("fuzz program is malformed: ") + what);
}

std::vector<int64_t> Strides(const Dims& d) {
  std::vector<int64_t> s(d.size(), 1);
  for (int i = static_cast<int>(d.size()) - 2; i >= 0; --i) s[i] = s[i + 1] * d[i + 1];
  return s;
}

std::vector<int64_t> Unravel(int64_t flat, const Dims& d) {
  std::vector<int64_t> idx(d.size());
  for (int i = static_cast<int>(d.size()) - 1; i >= 0; --i) {
    idx[i] = flat % d[i];
    flat /= d[i];
  }
  return idx;
}

// Flat index into |from| (right-aligned, size-1 axes broadcast) of the element at |idx| of a larger shape.
int64_t BroadcastFlat(const Dims& from, const std::vector<int64_t>& idx) {
  int64_t flat = 0, stride = 1;
  for (int i = static_cast<int>(from.size()) - 1, j = static_cast<int>(idx.size()) - 1; i >= 0; --i, --j) {
    if (from[i] != 1) flat += idx[j] * stride;
    stride *= from[i];
  }
  return flat;
}

RefArray Make(Dims dims) {
  RefArray r;
  r.dims = std::move(dims);
  r.value.assign(Numel(r.dims), 0.0);
  r.err.assign(r.value.size(), 0.0);
  return r;
}

void Unary(int op, double a, double ea, double* v, double* e) {
  switch (static_cast<UnaryOp>(op)) {
    case UnaryOp::kNeg: *v = -a; *e = ea; return;
    case UnaryOp::kRelu: *v = std::max(a, 0.0); *e = ea; return;
    case UnaryOp::kExp:
      *v = std::exp(a);
      *e = *v * (std::expm1(ea) + kEpsTranscendental * (1 + std::abs(a)));
      return;
    case UnaryOp::kLog:
      *v = std::log(a);
      *e = a > ea ? -std::log1p(-ea / a) + kEpsTranscendental * (1 + std::abs(*v)) : kInf;
      return;
    case UnaryOp::kSqrt:
      *v = std::sqrt(a);
      *e = a > ea ? *v - std::sqrt(a - ea) + kEpsTranscendental * *v : kInf;
      return;
    case UnaryOp::kReciprocal:
      *v = 1.0 / a;
      *e = std::abs(a) > ea ? ea / (std::abs(a) * (std::abs(a) - ea)) + kEps * std::abs(*v) : kInf;
      return;
    case UnaryOp::kSin: *v = std::sin(a); *e = ea + kEpsTranscendental * (1 + std::abs(a)); return;
    case UnaryOp::kSquare: *v = a * a; *e = 2 * std::abs(a) * ea + ea * ea + kEps * *v; return;
  }
  Check(false, "unary op");
}

void Binary(int op, double a, double ea, double b, double eb, double* v, double* e) {
  switch (static_cast<BinaryOp>(op)) {
    case BinaryOp::kAdd: *v = a + b; *e = ea + eb + kEps * std::abs(*v); return;
    case BinaryOp::kSub: *v = a - b; *e = ea + eb + kEps * std::abs(*v); return;
    case BinaryOp::kMul:
      *v = a * b;
      *e = std::abs(a) * eb + std::abs(b) * ea + ea * eb + kEps * std::abs(*v);
      return;
    case BinaryOp::kMaximum: *v = std::max(a, b); *e = std::max(ea, eb); return;
    case BinaryOp::kDiv:
      *v = a / b;
      *e = std::abs(b) > eb ? (std::abs(a) * eb + std::abs(b) * ea) / (std::abs(b) * (std::abs(b) - eb)) +
                                  2 * kEps * std::abs(*v)
                            : kInf;
      return;
  }
  Check(false, "binary op");
}

// 1 or 0, and whether float32 rounding could flip the answer.
bool Compare(int op, double a, double ea, double b, double eb, bool* certain) {
  double gap = std::abs(a - b), slack = ea + eb;
  switch (static_cast<CompareOp>(op)) {
    case CompareOp::kLt: *certain = gap > slack; return a < b;
    case CompareOp::kGt: *certain = gap > slack; return a > b;
    case CompareOp::kEq: *certain = a == b ? slack == 0 : gap > slack; return a == b;
    case CompareOp::kNe: *certain = a == b ? slack == 0 : gap > slack; return a != b;
  }
  Check(false, "compare op");
  return false;
}

// Applies |fn(out, i0, i1, ...)| over the broadcast of the sources' shapes.
template <class Fn>
RefArray Elementwise(const Step& s, const std::vector<RefArray>& done, Fn fn) {
  Dims out_dims = done[s.src[0]].dims;
  for (int src : s.src) Check(BroadcastDims(out_dims, done[src].dims, &out_dims), "broadcast");
  RefArray r = Make(out_dims);
  std::vector<int64_t> in(s.src.size());
  for (int64_t i = 0; i < Numel(out_dims); ++i) {
    std::vector<int64_t> idx = Unravel(i, out_dims);
    for (size_t k = 0; k < s.src.size(); ++k) in[k] = BroadcastFlat(done[s.src[k]].dims, idx);
    fn(r, i, in);
  }
  return r;
}

RefArray EvalElementwise(const Step& s, const std::vector<RefArray>& d) {
  auto val = [&](size_t k, int64_t i) { return d[s.src[k]].value[i]; };
  auto err = [&](size_t k, int64_t i) { return d[s.src[k]].err[i]; };
  return Elementwise(s, d, [&](RefArray& r, int64_t o, const std::vector<int64_t>& in) {
    double* v = &r.value[o];
    double* e = &r.err[o];
    if (s.kind == StepKind::kUnary) return Unary(s.op, val(0, in[0]), err(0, in[0]), v, e);
    if (s.kind == StepKind::kBinary) return Binary(s.op, val(0, in[0]), err(0, in[0]), val(1, in[1]), err(1, in[1]), v, e);
    if (s.kind == StepKind::kConstBinary) return Binary(s.op, val(0, in[0]), err(0, in[0]), s.constant, 0, v, e);
    bool certain = true;
    bool c = Compare(s.op, val(0, in[0]), err(0, in[0]), val(1, in[1]), err(1, in[1]), &certain);
    if (s.kind == StepKind::kCompare) {
      *v = c;
      *e = certain ? 0 : 1;
      return;
    }
    size_t pick = c ? 2 : 3, other = c ? 3 : 2;
    *v = val(pick, in[pick]);
    *e = certain ? err(pick, in[pick])
                 : std::max(err(pick, in[pick]),
                            std::abs(*v - val(other, in[other])) + std::max(err(2, in[2]), err(3, in[3])));
  });
}

// Movement ops: each output element reads one input element, or is padding (-1).
template <class IndexFn>
RefArray Gather(const RefArray& a, const Dims& out_dims, IndexFn in_flat) {
  RefArray r = Make(out_dims);
  for (int64_t i = 0; i < Numel(out_dims); ++i) {
    int64_t j = in_flat(Unravel(i, out_dims));
    if (j < 0) continue;
    r.value[i] = a.value[j];
    r.err[i] = a.err[j];
  }
  return r;
}

int64_t Axis(int64_t axis, size_t ndim) { return axis < 0 ? axis + static_cast<int64_t>(ndim) : axis; }

// The output shape from the step's own arguments (never from step.dims, which this checks).
Dims MovementDims(const Step& s, const Dims& d) {
  Dims out = d;
  if (s.kind == StepKind::kExpand) out = s.ints;
  if (s.kind == StepKind::kPermute) {
    Check(s.ints.size() == d.size(), "permute rank");
    for (size_t k = 0; k < d.size(); ++k) out[k] = d[Axis(s.ints[k], d.size())];
  }
  if (s.kind == StepKind::kPad || s.kind == StepKind::kShrink) {
    Check(s.pairs.size() == d.size(), "pad/shrink rank");
    for (size_t k = 0; k < d.size(); ++k)
      out[k] = s.kind == StepKind::kPad ? d[k] + s.pairs[k].first + s.pairs[k].second
                                        : s.pairs[k].second - s.pairs[k].first;
  }
  return out;
}

RefArray EvalMovement(const Step& s, const RefArray& a) {
  const Dims& d = a.dims;
  const Dims out_dims = MovementDims(s, d);
  std::vector<int64_t> st = Strides(d);
  auto dot = [&](const std::vector<int64_t>& idx) {
    int64_t f = 0;
    for (size_t k = 0; k < idx.size(); ++k) f += idx[k] * st[k];
    return f;
  };
  switch (s.kind) {
    case StepKind::kReshape: {
      Check(Numel(s.ints) == Numel(d), "reshape numel");
      RefArray r = a;
      r.dims = s.ints;
      return r;
    }
    case StepKind::kPermute:
      return Gather(a, out_dims, [&](const std::vector<int64_t>& o) {
        std::vector<int64_t> in(d.size());
        for (size_t k = 0; k < o.size(); ++k) in[Axis(s.ints[k], d.size())] = o[k];
        return dot(in);
      });
    case StepKind::kExpand: return Gather(a, out_dims, [&](const std::vector<int64_t>& o) { return BroadcastFlat(d, o); });
    case StepKind::kPad:
      return Gather(a, out_dims, [&](const std::vector<int64_t>& o) {
        std::vector<int64_t> in(o);
        for (size_t k = 0; k < o.size(); ++k) {
          in[k] -= s.pairs[k].first;
          if (in[k] < 0 || in[k] >= d[k]) return int64_t{-1};
        }
        return dot(in);
      });
    case StepKind::kShrink:
      return Gather(a, out_dims, [&](const std::vector<int64_t>& o) {
        std::vector<int64_t> in(o);
        for (size_t k = 0; k < o.size(); ++k) in[k] += s.pairs[k].first;
        return dot(in);
      });
    case StepKind::kFlip:
      return Gather(a, out_dims, [&](const std::vector<int64_t>& o) {
        std::vector<int64_t> in(o);
        for (int64_t ax : s.ints) in[Axis(ax, d.size())] = d[Axis(ax, d.size())] - 1 - o[Axis(ax, d.size())];
        return dot(in);
      });
    default: Check(false, "movement kind");
  }
  return a;
}

RefArray EvalReduce(const Step& s, const RefArray& a) {
  std::vector<bool> reduced(a.dims.size(), s.ints.empty());
  for (int64_t ax : s.ints) reduced[Axis(ax, a.dims.size())] = true;
  Dims kept = a.dims;
  for (size_t k = 0; k < kept.size(); ++k) if (reduced[k]) kept[k] = 1;
  RefArray r = Make(kept);
  bool is_sum = static_cast<ReduceOp>(s.op) == ReduceOp::kSum;
  std::vector<double> abs_sum(r.value.size(), 0.0), count(r.value.size(), 0.0);
  if (!is_sum) r.value.assign(r.value.size(), -kInf);
  for (int64_t i = 0; i < Numel(a.dims); ++i) {
    int64_t o = BroadcastFlat(kept, Unravel(i, a.dims));
    if (is_sum) {
      r.value[o] += a.value[i];
      r.err[o] += a.err[i];
      abs_sum[o] += std::abs(a.value[i]);
      count[o] += 1;
    } else {
      r.value[o] = std::max(r.value[o], a.value[i]);
      r.err[o] = std::max(r.err[o], a.err[i]);
    }
  }
  // Any summation order in float32 stays within n * eps * sum|x| of the exact sum.
  for (size_t o = 0; o < r.value.size(); ++o) r.err[o] += kEps * count[o] * abs_sum[o];
  if (!s.keepdim) {
    Dims squeezed;
    for (size_t k = 0; k < kept.size(); ++k) if (!reduced[k]) squeezed.push_back(kept[k]);
    r.dims = squeezed;
  }
  return r;
}

RefArray EvalMatmul(const Step& s, const RefArray& a, const RefArray& b) {
  Check(a.dims.size() >= 2 && b.dims.size() >= 2, "matmul rank");
  int64_t m = a.dims[a.dims.size() - 2], k = a.dims.back(), n = b.dims.back();
  Check(b.dims[b.dims.size() - 2] == k, "matmul inner dim");
  Dims batch;
  Check(BroadcastDims(Dims(a.dims.begin(), a.dims.end() - 2), Dims(b.dims.begin(), b.dims.end() - 2), &batch),
        "matmul batch");
  Dims out = batch;
  out.push_back(m);
  out.push_back(n);
  RefArray r = Make(out);
  for (int64_t i = 0; i < Numel(out); ++i) {
    std::vector<int64_t> idx = Unravel(i, out);
    std::vector<int64_t> ai = idx, bi = idx;
    double acc = 0, err = 0, abs_acc = 0;
    for (int64_t kk = 0; kk < k; ++kk) {
      ai.back() = kk;
      ai[ai.size() - 2] = idx[idx.size() - 2];
      bi[bi.size() - 2] = kk;
      int64_t fa = BroadcastFlat(a.dims, ai), fb = BroadcastFlat(b.dims, bi);
      double x = a.value[fa], y = b.value[fb];
      acc += x * y;
      abs_acc += std::abs(x * y);
      err += std::abs(x) * b.err[fb] + std::abs(y) * a.err[fa] + a.err[fa] * b.err[fb];
    }
    r.value[i] = acc;
    r.err[i] = err + kEps * (k + 1) * abs_acc;
  }
  return r;
}

}  // namespace

bool BroadcastDims(const Dims& a, const Dims& b, Dims* out) {
  size_t n = std::max(a.size(), b.size());
  Dims r(n);
  for (size_t i = 0; i < n; ++i) {
    int64_t x = i < n - a.size() ? 1 : a[i - (n - a.size())];
    int64_t y = i < n - b.size() ? 1 : b[i - (n - b.size())];
    if (x != y && x != 1 && y != 1) return false;
    r[i] = x == 1 ? y : x;
  }
  *out = r;
  return true;
}

RefArray EvalStep(const Step& s, const std::vector<RefArray>& done, bool check_dims) {
  for (int src : s.src) Check(src >= 0 && static_cast<size_t>(src) < done.size(), "source index");
  RefArray r;
  switch (s.kind) {
    case StepKind::kInput:
      r = Make(s.dims);
      Check(s.data.size() == r.value.size(), "input data size");
      std::copy(s.data.begin(), s.data.end(), r.value.begin());
      break;
    case StepKind::kUnary: case StepKind::kBinary: case StepKind::kConstBinary:
    case StepKind::kWhere: case StepKind::kCompare:
      r = EvalElementwise(s, done);
      break;
    case StepKind::kReduce: r = EvalReduce(s, done[s.src[0]]); break;
    case StepKind::kMatmul: r = EvalMatmul(s, done[s.src[0]], done[s.src[1]]); break;
    case StepKind::kContiguous: r = done[s.src[0]]; break;
    default: r = EvalMovement(s, done[s.src[0]]); break;
  }
  Check(!check_dims || r.dims == s.dims, "result dims");
  return r;
}

std::vector<RefArray> EvalProgram(const Program& program) {
  std::vector<RefArray> done;
  done.reserve(program.steps.size());
  for (const Step& s : program.steps) done.push_back(EvalStep(s, done));
  return done;
}

}  // namespace tg::fuzz
