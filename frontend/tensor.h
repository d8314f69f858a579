// tg::Tensor: the lazy tensor of tinygrad-cc. Every op records a UOp; nothing runs until a value
// is asked for (realize, to_vector, item). The first step of DESIGN §2; API contract in DESIGN §4.
#ifndef TG_FRONTEND_TENSOR_H_
#define TG_FRONTEND_TENSOR_H_

#include <concepts>
#include <cstdint>
#include <cstring>
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

class Tensor {
 public:
  // ---- creation ------------------------------------------------------------------------------
  // |data| laid out row-major in |shape| (default: 1-D of data.size()); |device| "" = default.
  template <class T>
  static Tensor from_vector(const std::vector<T>& data, std::optional<Shape> shape = std::nullopt,
                            std::string_view device = "");
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
  Tensor contiguous() const;                 // forces a buffer in the schedule

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

  // ---- reductions (negative axes count from the end; no axes = all) --------------------------
  Tensor sum(const std::vector<int>& axes = {}, bool keepdim = false) const;
  Tensor max(const std::vector<int>& axes = {}, bool keepdim = false) const;
  Tensor min(const std::vector<int>& axes = {}, bool keepdim = false) const;
  Tensor mean(const std::vector<int>& axes = {}, bool keepdim = false) const;
  Tensor matmul(const Tensor& other) const;  // numpy matmul semantics, as a reduce of a product
  Tensor dot(const Tensor& other) const { return matmul(other); }

  // ---- movement (views: no data moves until a kernel reads them) ----------------------------
  Tensor reshape(const Shape& shape) const;  // one -1 is inferred
  Tensor permute(const std::vector<int>& order) const;
  Tensor expand(const Shape& shape) const;  // -1 keeps an axis; new axes may be added in front
  // (before, after) per axis; negative amounts crop. |value| fills the new border.
  Tensor pad(const std::vector<std::pair<int64_t, int64_t>>& padding, Scalar value = 0) const;
  Tensor shrink(const std::vector<std::pair<int64_t, int64_t>>& bounds) const;  // [start, stop)
  Tensor flip(const std::vector<int>& axes) const;
  Tensor transpose(int dim0 = 1, int dim1 = 0) const;
  Tensor flatten(int start_dim = 0) const;

  // |value| filling this tensor's shape, in this tensor's dtype unless the scalar needs a wider
  // kind (a float scalar on an int tensor gives the default float), as tinygrad's weak types do.
  Tensor scalar_like(Scalar value) const;

  // ---- autograd ------------------------------------------------------------------------------
  // Marks a float tensor as a leaf whose gradient backward() fills (ints and bools never take
  // gradients). Returns *this, so it chains after a creation call.
  Tensor& requires_grad(bool on = true);
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
  std::vector<Tensor> gradient_impl(const std::vector<Tensor>& targets, const Tensor& seed, const char* op) const;
  static Tensor from_bytes(const void* data, size_t bytes, DType dtype, std::optional<Shape> shape,
                           std::string_view device, size_t count);

  std::shared_ptr<State> state_;
};

// Operators, with scalars on either side.
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
#undef TG_TENSOR_SCALAR_OPERATOR

// ---- templates ----------------------------------------------------------------------------------

template <class T>
Tensor Tensor::from_vector(const std::vector<T>& data, std::optional<Shape> shape,
                           std::string_view device) {
  if constexpr (std::same_as<T, bool>) {  // std::vector<bool> has no contiguous storage
    std::vector<unsigned char> bytes(data.begin(), data.end());
    return from_bytes(bytes.data(), bytes.size(), dtypes::bool_, std::move(shape), device, data.size());
  } else {
    return from_bytes(data.data(), data.size() * sizeof(T), DTypeOf<T>(), std::move(shape), device,
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
