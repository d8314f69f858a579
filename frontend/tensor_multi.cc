// Tensors on several devices (tinygrad's shard): a MULTI node of one lazy graph per device, split
// along one axis or replicated. Ops stay ordinary graph ops; compiler/schedule/multi.h runs them per device.
#include <numeric>

#include "compiler/compiler.h"
#include "frontend/shape_util.h"
#include "frontend/tensor_state.h"
#include "ir/multi_arg.h"
#include "runtime/device_registry.h"

namespace tg {
namespace {

std::vector<std::string> CanonicalDevices(const std::vector<std::string>& devices, const char* op) {
  if (devices.empty()) throw Error(std::string(op) + ": give at least one device, e.g. {\"CPU:0\", \"CPU:1\"}");
  std::vector<std::string> out;
  for (const std::string& name : devices) {
    absl::StatusOr<runtime::Device*> d = runtime::DeviceRegistry::Global().GetDevice(name);
    compiler::ThrowIfError(d.status());
    if (std::find(out.begin(), out.end(), (*d)->name()) != out.end())
      throw Error(std::string(op) + ": device " + (*d)->name() + " is named twice; each shard needs its own device");
    out.push_back((*d)->name());
  }
  return out;
}

}  // namespace

std::vector<std::string> Tensor::devices() const { return DeviceSet::FromName(device()).names(); }

bool Tensor::is_sharded() const { return devices().size() > 1 || uop()->op() == Ops::kMulti; }

std::optional<int> Tensor::shard_axis() const {
  if (uop()->op() != Ops::kMulti) return std::nullopt;
  int64_t axis = MultiArg::Of(*uop()).axis;
  return axis < 0 ? std::nullopt : std::optional<int>(static_cast<int>(axis));
}

Tensor Tensor::shard(const std::vector<std::string>& devices, std::optional<int> axis) const {
  std::vector<std::string> devs = CanonicalDevices(devices, "shard");
  std::optional<int64_t> a;
  if (axis) {
    if (ndim() == 0) throw Error("shard: a 0-d tensor has no axis to split; shard it with axis none (replicate)");
    if (*axis < -ndim() || *axis >= ndim())
      throw Error("shard: axis " + std::to_string(*axis) + " is out of range for shape " + ShapeString(shape()));
    a = *axis < 0 ? *axis + ndim() : *axis;
  }
  if (is_sharded()) {
    if (devs == this->devices() && shard_axis() == (a ? std::optional<int>(static_cast<int>(*a)) : std::nullopt))
      return *this;
    throw Error("shard: the tensor is already on " + device() + "; gather it first with .to(device), then shard");
  }
  std::vector<UOpRef> shards;
  std::vector<std::pair<int64_t, int64_t>> bounds =
      a ? compiler::EvenBounds(shape()[*a], devs.size()) : std::vector<std::pair<int64_t, int64_t>>();
  for (size_t i = 0; i < devs.size(); ++i) {
    Tensor piece = *this;
    if (a) {
      std::vector<std::pair<int64_t, int64_t>> window;
      for (int64_t d : shape()) window.emplace_back(0, d);
      window[*a] = bounds[i];
      if (window[*a] != std::pair<int64_t, int64_t>(0, shape()[*a])) piece = piece.shrink(window);
    }
    shards.push_back(piece.to(devs[i]).uop());
  }
  return Tensor(MakeMulti(std::move(shards), a.value_or(-1), devs), DeviceSet(devs).Name());
}

Tensor& Tensor::shard_(const std::vector<std::string>& devices, std::optional<int> axis) {
  Tensor s = shard(devices, axis);
  state_->uop = s.uop();
  state_->device = s.device();
  return *this;
}

Tensor Tensor::shard_like(const Tensor& other) const {
  if (!other.is_sharded()) return to(other.device());
  return shard(other.devices(), other.shard_axis());
}

// The shards' bytes laid side by side along the shard axis (one shard's for a replicated tensor).
std::vector<unsigned char> Tensor::gather_bytes() const {
  const UOpRef& multi = uop();
  MultiArg arg = MultiArg::Of(*multi);
  auto shard_bytes = [&](const UOpRef& shard) {
    std::vector<unsigned char> bytes(static_cast<size_t>(shard->numel()) * dtype().itemsize());
    if (!bytes.empty())
      compiler::ThrowIfError(compiler::RuntimeBuffer(compiler::BufferOfView(shard))->CopyOut(bytes.data(), bytes.size()));
    return bytes;
  };
  if (arg.axis < 0) return shard_bytes(multi->src(0));
  const Shape& full = shape();
  int64_t outer = 1, inner = dtype().itemsize();
  for (int64_t i = 0; i < arg.axis; ++i) outer *= full[i];
  for (size_t i = arg.axis + 1; i < full.size(); ++i) inner *= full[i];
  std::vector<unsigned char> out(static_cast<size_t>(numel()) * dtype().itemsize());
  int64_t at = 0;  // where this shard's rows start along the axis
  for (const UOpRef& shard : multi->src()) {
    std::vector<unsigned char> bytes = shard_bytes(shard);
    int64_t len = shard->shape()[arg.axis];
    for (int64_t o = 0; o < outer; ++o)
      std::copy_n(bytes.data() + o * len * inner, len * inner, out.data() + (o * full[arg.axis] + at) * inner);
    at += len;
  }
  return out;
}

}  // namespace tg
