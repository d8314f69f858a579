#include "frontend/dist/nccl_collectives.h"

#include <algorithm>
#include <string>
#include <utility>

#include "absl/status/statusor.h"
#include "compiler/compiler.h"
#include "frontend/dist/nccl_communicator.h"
#include "frontend/dist/nccl_types.h"
#include "frontend/dist/world.h"
#include "ir/error.h"
#include "ir/uop.h"
#include "runtime/native_handles.h"

namespace tg::dist::internal {
namespace {

using DtypeGroups = std::vector<std::pair<DType, std::vector<Tensor>>>;

// In order of first appearance, so every rank given the same list issues the calls in one order.
DtypeGroups GroupByDtype(const std::vector<Tensor>& tensors) {
  DtypeGroups groups;
  for (const Tensor& t : tensors) {
    auto group = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == t.dtype(); });
    if (group == groups.end()) group = groups.insert(groups.end(), {t.dtype(), {}});
    group->second.push_back(t);
  }
  return groups;
}

int64_t TotalNumel(const std::vector<Tensor>& tensors) {
  int64_t n = 0;
  for (const Tensor& t : tensors) n += t.numel();
  return n;
}

// A fresh (numel,) buffer on |device| holding |tensors| flattened and concatenated, realized: a buffer of
// its own, so NCCL writing into it changes no tensor until the slices are assigned back.
Tensor PackOnDevice(const std::vector<Tensor>& tensors, DType dtype, const std::string& device) {
  std::vector<Tensor> pieces;
  // contiguous(): each lazy tensor gets its own kernel rather than being recomputed inside the cat.
  for (const Tensor& t : tensors) pieces.push_back(t.flatten().contiguous());
  Tensor joined = pieces.size() == 1 ? pieces[0]
                                     : pieces[0].cat(std::vector<Tensor>(pieces.begin() + 1, pieces.end()), 0);
  Tensor flat = Tensor::empty({TotalNumel(tensors)}, dtype, device);
  flat.assign(joined);
  flat.realize();
  return flat;
}

template <class T>
T OrThrow(absl::StatusOr<T> v, const std::string& what) {
  if (!v.ok()) throw Error("tg::dist: " + what + ": " + std::string(v.status().message()));
  return *std::move(v);
}

// What an NCCL call on |flat|'s buffer needs: its native address and the stream to queue on.
struct NativeTarget {
  void* address;
  NcclStream stream;
};

NativeTarget PrepareNativeCall(runtime::Device& device, const Tensor& flat) {
  runtime::Buffer* buffer = compiler::RuntimeBuffer(compiler::BufferOfView(flat.uop()));
  if (buffer == nullptr) throw Error("tg::dist: NCCL: the packed tensor has no device buffer");
  runtime::NativeBuffer native = OrThrow(runtime::NativeBufferOf(*buffer), "NCCL needs the buffer's native address");
  runtime::NativeDevice dev = OrThrow(runtime::NativeDeviceOf(device), "NCCL needs the device's native stream");
  // Without a native stream the plugin's queue is the only ordering: the packing kernel must be done
  // before NCCL touches the memory. With one, NCCL's work queues behind it on the same stream.
  if (dev.stream == nullptr) compiler::ThrowIfError(device.Synchronize());
  if (absl::Status s = runtime::BindThreadTo(device); !s.ok())
    throw Error("tg::dist: binding this thread to " + device.name() + " for NCCL failed: " + std::string(s.message()));
  return {reinterpret_cast<void*>(static_cast<uintptr_t>(native.address)), dev.stream};
}

std::string Bytes(int64_t count, DType dtype) { return std::to_string(count * dtype.itemsize()) + " bytes"; }

// ncclAllReduce in place on |flat|; true when the result still has to be divided by the world size.
bool AllreduceFlat(runtime::Device& device, const Tensor& flat, ReduceOp op) {
  NcclCommunicator& comm = NcclCommunicator::For(device);
  const NcclLibrary& nccl = comm.library();
  DType dtype = flat.dtype();
  if (dtype.scalar() == ScalarType::kBFloat16 && !nccl.has_avg())  // both arrived in NCCL 2.10
    throw Error("tg::dist::allreduce: bfloat16 needs NCCL 2.10 or later; this is " + nccl.version_string());
  bool divide = op == ReduceOp::kAverage && !nccl.has_avg();
  NcclRedOp nccl_op = op == ReduceOp::kMax   ? kNcclMax
                      : op == ReduceOp::kMin ? kNcclMin
                      : op == ReduceOp::kAverage && !divide ? kNcclAvg
                                                             : kNcclSum;
  NativeTarget target = PrepareNativeCall(device, flat);
  std::string what = "ncclAllReduce of " + Bytes(flat.numel(), dtype);
  comm.Check(nccl.api().all_reduce(target.address, target.address, static_cast<size_t>(flat.numel()),
                                   *NcclTypeOf(dtype), nccl_op, comm.comm(), target.stream),
             what);
  comm.WaitForDevice(what);
  return divide;
}

Tensor Divided(const Tensor& t, bool divide) {
  return divide ? t.div(static_cast<double>(world_size())).cast(t.dtype()) : t;
}

// Gives each tensor its slice of |flat| (one realize for all of them).
void UnpackOnDevice(const std::vector<Tensor>& tensors, const Tensor& flat, bool divide) {
  std::vector<Tensor> written;
  int64_t offset = 0;
  for (Tensor t : tensors) {
    Tensor slice = flat.shrink({{offset, offset + t.numel()}}).reshape(t.shape());
    offset += t.numel();
    t.assign(Divided(slice, divide));
    written.push_back(t);
  }
  Tensor::realize_all(written);
}

void CheckReducible(DType dtype, ReduceOp op) {
  if (!NcclTypeOf(dtype))
    throw Error("tg::dist::allreduce over NCCL: dtype " + dtype.name() +
                " has no NCCL type; allowed: int8, uint8, int32, uint32, int64, uint64, float16, bfloat16, "
                "float32, float64");
  if (op == ReduceOp::kAverage && !dtype.is_float())
    throw Error("tg::dist::allreduce: kAverage needs a float dtype, got " + dtype.name() +
                "; reduce with kSum and divide as you need");
}

}  // namespace

void NcclAllreduce(runtime::Device& device, const std::vector<Tensor>& tensors, ReduceOp op) {
  DtypeGroups groups = GroupByDtype(tensors);
  for (const auto& [dtype, group] : groups) CheckReducible(dtype, op);  // before any rank sends anything
  for (const auto& [dtype, group] : groups) {
    if (TotalNumel(group) == 0) continue;
    Tensor flat = PackOnDevice(group, dtype, device.name());
    bool divide = AllreduceFlat(device, flat, op);
    UnpackOnDevice(group, flat, divide);
  }
}

Tensor NcclReduced(runtime::Device& device, const Tensor& flat, ReduceOp op) {
  CheckReducible(flat.dtype(), op);
  if (flat.ndim() != 1) throw Error("tg::dist: NcclReduced expects a 1-D tensor, got " + ShapeString(flat.shape()));
  if (flat.numel() == 0) return flat;
  Tensor copy = PackOnDevice({flat}, flat.dtype(), device.name());
  return Divided(copy, AllreduceFlat(device, copy, op));
}

void NcclBroadcast(runtime::Device& device, const std::vector<Tensor>& tensors, int root) {
  for (const auto& [dtype, group] : GroupByDtype(tensors)) {
    if (TotalNumel(group) == 0) continue;
    Tensor flat = PackOnDevice(group, dtype, device.name());
    NcclCommunicator& comm = NcclCommunicator::For(device);
    NativeTarget target = PrepareNativeCall(device, flat);
    std::string what = "ncclBroadcast of " + Bytes(flat.numel(), dtype) + " from rank " + std::to_string(root);
    // Bytes, whatever the dtype: a broadcast only copies them (bool and int16 have no NCCL type).
    size_t bytes = static_cast<size_t>(flat.numel()) * dtype.itemsize();
    comm.Check(comm.library().api().broadcast(target.address, target.address, bytes, kNcclInt8, root, comm.comm(),
                                              target.stream),
               what);
    comm.WaitForDevice(what);
    if (rank() != root) UnpackOnDevice(group, flat, /*divide=*/false);
  }
}

}  // namespace tg::dist::internal
