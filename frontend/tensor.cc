// Tensor core: shared state, creation, realization, reading values out, devices.
#include "frontend/tensor.h"

#include <bit>
#include <cmath>
#include <mutex>
#include <utility>

#include "compiler/compiler.h"
#include "frontend/host_effects.h"
#include "frontend/lazy_load.h"
#include "frontend/random.h"
#include "frontend/shape_util.h"
#include "frontend/tensor_state.h"
#include "ir/multi_arg.h"
#include "runtime/device_registry.h"

namespace tg {

namespace {

std::string CanonicalDevice(std::string_view name) {
  if (std::vector<std::string> tuple = DeviceSet::FromName(name).names(); tuple.size() > 1) {
    for (std::string& d : tuple) d = CanonicalDevice(d);  // "(CPU:0, CPU:1)": each named canonically
    return DeviceSet(tuple).Name();
  }
  auto& registry = runtime::DeviceRegistry::Global();
  absl::StatusOr<runtime::Device*> device =
      name.empty() ? registry.DefaultDevice() : registry.GetDevice(name);
  compiler::ThrowIfError(device.status());
  return (*device)->name();
}

void CheckShape(const Shape& shape, std::string_view op) {
  for (int64_t d : shape)
    if (d < 0)
      throw Error(std::string(op) + ": shape " + ShapeString(shape) + " has a negative dimension");
}

// A constant of |dtype| filling |shape|: CONST broadcast, no memory behind it.
// Equal as a CONST's arg is: a double by its bits, so 0.0 and -0.0 differ (and NaN is never found).
bool SameConst(const ConstValue& a, const ConstValue& b) {
  if (a.index() != b.index()) return false;
  if (const double* x = std::get_if<double>(&a)) return std::bit_cast<uint64_t>(*x) == std::bit_cast<uint64_t>(std::get<double>(b));
  return a == b;
}

UOpRef ConstFilling(const Shape& shape, DType dtype, ConstValue value) {
  // The last filling made is kept: a loop adding one scalar (x = x + 1) would build and intern CONST,
  // RESHAPE and EXPAND again for every op. Nodes are hash-consed, so the kept node is the one a rebuild
  // would return. Process-wide and never destroyed, not thread_local: a thread's last node released by
  // its TLS destructors would run after the factory's own thread_local state was gone (ir/uop.cc).
  struct Last {
    std::mutex mu;
    Shape shape;
    DType dtype;
    ConstValue value;
    UOpRef node;
  };
  static Last* last = new Last();
  {
    std::lock_guard<std::mutex> lock(last->mu);
    if (last->node && last->dtype == dtype && SameConst(last->value, value) && last->shape == shape) return last->node;
  }
  UOpRef c = UOp::Const(dtype, value);
  UOpRef filled = shape.empty() ? c : c->reshape(Shape(shape.size(), 1))->expand(shape);
  UOpRef dropped;  // released after the lock: releasing a node takes the factory's lock
  {
    std::lock_guard<std::mutex> lock(last->mu);
    last->shape = shape, last->dtype = dtype, last->value = value;
    dropped = std::exchange(last->node, filled);
  }
  return filled;
}

ConstValue ScalarValue(Scalar s) {
  switch (s.kind) {
    case Scalar::Kind::kBool: return s.value != 0;
    case Scalar::Kind::kInt: return static_cast<int64_t>(s.value);
    case Scalar::Kind::kFloat: return s.value;
  }
  return s.value;
}

DType ScalarDType(Scalar s) {
  switch (s.kind) {
    case Scalar::Kind::kBool: return dtypes::bool_;
    case Scalar::Kind::kInt: return dtypes::default_int;
    case Scalar::Kind::kFloat: return dtypes::default_float;
  }
  return dtypes::default_float;
}

}  // namespace

Tensor::Tensor(UOpRef uop, std::string device)
    : state_(std::make_shared<State>(State{std::move(uop), std::move(device)})) {}

const Shape& Tensor::shape() const { return state_->uop->shape(); }
DType Tensor::dtype() const { return state_->uop->dtype(); }
const std::string& Tensor::device() const { return state_->device; }
int64_t Tensor::numel() const { return Numel(shape()); }
const UOpRef& Tensor::uop() const { return state_->uop; }
Tensor Tensor::like(UOpRef uop) const { return Tensor(std::move(uop), device()); }

Tensor Tensor::scalar_like(Scalar value) const {
  // Weak typing: a Python-style scalar takes the tensor's dtype unless it needs a wider kind.
  DType dtype = this->dtype();
  if (value.kind == Scalar::Kind::kFloat && !dtype.is_float()) dtype = dtypes::default_float;
  if (value.kind == Scalar::Kind::kInt && dtype.is_bool()) dtype = dtypes::default_int;
  return like(ConstFilling(shape(), dtype, ScalarValue(value)));
}

Tensor Tensor::from_bytes(const void* data, size_t bytes, DType dtype, std::optional<Shape> shape,
                          std::string_view device, size_t count) {
  Shape s = shape.value_or(Shape{static_cast<int64_t>(count)});
  CheckShape(s, "from_vector");
  if (Numel(s) != static_cast<int64_t>(count))
    throw Error("from_vector: " + std::to_string(count) + " values do not fill shape " + ShapeString(s) +
                " (" + std::to_string(Numel(s)) + " elements)");
  std::string dev = CanonicalDevice(device);
  std::vector<UOpRef> copies;  // one per device: a tuple device gets the data replicated
  const DeviceSet devices = DeviceSet::FromName(dev);  // named: the loop must not iterate a temporary's list
  for (const std::string& d : devices) {
    UOpRef buffer = compiler::NewBufferNode(d, dtype, static_cast<int64_t>(count));
    if (count > 0) compiler::ThrowIfError(compiler::RuntimeBuffer(buffer)->CopyIn(data, bytes));
    copies.push_back(s == buffer->shape() ? buffer : buffer->reshape(s));
  }
  if (copies.size() == 1) return Tensor(copies[0], dev);
  return Tensor(MakeMulti(std::move(copies), -1, devices), dev);
}

Tensor Tensor::empty(const Shape& shape, DType dtype, std::string_view device) {
  CheckShape(shape, "empty");
  std::string dev = CanonicalDevice(device);
  std::vector<UOpRef> buffers;
  const DeviceSet devices = DeviceSet::FromName(dev);  // named: the loop must not iterate a temporary's list
  for (const std::string& d : devices) {
    UOpRef buffer = compiler::NewBufferNode(d, dtype, Numel(shape));
    buffers.push_back(shape == buffer->shape() ? buffer : buffer->reshape(shape));
  }
  if (buffers.size() == 1) return Tensor(buffers[0], dev);
  return Tensor(MakeMulti(std::move(buffers), -1, devices), dev);
}

Tensor Tensor::full(const Shape& shape, Scalar value, std::optional<DType> dtype, std::string_view device) {
  CheckShape(shape, "full");
  DType dt = dtype.value_or(ScalarDType(value));
  return Tensor(ConstFilling(shape, dt, ScalarValue(value)), CanonicalDevice(device));
}

Tensor Tensor::zeros(const Shape& shape, DType dtype, std::string_view device) {
  return full(shape, 0, dtype, device);
}

Tensor Tensor::ones(const Shape& shape, DType dtype, std::string_view device) {
  return full(shape, 1, dtype, device);
}

Tensor Tensor::arange(Scalar stop) { return arange(0, stop); }

namespace {

// The dtype an arange of |dtype| is computed in lazily: int32 for integer results, float32 otherwise.
DType ArangeArithmetic(DType dtype) { return dtype.is_float() ? dtypes::float32 : dtypes::int32; }

// Whether start + i * step is exact for every i < n both in double (the host's and PyTorch's arithmetic)
// and in |arith|: integral start and step, every value and every iota * step within int32, and below
// 2^24 in float32 (which holds every integer up to there). Then the lazy IOTA form gives the same values
// bit for bit.
bool ArangeIsExact(double start, double step, int64_t n, DType arith) {
  const double limit = arith.is_float() ? 16777216.0 : 2147483647.0;
  double span = static_cast<double>(n - 1) * step;  // iota * step, before start is added
  return n > 0 && start == std::floor(start) && step == std::floor(step) && std::abs(start) < limit &&
         std::abs(span) < limit && std::abs(step) < limit && std::abs(start + span) < limit;
}

int64_t ArangeLength(const Scalar& start, const Scalar& stop, const Scalar& step) {
  if (step.value == 0) throw Error("arange: step must not be 0");
  return std::max<int64_t>(0, static_cast<int64_t>(std::ceil((stop.value - start.value) / step.value)));
}

// IOTA * step + start, computed where it is read: no buffer, and a compare against it stays visible to
// the compiler (a one-hot reduce over it becomes an indexed load). Empty where that is not exact or the
// device is a tuple (a lazy node has no shards); the caller then makes the values on the host.
std::optional<Tensor> LazyArange(const Scalar& start, const Scalar& step, int64_t n, DType dtype,
                                 const std::string& device) {
  DType arith = ArangeArithmetic(dtype);
  if (!ArangeIsExact(start.value, step.value, n, arith) || DeviceSet::FromName(device).size() > 1)
    return std::nullopt;
  Tensor r(UOp::Make(Ops::kIota, arith, {}, n), device);
  if (step.value != 1) r = r * Scalar(static_cast<int64_t>(step.value));
  if (start.value != 0) r = r + Scalar(static_cast<int64_t>(start.value));
  return arith == dtype ? r : r.cast(dtype);
}

}  // namespace

Tensor Tensor::arange(Scalar start, Scalar stop, Scalar step, std::string_view device) {
  int64_t n = ArangeLength(start, stop, step);
  bool is_float = start.kind == Scalar::Kind::kFloat || stop.kind == Scalar::Kind::kFloat ||
                  step.kind == Scalar::Kind::kFloat;
  std::string dev = CanonicalDevice(device);
  if (std::optional<Tensor> lazy = LazyArange(start, step, n, is_float ? dtypes::float32 : dtypes::int32, dev))
    return *lazy;
  if (is_float) {
    std::vector<float> v(n);
    for (int64_t i = 0; i < n; ++i) v[i] = static_cast<float>(start.value + i * step.value);
    return from_vector(v, Shape{n}, dev);
  }
  std::vector<int32_t> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = static_cast<int32_t>(start.value + i * step.value);
  return from_vector(v, Shape{n}, dev);
}

Tensor Tensor::arange(Scalar start, Scalar stop, Scalar step, DType dtype, std::string_view device) {
  int64_t n = ArangeLength(start, stop, step);
  std::string dev = CanonicalDevice(device);
  if (std::optional<Tensor> lazy = LazyArange(start, step, n, dtype, dev)) return *lazy;
  std::vector<double> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = start.value + static_cast<double>(i) * step.value;
  return from_vector(v, Shape{n}, dev).cast(dtype);
}

Tensor Tensor::rand(const Shape& shape, DType dtype, std::string_view device) {
  CheckShape(shape, "rand");
  return from_vector(UniformFloats(Numel(shape)), shape, device).cast(dtype);
}

Tensor Tensor::randn(const Shape& shape, DType dtype, std::string_view device) {
  CheckShape(shape, "randn");
  return from_vector(NormalFloats(Numel(shape)), shape, device).cast(dtype);
}

void Tensor::manual_seed(uint64_t seed) { SetRandomSeed(seed); }

Tensor& Tensor::realize() {
  RunPendingLoads({uop()});  // file-backed inputs (Tensor::from_loader) are read now, not before
  if (!compiler::IsRealized(uop())) state_->uop = compiler::Realize({uop()}, {device()}).front();
  return *this;
}

bool Tensor::is_stored() const { return uop()->op() != Ops::kMulti && compiler::BufferOfView(uop()) != nullptr; }

std::vector<unsigned char> Tensor::read_bytes() const {
  if (compiler::Capturing())
    throw Error("Jit: the function read tensor data (to_vector/item) while it was being captured; a jitted "
                "function must only compute tensors (read the results it returns instead)");
  if (uop()->lengths() != nullptr)
    throw Error("to_vector: the tensor " + ShapeString(shape()) + " has an axis cut to a symbolic length "
                "(shrink_to), whose absent elements have no value; reduce over that axis first");
  NoteHostEffect();
  Tensor self = *this;
  self.realize();
  if (self.uop()->op() == Ops::kMulti) return self.gather_bytes();
  UOpRef buffer = compiler::BufferOfView(self.uop());
  std::vector<unsigned char> bytes(static_cast<size_t>(numel()) * dtype().itemsize());
  if (!bytes.empty())
    compiler::ThrowIfError(compiler::RuntimeBuffer(buffer)->CopyOut(bytes.data(), bytes.size()));
  return bytes;
}

Tensor Tensor::to(std::string_view device) const {
  std::string dev = CanonicalDevice(device);
  if (dev == this->device()) return *this;
  if (std::vector<std::string> tuple = DeviceSet::FromName(dev).names(); tuple.size() > 1) return shard(tuple);  // replicate
  return Tensor(UOp::Make(Ops::kCopy, dtype(), {uop()}, dev), dev);
}

Tensor Tensor::contiguous() const { return like(UOp::Make(Ops::kContiguous, dtype(), {uop()})); }

}  // namespace tg
