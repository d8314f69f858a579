#include "frontend/onnx/host_fold.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "frontend/index.h"
#include "frontend/onnx/onnx_tensor.h"

namespace tg::onnx {
namespace {

// Shapes and indices are a handful of values; a larger host result is not shape arithmetic.
constexpr size_t kMaxFoldedValues = 64;

bool AllInputsOnHost(const OpContext& c) {
  bool any = false;
  for (size_t i = 0; i < c.num_inputs(); ++i) {
    if (!c.has(i)) continue;
    if (!c.host_known(i)) return false;
    any = true;
  }
  return any;
}

// Cast's values: an integer type keeps integers (floats truncate toward zero, as ONNX reads them), a
// float type takes integers that float32 holds exactly; anything else is left to the device.
std::optional<HostValues> Cast(const OpContext& c) {
  const HostValues& x = *c.host(0);
  DType to = DTypeFromOnnx(c.attr_int("to", 1));
  if (to.is_bool()) {
    std::vector<int64_t> v;
    for (double f : x.as_floats()) v.push_back(f != 0);
    return HostValues::Ints(std::move(v));
  }
  if (to.is_int()) {
    if (x.is_float)
      for (double f : x.floats)
        if (!std::isfinite(f) || std::fabs(f) > 9.0e15) return std::nullopt;
    return HostValues::Ints(x.as_ints());
  }
  if (x.is_float) return std::nullopt;  // float -> float rounding is the device's
  for (int64_t v : x.ints)
    if (std::llabs(v) > (int64_t{1} << 24)) return std::nullopt;
  return HostValues::Floats(x.as_floats());
}

std::optional<HostValues> Concat(const OpContext& c) {
  HostValues out = HostValues::Ints({});
  bool is_float = false;
  for (size_t i = 0; i < c.num_inputs(); ++i)
    if (c.has(i)) is_float = is_float || c.host(i)->is_float;
  out.is_float = is_float;
  for (size_t i = 0; i < c.num_inputs(); ++i) {
    if (!c.has(i)) continue;
    if (c.in(i).ndim() > 1) return std::nullopt;
    const HostValues& h = *c.host(i);
    if (is_float) {
      std::vector<double> f = h.as_floats();
      out.floats.insert(out.floats.end(), f.begin(), f.end());
    } else {
      out.ints.insert(out.ints.end(), h.ints.begin(), h.ints.end());
    }
  }
  return out;
}

// ONNX Slice on a vector, whose bounds are Python's (tg::slice_indices).
std::optional<HostValues> Slice(const OpContext& c) {
  if (c.in(0).ndim() != 1) return std::nullopt;
  std::vector<int64_t> starts, ends, axes, steps;
  if (c.opset() < 10) {
    starts = c.attr_ints("starts").value_or(std::vector<int64_t>{});
    ends = c.attr_ints("ends").value_or(std::vector<int64_t>{});
    axes = c.attr_ints("axes").value_or(std::vector<int64_t>{0});
  } else {
    starts = c.host(1)->as_ints();
    ends = c.host(2)->as_ints();
    if (c.has(3)) axes = c.host(3)->as_ints();
    if (c.has(4)) steps = c.host(4)->as_ints();
  }
  if (starts.size() != 1 || ends.size() != 1 || axes.size() > 1 || steps.size() > 1) return std::nullopt;
  if (!axes.empty() && axes[0] != 0 && axes[0] != -1) return std::nullopt;
  const int64_t step = steps.empty() ? 1 : steps[0];
  if (step == 0) return std::nullopt;  // the op itself says what is wrong
  const SliceIndices r = slice_indices(tg::Slice{starts[0], ends[0], step}, c.in(0).shape()[0]);
  const HostValues& x = *c.host(0);
  HostValues out = x.is_float ? HostValues::Floats({}) : HostValues::Ints({});
  for (int64_t i = r.start; step > 0 ? i < r.stop : i > r.stop; i += step) {
    if (x.is_float) out.floats.push_back(x.floats[i]);
    else out.ints.push_back(x.ints[i]);
  }
  return out;
}

std::optional<HostValues> Gather(const OpContext& c) {
  if (c.in(0).ndim() != 1 || c.attr_int("axis", 0) != 0) return std::nullopt;
  const HostValues& x = *c.host(0);
  const int64_t n = static_cast<int64_t>(x.size());
  HostValues out = x.is_float ? HostValues::Floats({}) : HostValues::Ints({});
  for (int64_t i : c.host(1)->as_ints()) {
    if (i < -n || i >= n) return std::nullopt;  // the op's own error says it
    if (i < 0) i += n;
    if (x.is_float) out.floats.push_back(x.floats[i]);
    else out.ints.push_back(x.ints[i]);
  }
  return out;
}

// Integer Add, Sub, Mul of equal sizes or against one value (a dim times a constant); overflow is the
// device's to define, so it is not folded.
std::optional<HostValues> IntArithmetic(const OpContext& c, const std::string& op) {
  const HostValues &a = *c.host(0), &b = *c.host(1);
  if (a.is_float || b.is_float) return std::nullopt;
  size_t n = std::max(a.size(), b.size());
  if ((a.size() != n && a.size() != 1) || (b.size() != n && b.size() != 1)) return std::nullopt;
  std::vector<int64_t> out;
  for (size_t i = 0; i < n; ++i) {
    int64_t x = a.ints[a.size() == 1 ? 0 : i], y = b.ints[b.size() == 1 ? 0 : i], r = 0;
    bool overflow = op == "Add"   ? __builtin_add_overflow(x, y, &r)
                    : op == "Sub" ? __builtin_sub_overflow(x, y, &r)
                                  : __builtin_mul_overflow(x, y, &r);
    if (overflow) return std::nullopt;
    out.push_back(r);
  }
  return HostValues::Ints(std::move(out));
}

}  // namespace

std::optional<HostValues> FoldOnHost(const OpContext& c, const Tensor& out) {
  if (c.node().domain != "" || c.node().outputs.size() != 1 || out.numel() > static_cast<int64_t>(kMaxFoldedValues))
    return std::nullopt;
  if (!AllInputsOnHost(c)) return std::nullopt;
  const std::string& op = c.node().op;
  std::optional<HostValues> v;
  if (op == "Identity" || op == "Reshape" || op == "Flatten" || op == "Squeeze" || op == "Unsqueeze") v = *c.host(0);
  else if (op == "Cast") v = Cast(c);
  else if (op == "Concat") v = Concat(c);
  else if (op == "Slice") v = Slice(c);
  else if (op == "Gather") v = Gather(c);
  else if (op == "Add" || op == "Sub" || op == "Mul") v = IntArithmetic(c, op);
  // The values must be the output's, element for element: anything else is left to the device.
  if (v && static_cast<int64_t>(v->size()) != out.numel()) return std::nullopt;
  return v;
}

}  // namespace tg::onnx
