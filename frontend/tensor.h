// tg::Tensor: the lazy tensor of tinygrad-cc. Every op records a UOp; nothing runs until a value
// is asked for (realize, to_vector, item). The first step of the walk in docs/architecture.md.
// Which tensors threads may share, and when: frontend/tg.h and docs/concurrency.md.
#ifndef TG_FRONTEND_TENSOR_H_
#define TG_FRONTEND_TENSOR_H_

#include <concepts>
#include <cstdint>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ir/dtype.h"
#include "ir/error.h"
#include "ir/uop.h"

namespace tg {

// The dtype whose elements a C++ T holds, for to_vector / from_vector.
template <class T>
constexpr DType DTypeOf() {
  if constexpr (std::same_as<T, bool>) return dtypes::bool_;
  else if constexpr (std::same_as<T, float>) return dtypes::float32;
  else if constexpr (std::same_as<T, double>) return dtypes::float64;
  else if constexpr (std::same_as<T, int8_t>) return dtypes::int8;
  else if constexpr (std::same_as<T, int16_t>) return dtypes::int16;
  else if constexpr (std::same_as<T, int32_t>) return dtypes::int32;
  else if constexpr (std::same_as<T, int64_t>) return dtypes::int64;
  else if constexpr (std::same_as<T, uint8_t>) return dtypes::uint8;
  else if constexpr (std::same_as<T, uint16_t>) return dtypes::uint16;
  else if constexpr (std::same_as<T, uint32_t>) return dtypes::uint32;
  else if constexpr (std::same_as<T, uint64_t>) return dtypes::uint64;
  else static_assert(sizeof(T) == 0, "no tinygrad-cc dtype holds this C++ type");
}

// A Python-style scalar operand: its value and whether it was written as an integer, a float or a
// bool (tinygrad's weak types): `int_tensor * 2` stays int, `int_tensor * 2.5` becomes float.
struct Scalar {
  template <class T>
    requires std::integral<T> || std::floating_point<T>
  Scalar(T v)  // NOLINT: implicit on purpose, so `t + 1` reads as in Python
      : value(static_cast<double>(v)),
        kind(std::same_as<T, bool> ? Kind::kBool : std::integral<T> ? Kind::kInt : Kind::kFloat) {}
  enum class Kind { kBool, kInt, kFloat };
  double value;
  Kind kind;
};

struct Index;  // one entry of t[{...}]; defined in frontend/index.h

// An int argument that may also be given per axis: `2` or `{2, 3}` (conv strides, pool kernels).
struct IntOrTuple {
  IntOrTuple() = default;
  IntOrTuple(int64_t v) : values{v}, scalar(true) {}  // NOLINT: implicit, so `stride = 2` reads as in Python
  IntOrTuple(std::initializer_list<int64_t> v) : values(v) {}
  IntOrTuple(std::vector<int64_t> v) : values(std::move(v)) {}  // NOLINT
  std::vector<int64_t> values;
  bool scalar = false;  // written as a plain int: a pool kernel `3` means 3x3, `{3}` a 1-D kernel
};

// The shape argument of from_vector: a shape, or absent (1-D of the data's length). A braced list is a
// shape, `{2, 3}` as well as `{}`, which is the 0-d shape of a scalar; `std::nullopt` is absent.
// std::optional<Shape> itself cannot take a braced list, which is why this type exists.
struct OptionalShape {
  OptionalShape(std::nullopt_t) {}                                   // NOLINT: implicit, as optional's
  OptionalShape(std::initializer_list<int64_t> dims) : shape(Shape(dims)) {}  // NOLINT
  OptionalShape(Shape s) : shape(std::move(s)) {}                    // NOLINT
  OptionalShape(std::optional<Shape> s) : shape(std::move(s)) {}     // NOLINT
  // No default constructor on purpose: `{}` must reach the initializer_list one and mean 0-d.
  std::optional<Shape> shape;
};

// The axes a reduction runs over: one axis `1`, several `{0, 2}`, or none `{}` (every axis, tinygrad's
// axis=None). Negative axes count from the end. It is a std::vector<int>, so a vector passes as well.
struct Axes : std::vector<int> {
  using std::vector<int>::vector;
  Axes() = default;
  Axes(int axis) : std::vector<int>{axis} {}                          // NOLINT: implicit, so sum(1) reads as Python
  Axes(std::vector<int> axes) : std::vector<int>(std::move(axes)) {}  // NOLINT
};

class Tensor {
 public:
  // ---- creation ------------------------------------------------------------------------------
  // |data| laid out row-major in |shape| (default: 1-D of data.size()); |device| "" = default.
  // from_vector<float>({1, 2, 3, 4, 5, 6}, {2, 3}); from_vector({1.f, 2.f}) deduces float (the dtype is
  // the C++ element type's: {1.0, 2.0} is float64); from_vector({5.f}, {}) is a 0-d scalar.
  template <class T>
  static Tensor from_vector(const std::vector<T>& data, OptionalShape shape = std::nullopt,
                            std::string_view device = "");
  template <class T>
  static Tensor from_vector(std::initializer_list<T> data, OptionalShape shape = std::nullopt,
                            std::string_view device = "") {
    return from_vector(std::vector<T>(data), std::move(shape), device);
  }
  static Tensor empty(const Shape& shape, DType dtype = dtypes::default_float, std::string_view device = "");
  static Tensor full(const Shape& shape, Scalar value, std::optional<DType> dtype = std::nullopt,
                     std::string_view device = "");
  static Tensor zeros(const Shape& shape, DType dtype = dtypes::default_float, std::string_view device = "");
  static Tensor ones(const Shape& shape, DType dtype = dtypes::default_float, std::string_view device = "");
  // [0, stop) and [start, stop) by step; int32 unless an argument is fractional (then float32).
  static Tensor arange(Scalar stop);
  static Tensor arange(Scalar start, Scalar stop, Scalar step = 1, std::string_view device = "");
  // Uniform [0, 1) and standard normal, from a counter-based Threefry-2x32 stream: the same
  // manual_seed gives the same numbers on every device and every run.
  static Tensor rand(const Shape& shape, DType dtype = dtypes::default_float, std::string_view device = "");
  static Tensor randn(const Shape& shape, DType dtype = dtypes::default_float, std::string_view device = "");
  static void manual_seed(uint64_t seed);

  // ---- creation: more constants and ranges (frontend/tensor_creation.cc) ----------------------
  // |steps| evenly spaced values from |start| to |stop| inclusive.
  static Tensor linspace(double start, double stop, int64_t steps, DType dtype = dtypes::default_float,
                         std::string_view device = "");
  static Tensor eye(int64_t n, std::optional<int64_t> m = std::nullopt, DType dtype = dtypes::default_float,
                    std::string_view device = "");  // ones on the diagonal of an n x m matrix
  // arange with an explicit dtype (the 3-argument form above infers it).
  static Tensor arange(Scalar start, Scalar stop, Scalar step, DType dtype, std::string_view device = "");
  Tensor empty_like(std::optional<DType> dtype = std::nullopt) const;  // same shape and device
  Tensor zeros_like(std::optional<DType> dtype = std::nullopt) const;
  Tensor ones_like(std::optional<DType> dtype = std::nullopt) const;
  Tensor full_like(Scalar value, std::optional<DType> dtype = std::nullopt) const;

  // ---- creation: random (frontend/tensor_random.cc; Threefry stream of frontend/random.h) -----
  Tensor rand_like(std::optional<DType> dtype = std::nullopt) const;   // uniform [0, 1), this shape
  Tensor randn_like(std::optional<DType> dtype = std::nullopt) const;  // standard normal, this shape
  // Integers uniform in [low, high).
  static Tensor randint(const Shape& shape, int64_t low = 0, int64_t high = 10, DType dtype = dtypes::int32,
                        std::string_view device = "");
  static Tensor uniform(const Shape& shape, double low = 0.0, double high = 1.0,
                        DType dtype = dtypes::default_float, std::string_view device = "");
  static Tensor normal(const Shape& shape, double mean = 0.0, double std = 1.0,
                       DType dtype = dtypes::default_float, std::string_view device = "");
  static Tensor randperm(int64_t n, DType dtype = dtypes::int32, std::string_view device = "");  // shuffled 0..n-1
  // Uniform in [-1, 1) / sqrt(numel): tinygrad's default layer init.
  static Tensor scaled_uniform(const Shape& shape, DType dtype = dtypes::default_float, std::string_view device = "");
  // Uniform +-sqrt(6 / (fan_in + fan_out)) with fan_out = shape[0], fan_in = prod(shape[1:]).
  static Tensor glorot_uniform(const Shape& shape, DType dtype = dtypes::default_float, std::string_view device = "");
  // He init for a leaky relu of negative slope |a|: uniform +-sqrt(6/(1+a^2)/fan_in), normal std sqrt(2/(1+a^2)/fan_in).
  static Tensor kaiming_uniform(const Shape& shape, double a = 0.01, DType dtype = dtypes::default_float,
                                std::string_view device = "");
  static Tensor kaiming_normal(const Shape& shape, double a = 0.01, DType dtype = dtypes::default_float,
                               std::string_view device = "");
  // Samples column indices of this 1-D/2-D weight tensor (rows are distributions): int32 (n_samples) or
  // (rows, n_samples).
  Tensor multinomial(int64_t num_samples = 1, bool replacement = false) const;

  // ---- properties ----------------------------------------------------------------------------
  const Shape& shape() const;
  DType dtype() const;
  const std::string& device() const;  // canonical name: "CPU", "CPU:1", "OPENCL"
  int64_t ndim() const { return static_cast<int64_t>(shape().size()); }
  int64_t numel() const;
  const UOpRef& uop() const;

  // ---- running -------------------------------------------------------------------------------
  // Computes the value now; every handle that shares this tensor sees the stored result.
  Tensor& realize();
  // Realizes and copies out. T must be the element type of dtype() (see DTypeOf).
  template <class T>
  std::vector<T> to_vector() const;
  template <class T>
  T item() const;  // a one-element tensor's value
  Tensor to(std::string_view device) const;  // lazy copy to another device
  // Realizes every tensor in ONE schedule (kernels shared between them run once) and makes every
  // handle of each see its stored result. Handles share state, so passing copies is enough.
  static void realize_all(const std::vector<Tensor>& tensors);
  // Makes every handle of this tensor see |value| from now on (lazily; tinygrad's assign). Shape,
  // dtype and device must match (tg::Error otherwise). requires_grad and grad() are kept.
  Tensor& assign(const Tensor& value);
  // The raw bytes of the realized value, row-major, dtype().itemsize() per element (any dtype).
  std::vector<unsigned char> to_bytes() const { return read_bytes(); }
  // A tensor whose bytes |fill| writes (exactly numel * itemsize of them, into host memory) the first
  // time a realize needs them: file-backed tensors read nothing until used (frontend/tensor_lazy.cc).
  static Tensor from_loader(const Shape& shape, DType dtype, std::function<void(void* dst, size_t bytes)> fill,
                            std::string_view device = "");
  Tensor contiguous() const;                 // forces a buffer in the schedule
  // Whether this tensor is data in a buffer, seen whole and in order (uploaded, loaded from a file or
  // to be, or realized), so realizing it runs no kernel; false for a lazy computation or a view.
  bool is_stored() const;

  // ---- elementwise: unary --------------------------------------------------------------------
  Tensor neg() const;
  Tensor exp() const;
  Tensor exp2() const;
  Tensor log() const;
  Tensor log2() const;
  Tensor sqrt() const;
  Tensor sin() const;
  Tensor reciprocal() const;
  Tensor relu() const;
  Tensor cast(DType dtype) const;
  Tensor logical_not() const;

  // ---- unary math (frontend/tensor_math.cc) --------------------------------------------------
  Tensor log10() const;
  Tensor rsqrt() const;  // 1 / sqrt(x)
  Tensor cos() const;
  Tensor tan() const;
  Tensor asin() const;  // polynomial of Abramowitz-Stegun 4.4.46, as tinygrad
  Tensor acos() const;
  Tensor atan() const;
  Tensor trunc() const;  // toward zero; ints are returned as they are
  Tensor ceil() const;
  Tensor floor() const;
  Tensor round() const;  // half to even
  Tensor isinf(bool detect_positive = true, bool detect_negative = true) const;  // bool
  Tensor isnan() const;     // bool
  Tensor isfinite() const;  // bool
  Tensor lerp(const Tensor& end, const Tensor& weight) const;  // this + (end - this) * weight
  Tensor lerp(const Tensor& end, Scalar weight) const;
  Tensor square() const;
  // Clips into [min, max]; either bound may be absent, not both.
  Tensor clamp(std::optional<Scalar> min, std::optional<Scalar> max) const;
  Tensor clip(std::optional<Scalar> min, std::optional<Scalar> max) const { return clamp(min, max); }
  Tensor sign() const;  // -1, 0 or 1 in this dtype
  Tensor abs() const;

  // ---- activations (frontend/tensor_activation.cc) -------------------------------------------
  Tensor sigmoid() const;
  Tensor logsigmoid() const;
  Tensor hardsigmoid(double alpha = 1.0 / 6.0, double beta = 0.5) const;
  Tensor elu(double alpha = 1.0) const;
  Tensor celu(double alpha = 1.0) const;
  Tensor selu(double alpha = 1.67326, double gamma = 1.0507) const;
  Tensor swish() const;  // x * sigmoid(x)
  Tensor silu() const;   // same as swish
  Tensor relu6() const;
  Tensor hardswish() const;
  Tensor tanh() const;
  Tensor sinh() const;
  Tensor cosh() const;
  Tensor atanh() const;
  Tensor asinh() const;
  Tensor acosh() const;
  Tensor hardtanh(double min_val = -1.0, double max_val = 1.0) const;
  Tensor erf() const;  // Abramowitz-Stegun 7.1.26 (abs error < 1.5e-7), as tinygrad
  // |approximate| "tanh" (tinygrad's default) or "none" (through erf).
  Tensor gelu(std::string_view approximate = "tanh") const;
  Tensor quick_gelu() const;  // x * sigmoid(1.702 x)
  Tensor leaky_relu(double neg_slope = 0.01) const;
  Tensor mish() const;
  Tensor softplus(double beta = 1.0) const;
  Tensor softsign() const;

  // ---- casting (frontend/tensor_math.cc); C++ keywords get a trailing underscore -------------
  // Reinterprets the bits; with a different itemsize the last axis is rescaled (it must divide).
  Tensor bitcast(DType dtype) const;
  Tensor float_() const { return cast(dtypes::float32); }
  Tensor half() const { return cast(dtypes::float16); }
  Tensor bfloat16() const { return cast(dtypes::bfloat16); }
  Tensor double_() const { return cast(dtypes::float64); }
  Tensor int_() const { return cast(dtypes::int32); }
  Tensor long_() const { return cast(dtypes::int64); }
  Tensor short_() const { return cast(dtypes::int16); }
  Tensor bool_() const { return cast(dtypes::bool_); }
  bool is_floating_point() const { return dtype().is_float(); }
  int64_t element_size() const { return dtype().itemsize(); }

  // ---- elementwise: binary (broadcasting, tinygrad's dtype promotion) ------------------------
  Tensor add(const Tensor& other) const;
  Tensor sub(const Tensor& other) const;
  Tensor mul(const Tensor& other) const;
  Tensor div(const Tensor& other) const;  // true division: ints become float
  Tensor maximum(const Tensor& other) const;
  Tensor minimum(const Tensor& other) const;
  Tensor lt(const Tensor& other) const;
  Tensor gt(const Tensor& other) const;
  Tensor le(const Tensor& other) const;
  Tensor ge(const Tensor& other) const;
  Tensor eq(const Tensor& other) const;
  Tensor ne(const Tensor& other) const;
  // this ? x : y, elementwise; this is cast to bool.
  Tensor where(const Tensor& x, const Tensor& y) const;
  Tensor where(Scalar x, const Tensor& y) const;
  Tensor where(const Tensor& x, Scalar y) const;
  Tensor where(Scalar x, Scalar y) const;

  // ---- binary: more ops and scalar operands (frontend/tensor_binary.cc) ----------------------
  // A scalar takes this tensor's dtype unless it needs a wider kind (tinygrad's weak types).
  Tensor add(Scalar other) const;
  Tensor sub(Scalar other) const;
  Tensor mul(Scalar other) const;
  Tensor div(Scalar other) const;
  // |rounding_mode| "" (true division), "trunc" (toward zero) or "floor"; ints stay ints when rounded.
  Tensor div(const Tensor& other, std::string_view rounding_mode) const;
  Tensor div(Scalar other, std::string_view rounding_mode) const;
  Tensor mod(const Tensor& other) const;  // Python %: the sign follows the divisor
  Tensor mod(Scalar other) const;
  Tensor fmod(const Tensor& other) const;  // C remainder: the sign follows the dividend
  Tensor fmod(Scalar other) const;
  Tensor pow(const Tensor& exponent) const;  // negative bases with fractional exponents give NaN
  Tensor pow(Scalar exponent) const;          // integer exponents by repeated squaring (exact for ints)
  static Tensor pow(Scalar base, const Tensor& exponent);
  Tensor maximum(Scalar other) const;
  Tensor minimum(Scalar other) const;
  Tensor copysign(const Tensor& other) const;  // |this| with the sign of |other| (-0.0 counts as negative)
  Tensor copysign(Scalar other) const;
  Tensor logaddexp(const Tensor& other) const;  // log(exp(this) + exp(other)), computed stably
  Tensor logaddexp(Scalar other) const;
  // Bitwise ops on int and bool tensors.
  Tensor bitwise_and(const Tensor& other) const;
  Tensor bitwise_or(const Tensor& other) const;
  Tensor bitwise_xor(const Tensor& other) const;
  Tensor bitwise_and(Scalar other) const;
  Tensor bitwise_or(Scalar other) const;
  Tensor bitwise_xor(Scalar other) const;
  Tensor bitwise_not() const;
  Tensor lshift(const Tensor& bits) const;  // int tensors only
  Tensor rshift(const Tensor& bits) const;  // arithmetic for signed ints
  Tensor lshift(Scalar bits) const;
  Tensor rshift(Scalar bits) const;
  Tensor lt(Scalar other) const;
  Tensor gt(Scalar other) const;
  Tensor le(Scalar other) const;
  Tensor ge(Scalar other) const;
  Tensor eq(Scalar other) const;
  Tensor ne(Scalar other) const;
  // |value| where |mask| (broadcast, cast to bool) is true, this elsewhere.
  Tensor masked_fill(const Tensor& mask, const Tensor& value) const;
  Tensor masked_fill(const Tensor& mask, Scalar value) const;

  // ---- reductions (negative axes count from the end; no axes = all) --------------------------
  Tensor sum(const Axes& axes = {}, bool keepdim = false) const;
  Tensor max(const Axes& axes = {}, bool keepdim = false) const;
  Tensor min(const Axes& axes = {}, bool keepdim = false) const;
  Tensor mean(const Axes& axes = {}, bool keepdim = false) const;
  Tensor matmul(const Tensor& other) const;  // numpy matmul semantics, as a reduce of a product
  Tensor dot(const Tensor& other) const { return matmul(other); }

  // ---- reductions: more (frontend/tensor_reduce.cc, tensor_scan.cc) --------------------------
  // sum accumulating and returning |dtype| instead of tinygrad's accumulation dtype.
  Tensor sum(const Axes& axes, bool keepdim, DType dtype) const;
  Tensor prod(const Axes& axes = {}, bool keepdim = false) const;  // in this dtype
  Tensor any(const Axes& axes = {}, bool keepdim = false) const;   // bool
  Tensor all(const Axes& axes = {}, bool keepdim = false) const;   // bool
  // Divides the squared deviations by n - |correction| (clamped at 0).
  Tensor var(const Axes& axes = {}, bool keepdim = false, double correction = 1) const;
  Tensor std(const Axes& axes = {}, bool keepdim = false, double correction = 1) const;
  std::pair<Tensor, Tensor> var_mean(const Axes& axes = {}, bool keepdim = false,
                                     double correction = 1) const;  // (var, mean)
  std::pair<Tensor, Tensor> std_mean(const Axes& axes = {}, bool keepdim = false,
                                     double correction = 1) const;  // (std, mean)
  // int32 index of the first maximum (minimum) along |axis|; of the flattened tensor without one.
  Tensor argmax(std::optional<int> axis = std::nullopt, bool keepdim = false) const;
  Tensor argmin(std::optional<int> axis = std::nullopt, bool keepdim = false) const;
  Tensor logsumexp(const Axes& axes = {}, bool keepdim = false) const;
  Tensor softmax(int axis = -1) const;
  Tensor log_softmax(int axis = -1) const;
  Tensor softmin(int axis = -1) const;
  // Inclusive scans along |axis| (a masked reduce over the prefix, so they fuse and differentiate).
  Tensor cumsum(int axis = 0) const;
  Tensor cumprod(int axis = 0) const;
  std::pair<Tensor, Tensor> cummax(int axis = 0) const;  // (values, int32 index of the first maximum)
  std::pair<Tensor, Tensor> cummin(int axis = 0) const;

  // ---- nn functional and losses (frontend/nn_functional.cc, frontend/nn_loss.cc) ------------
  // this @ weight + bias; a 1-D weight multiplies elementwise (tinygrad's linear).
  Tensor linear(const Tensor& weight, const std::optional<Tensor>& bias = std::nullopt) const;
  // (x - mean) / sqrt(var + eps) over |axes| (no affine part).
  Tensor layernorm(const Axes& axes = {-1}, double eps = 1e-5) const;
  // (x - mean) * weight * invstd + bias, the 1-D parameters laid along |axis|.
  Tensor batchnorm(const std::optional<Tensor>& weight, const std::optional<Tensor>& bias, const Tensor& mean,
                   const Tensor& invstd, int axis = 1) const;
  // Zeroes each element with probability |p| and scales the rest by 1/(1-p), only while training.
  Tensor dropout(double p = 0.5) const;
  static void set_training(bool on);  // tinygrad's Tensor.training / TRAINING context
  static bool training();
  // softmax(q k^T / sqrt(d) + mask) v; a bool mask keeps where true; |is_causal| masks the future.
  Tensor scaled_dot_product_attention(const Tensor& key, const Tensor& value,
                                      const std::optional<Tensor>& attn_mask = std::nullopt,
                                      double dropout_p = 0.0, bool is_causal = false) const;
  // Losses; |reduction| "mean", "sum" or "none".
  // Probabilities |this| against targets |y| in [0, 1].
  Tensor binary_crossentropy(const Tensor& y, std::string_view reduction = "mean") const;
  Tensor binary_crossentropy_logits(const Tensor& y, std::string_view reduction = "mean",
                                    const std::optional<Tensor>& pos_weight = std::nullopt) const;
  // Logits (..., classes) against int class indices (...); |ignore_index| rows do not count.
  Tensor sparse_categorical_crossentropy(const Tensor& y, int64_t ignore_index = -1, double label_smoothing = 0.0,
                                         std::string_view reduction = "mean") const;
  // Logits (classes) or (batch, classes, ...) against int indices or class probabilities.
  Tensor cross_entropy(const Tensor& y, std::string_view reduction = "mean", double label_smoothing = 0.0) const;
  // Log-probabilities (batch, classes, ...) against int indices (batch, ...); optional class weights.
  Tensor nll_loss(const Tensor& y, const std::optional<Tensor>& weight = std::nullopt,
                  std::optional<int64_t> ignore_index = std::nullopt, std::string_view reduction = "mean") const;

  // ---- movement (views: no data moves until a kernel reads them) ----------------------------
  Tensor reshape(const Shape& shape) const;  // one -1 is inferred
  Tensor permute(const std::vector<int>& order) const;
  Tensor expand(const Shape& shape) const;  // -1 keeps an axis; new axes may be added in front
  // (before, after) per axis; negative amounts crop. |value| fills the new border.
  Tensor pad(const std::vector<std::pair<int64_t, int64_t>>& padding, Scalar value = 0) const;
  // An arithmetic fill value binds here, so a literal 0 is never read as a null mode string.
  template <class T>
    requires std::integral<T> || std::floating_point<T>
  Tensor pad(const std::vector<std::pair<int64_t, int64_t>>& padding, T value) const {
    return pad(padding, Scalar(value));
  }
  Tensor shrink(const std::vector<std::pair<int64_t, int64_t>>& bounds) const;  // [start, stop)
  // The first |length| elements of |axis| present, the rest absent (docs/variables.md): |length| is an
  // int32 scalar of tg::Variables (pos.bind(p).tensor() + 1), so one kernel serves every length. The
  // shape stays the largest length's; reduces over the axis stop at |length|, elementwise ops, permutes
  // and reshapes that keep the axis whole carry it; pads, cuts, flips, merges of it and reading it to
  // the host are tg::Errors (reduce over it first).
  Tensor shrink_to(int axis, const Tensor& length) const;
  Tensor flip(const Axes& axes) const;
  Tensor transpose(int dim0 = 1, int dim1 = 0) const;
  Tensor flatten(int start_dim = 0, int end_dim = -1) const;  // merges axes start_dim..end_dim

  // ---- movement: high level (frontend/tensor_shape.cc) ---------------------------------------
  // |mode| "constant" (fills |value|), "reflect", "replicate" or "circular"; negative amounts crop.
  Tensor pad(const std::vector<std::pair<int64_t, int64_t>>& padding, std::string_view mode, Scalar value = 0) const;
  Tensor squeeze() const;         // drops every size-1 axis
  Tensor squeeze(int dim) const;  // drops |dim| if it has size 1, else returns this
  Tensor unsqueeze(int dim) const;                     // new size-1 axis at |dim| in [-ndim-1, ndim]
  Tensor unflatten(int dim, const Shape& sizes) const;  // splits |dim| into |sizes| (one -1 inferred)
  // Joins this and |others| along existing axis |dim| (cat) or a new axis |dim| (stack).
  Tensor cat(const std::vector<Tensor>& others, int dim = 0) const;
  Tensor stack(const std::vector<Tensor>& others, int dim = 0) const;
  Tensor repeat(const Shape& repeats) const;  // tiles the tensor repeats[i] times along axis i (numpy tile)
  // Repeats each element |repeats| times along |dim| (flattened first when |dim| is absent).
  Tensor repeat_interleave(int64_t repeats, std::optional<int> dim = std::nullopt) const;
  std::vector<Tensor> split(int64_t size, int dim = 0) const;  // chunks of |size|, the last may be smaller
  std::vector<Tensor> split(const std::vector<int64_t>& sizes, int dim = 0) const;  // sizes must sum to the axis
  std::vector<Tensor> chunk(int64_t chunks, int dim = 0) const;  // at most |chunks| pieces of ceil(n/chunks)
  // Windows of |size| every |step| along |dim|: that axis becomes (n_windows) and a new last axis (size).
  Tensor unfold(int dim, int64_t size, int64_t step) const;
  Tensor roll(int64_t shift) const;  // on the flattened tensor, shape kept
  Tensor roll(int64_t shift, int dim) const;
  Tensor roll(const std::vector<int64_t>& shifts, const std::vector<int>& dims) const;
  Tensor diag() const;  // 1-D (n) -> 2-D (n, n) with this on the diagonal
  Tensor diagonal(int64_t offset = 0, int dim1 = 0, int dim2 = 1) const;  // diagonal over two axes, as last axis
  // Coordinate grids of 0-D/1-D tensors; |indexing| "ij" (matrix) or "xy" (cartesian).
  static std::vector<Tensor> meshgrid(const std::vector<Tensor>& tensors, std::string_view indexing = "ij");
  Tensor tril(int64_t diagonal = 0) const;  // zeros above the |diagonal|-th diagonal of the last two axes
  Tensor triu(int64_t diagonal = 0) const;  // zeros below it

  // ---- indexing (frontend/index.h spells the indices; frontend/tensor_index.cc) ---------------
  // Python's t[...]: ints, tg::Slice{start, stop, step}, tg::NewAxis, tg::Ellipsis and integer
  // tensors (advanced indexing; out-of-range tensor indices read 0, as tinygrad). t[{1, tg::Slice{}}].
  Tensor operator[](const std::vector<Index>& indices) const;
  Tensor index(const std::vector<Index>& indices) const;  // same as operator[]
  // Python's t[...] = value: computes the updated tensor and makes every handle of this tensor see it
  // (functional: a masked where over the old value). |value| broadcasts to the indexed shape.
  Tensor& setitem(const std::vector<Index>& indices, const Tensor& value);
  Tensor& setitem(const std::vector<Index>& indices, Scalar value);
  Tensor gather(int dim, const Tensor& index) const;  // out[..i..] = this[..index[..i..]..] along |dim|
  // Writes |src| at |index| along |dim| (the last write wins for repeated indices).
  Tensor scatter(int dim, const Tensor& index, const Tensor& src) const;
  // Scalar source; |reduce| "" (overwrite), "add" or "multiply".
  Tensor scatter(int dim, const Tensor& index, Scalar src, std::string_view reduce = "") const;
  // |reduce| one of "sum", "prod", "mean", "amax", "amin"; include_self=false leaves this out of it.
  Tensor scatter_reduce(int dim, const Tensor& index, const Tensor& src, std::string_view reduce,
                        bool include_self = true) const;
  Tensor one_hot(int64_t num_classes) const;  // int tensor -> (..., num_classes) int32 of 0/1
  // Data-dependent shapes: these realize their mask on the host (as tinygrad does without size=).
  Tensor masked_select(const Tensor& mask) const;  // 1-D elements where |mask| (bool, broadcast) is true
  Tensor nonzero() const;                          // (n_nonzero, ndim) int32 coordinates

  // ---- processing (tensor_conv.cc, tensor_pool.cc, tensor_sort.cc, tensor_einsum.cc) ----------
  // Einstein summation: "ij,jk->ik", implicit output ("ij,jk"), "..." and repeated letters (diagonals).
  static Tensor einsum(std::string_view formula, const std::vector<Tensor>& operands);
  // N-D convolution (input (bs, cin, *spatial), weight (cout, cin/groups, *kernel)). stride and dilation:
  // one value or one per spatial axis; padding: one value, one per axis, or 2 per axis in PyTorch's
  // flat order (last axis first: left, right, top, bottom).
  Tensor conv2d(const Tensor& weight, const std::optional<Tensor>& bias = std::nullopt, int64_t groups = 1,
                const IntOrTuple& stride = 1, const IntOrTuple& dilation = 1, const IntOrTuple& padding = 0) const;
  // Transposed convolution; weight (cin, cout/groups, *kernel).
  Tensor conv_transpose2d(const Tensor& weight, const std::optional<Tensor>& bias = std::nullopt,
                          int64_t groups = 1, const IntOrTuple& stride = 1, const IntOrTuple& dilation = 1,
                          const IntOrTuple& padding = 0, const IntOrTuple& output_padding = 0) const;
  // Pooling over the last len(kernel_size) axes; an empty |stride| means the kernel size.
  Tensor avg_pool2d(const IntOrTuple& kernel_size = {2, 2}, const IntOrTuple& stride = {},
                    const IntOrTuple& dilation = 1, const IntOrTuple& padding = 0, bool ceil_mode = false,
                    bool count_include_pad = true) const;
  Tensor max_pool2d(const IntOrTuple& kernel_size = {2, 2}, const IntOrTuple& stride = {},
                    const IntOrTuple& dilation = 1, const IntOrTuple& padding = 0, bool ceil_mode = false) const;
  // max_pool2d plus the flat index of each max within its input plane (PyTorch's return_indices).
  std::pair<Tensor, Tensor> max_pool2d_with_indices(const IntOrTuple& kernel_size = {2, 2},
                                                    const IntOrTuple& stride = {}, const IntOrTuple& dilation = 1,
                                                    const IntOrTuple& padding = 0, bool ceil_mode = false) const;
  // Resizes the last len(size) axes; |mode| "linear" (bi/trilinear), "nearest" or "nearest-exact".
  Tensor interpolate(const Shape& size, std::string_view mode = "linear", bool align_corners = false) const;
  // Bitonic sort along |dim|: (values, int32 indices); equal elements keep their order.
  std::pair<Tensor, Tensor> sort(int dim = -1, bool descending = false) const;
  Tensor argsort(int dim = -1, bool descending = false) const;
  std::pair<Tensor, Tensor> topk(int64_t k, int dim = -1, bool largest = true) const;  // sorted (values, indices)

  // |value| filling this tensor's shape, in this tensor's dtype unless the scalar needs a wider
  // kind (a float scalar on an int tensor gives the default float), as tinygrad's weak types do.
  Tensor scalar_like(Scalar value) const;

  // ---- several devices (frontend/tensor_multi.cc; tinygrad's shard) ----------------------------
  // This tensor spread over |devices| ("CPU:0", "CPU:1", "OPENCL", any mix): split along |axis| in
  // ceil(n / k) pieces (the last ones shorter when k does not divide n), or whole on each device
  // when |axis| is absent (replicated). Every op on sharded tensors runs once per device; a reduce
  // over the shard axis combines the devices' partials with an ALLREDUCE; to("CPU") and to_vector
  // gather. device() names the tuple: "(CPU, CPU:1)".
  Tensor shard(const std::vector<std::string>& devices, std::optional<int> axis = std::nullopt) const;
  Tensor& shard_(const std::vector<std::string>& devices, std::optional<int> axis = std::nullopt);  // in place
  Tensor shard_like(const Tensor& other) const;  // on other's devices in other's layout (to() for one device)
  std::vector<std::string> devices() const;  // {device()} for a tensor on one device
  bool is_sharded() const;                   // on more than one device
  std::optional<int> shard_axis() const;     // the split axis; none when replicated or on one device

  // ---- autograd ------------------------------------------------------------------------------
  // Marks a float tensor as a leaf whose gradient backward() fills (ints and bools never take
  // gradients). Returns *this, so it chains after a creation call.
  Tensor& requires_grad(bool on);
  bool requires_grad() const;
  // d(this)/d(leaf) for every leaf that requires grad and that this depends on, added to the
  // leaf's grad() (gradients accumulate across calls until clear_grad()). |this| must be a scalar
  // unless |gradient| (shaped like this) is given.
  void backward();
  void backward(const Tensor& gradient);
  // d(this)/d(target) for each target, without touching grad(); a target this does not depend on
  // gets zeros.
  std::vector<Tensor> gradient(const std::vector<Tensor>& targets) const;
  std::vector<Tensor> gradient(const std::vector<Tensor>& targets, const Tensor& gradient) const;
  bool has_grad() const;
  Tensor grad() const;  // throws tg::Error when there is none yet
  void set_grad(const Tensor& grad);
  void clear_grad();
  Tensor detach() const;  // the same value, cut out of the gradient graph

  // Wraps an existing graph node; for compiler-level code and tests.
  Tensor(UOpRef uop, std::string device);

  struct State;  // defined in frontend/tensor_state.h, private to the front end

 private:
  Tensor binary(Ops op, const Tensor& other, const char* name) const;
  Tensor unary(Ops op) const;
  Tensor reduce(Ops op, const std::vector<int>& axes, bool keepdim, const char* name) const;
  Tensor like(UOpRef uop) const;  // a new tensor on this device
  std::vector<unsigned char> read_bytes() const;
  std::vector<unsigned char> gather_bytes() const;  // a realized MULTI's bytes, shards joined
  std::vector<Tensor> gradient_impl(const std::vector<Tensor>& targets, const Tensor& seed, const char* op) const;
  static Tensor from_bytes(const void* data, size_t bytes, DType dtype, std::optional<Shape> shape,
                           std::string_view device, size_t count);

  std::shared_ptr<State> state_;
};

// Operators, with scalars on either side. %, the bitwise ops and the shifts take int or bool tensors.
Tensor operator+(const Tensor& a, const Tensor& b);
Tensor operator-(const Tensor& a, const Tensor& b);
Tensor operator*(const Tensor& a, const Tensor& b);
Tensor operator/(const Tensor& a, const Tensor& b);
Tensor operator<(const Tensor& a, const Tensor& b);
Tensor operator>(const Tensor& a, const Tensor& b);
Tensor operator<=(const Tensor& a, const Tensor& b);
Tensor operator>=(const Tensor& a, const Tensor& b);
Tensor operator==(const Tensor& a, const Tensor& b);
Tensor operator!=(const Tensor& a, const Tensor& b);
Tensor operator-(const Tensor& a);
Tensor operator%(const Tensor& a, const Tensor& b);
Tensor operator&(const Tensor& a, const Tensor& b);
Tensor operator|(const Tensor& a, const Tensor& b);
Tensor operator^(const Tensor& a, const Tensor& b);
Tensor operator<<(const Tensor& a, const Tensor& b);
Tensor operator>>(const Tensor& a, const Tensor& b);
Tensor operator~(const Tensor& a);
#define TG_TENSOR_SCALAR_OPERATOR(SIGN)                              \
  Tensor operator SIGN(const Tensor& a, Scalar b);                   \
  Tensor operator SIGN(Scalar a, const Tensor& b);
TG_TENSOR_SCALAR_OPERATOR(+)
TG_TENSOR_SCALAR_OPERATOR(-)
TG_TENSOR_SCALAR_OPERATOR(*)
TG_TENSOR_SCALAR_OPERATOR(/)
TG_TENSOR_SCALAR_OPERATOR(<)
TG_TENSOR_SCALAR_OPERATOR(>)
TG_TENSOR_SCALAR_OPERATOR(<=)
TG_TENSOR_SCALAR_OPERATOR(>=)
TG_TENSOR_SCALAR_OPERATOR(==)
TG_TENSOR_SCALAR_OPERATOR(!=)
TG_TENSOR_SCALAR_OPERATOR(%)
TG_TENSOR_SCALAR_OPERATOR(&)
TG_TENSOR_SCALAR_OPERATOR(|)
TG_TENSOR_SCALAR_OPERATOR(^)
TG_TENSOR_SCALAR_OPERATOR(<<)
TG_TENSOR_SCALAR_OPERATOR(>>)
#undef TG_TENSOR_SCALAR_OPERATOR

// ---- templates ----------------------------------------------------------------------------------

template <class T>
Tensor Tensor::from_vector(const std::vector<T>& data, OptionalShape shape, std::string_view device) {
  if constexpr (std::same_as<T, bool>) {  // std::vector<bool> has no contiguous storage
    std::vector<unsigned char> bytes(data.begin(), data.end());
    return from_bytes(bytes.data(), bytes.size(), dtypes::bool_, std::move(shape.shape), device, data.size());
  } else {
    return from_bytes(data.data(), data.size() * sizeof(T), DTypeOf<T>(), std::move(shape.shape), device,
                      data.size());
  }
}

template <class T>
std::vector<T> Tensor::to_vector() const {
  if (DTypeOf<T>() != dtype())
    throw Error("to_vector<" + DTypeOf<T>().name() + ">: the tensor's dtype is " + dtype().name() +
                "; read it with its own type or .cast(tg::dtypes::" + DTypeOf<T>().name() + ") first");
  std::vector<unsigned char> bytes = read_bytes();
  std::vector<T> out(bytes.size() / sizeof(T));
  if constexpr (std::same_as<T, bool>) {
    for (size_t i = 0; i < out.size(); ++i) out[i] = bytes[i] != 0;
  } else if (!bytes.empty()) {
    std::memcpy(out.data(), bytes.data(), bytes.size());
  }
  return out;
}

template <class T>
T Tensor::item() const {
  if (numel() != 1)
    throw Error("item: the tensor has shape " + ShapeString(shape()) + " (" + std::to_string(numel()) +
                " elements); item() needs exactly one");
  return to_vector<T>().front();
}

}  // namespace tg

#endif  // TG_FRONTEND_TENSOR_H_
