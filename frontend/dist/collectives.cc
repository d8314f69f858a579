#include "frontend/dist/collectives.h"

#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <utility>
#include <string>

#include "frontend/dist/backend_choice.h"
#include "frontend/dist/mpi_wait.h"
#include "frontend/dist/nccl_collectives.h"
#include "frontend/dist/world.h"
#include "ir/error.h"

namespace tg::dist {
namespace {

const char* kAllowedDtypes = "float32, float64, int8, int16, int32, int64, uint8, uint16, uint32, uint64";

MPI_Datatype MpiType(DType dtype, const char* op) {
  switch (dtype.base() == dtype ? dtype.scalar() : ScalarType::kVoid) {
    case ScalarType::kFloat32: return MPI_FLOAT;
    case ScalarType::kFloat64: return MPI_DOUBLE;
    case ScalarType::kInt8: return MPI_INT8_T;
    case ScalarType::kInt16: return MPI_INT16_T;
    case ScalarType::kInt32: return MPI_INT32_T;
    case ScalarType::kInt64: return MPI_INT64_T;
    case ScalarType::kUInt8: return MPI_UINT8_T;
    case ScalarType::kUInt16: return MPI_UINT16_T;
    case ScalarType::kUInt32: return MPI_UINT32_T;
    case ScalarType::kUInt64: return MPI_UINT64_T;
    default:
      throw Error(std::string("tg::dist::") + op + ": dtype " + dtype.name() + " cannot be reduced; allowed: " +
                  kAllowedDtypes);
  }
}

MPI_Op MpiOp(ReduceOp op) {
  switch (op) {
    case ReduceOp::kMax: return MPI_MAX;
    case ReduceOp::kMin: return MPI_MIN;
    default: return MPI_SUM;  // kAverage: a sum, divided afterwards
  }
}

template <class T>
void DivideBy(void* data, int64_t count, int n) {
  T* v = static_cast<T*>(data);
  for (int64_t i = 0; i < count; ++i) v[i] /= static_cast<T>(n);
}

// MPI counts are ints: a message of more elements goes in pieces.
constexpr int64_t kMaxPiece = INT_MAX / 16;

// |tensors|' values as one contiguous host buffer, in order; their byte offsets in |offsets|.
std::vector<unsigned char> Pack(const std::vector<Tensor>& tensors, std::vector<size_t>& offsets) {
  Tensor::realize_all(tensors);
  std::vector<unsigned char> flat;
  for (const Tensor& t : tensors) {
    offsets.push_back(flat.size());
    std::vector<unsigned char> bytes = t.to_bytes();
    flat.insert(flat.end(), bytes.begin(), bytes.end());
  }
  return flat;
}

// Writes each tensor's slice of |flat| back into it (one realize for all of them).
void Unpack(const std::vector<Tensor>& tensors, const std::vector<unsigned char>& flat,
            const std::vector<size_t>& offsets) {
  std::vector<Tensor> written;
  for (size_t i = 0; i < tensors.size(); ++i) {
    Tensor t = tensors[i];
    size_t bytes = static_cast<size_t>(t.numel()) * t.dtype().itemsize();
    const unsigned char* src = flat.data() + offsets[i];
    t.assign(Tensor::from_loader(t.shape(), t.dtype(),
                                 [src, bytes](void* dst, size_t n) { std::memcpy(dst, src, std::min(n, bytes)); },
                                 t.device()));
    written.push_back(t);
  }
  Tensor::realize_all(written);  // reads |flat| now, while it is alive
}

uint64_t Fnv1a(const std::vector<unsigned char>& bytes, uint64_t hash) {
  for (unsigned char b : bytes) hash = (hash ^ b) * 1099511628211ull;
  return hash;
}

}  // namespace

void allreduce_host(void* data, int64_t count, DType dtype, ReduceOp op) {
  MPI_Datatype type = MpiType(dtype, "allreduce");
  if (op == ReduceOp::kAverage && !dtype.is_float())
    throw Error("tg::dist::allreduce: kAverage needs a float dtype (float32, float64), got " + dtype.name() +
                "; reduce with kSum and divide as you need");
  if (count < 0) throw Error("tg::dist::allreduce: count must be >= 0, got " + std::to_string(count));
  if (world_size() == 1 || count == 0) return;
  auto* bytes = static_cast<unsigned char*>(data);
  for (int64_t done = 0; done < count; done += kMaxPiece) {
    int piece = static_cast<int>(std::min(kMaxPiece, count - done));
    MPI_Request request;
    internal::CheckMpi(MPI_Iallreduce(MPI_IN_PLACE, bytes + done * dtype.itemsize(), piece, type, MpiOp(op),
                                      MPI_COMM_WORLD, &request),
                       "allreduce");
    internal::WaitWithin(request, "allreduce of " + std::to_string(count * dtype.itemsize()) + " bytes");
  }
  if (op != ReduceOp::kAverage) return;
  if (dtype.scalar() == ScalarType::kFloat32) DivideBy<float>(data, count, world_size());
  else DivideBy<double>(data, count, world_size());
}

void broadcast_host(void* data, int64_t bytes, int root) {
  if (root < 0 || root >= world_size())
    throw Error("tg::dist::broadcast: root " + std::to_string(root) + " is not a rank; ranks are 0.." +
                std::to_string(world_size() - 1));
  if (world_size() == 1 || bytes == 0) return;
  auto* p = static_cast<unsigned char*>(data);
  for (int64_t done = 0; done < bytes; done += kMaxPiece) {
    int piece = static_cast<int>(std::min(kMaxPiece, bytes - done));
    MPI_Request request;
    internal::CheckMpi(MPI_Ibcast(p + done, piece, MPI_BYTE, root, MPI_COMM_WORLD, &request), "broadcast");
    internal::WaitWithin(request, "broadcast of " + std::to_string(bytes) + " bytes from rank " + std::to_string(root));
  }
}

void allreduce(const std::vector<Tensor>& tensors, ReduceOp op) {
  if (runtime::Device* device = internal::NcclDeviceFor(tensors, /*reduce=*/true, "allreduce"))
    return internal::NcclAllreduce(*device, tensors, op);
  // Groups in order of first appearance: every rank, given the same list, sends them in one order.
  std::vector<std::pair<DType, std::vector<Tensor>>> by_dtype;
  for (const Tensor& t : tensors) {
    MpiType(t.dtype(), "allreduce");  // refuse a bad dtype before any rank sends anything
    auto group = std::find_if(by_dtype.begin(), by_dtype.end(), [&](const auto& g) { return g.first == t.dtype(); });
    if (group == by_dtype.end()) group = by_dtype.insert(by_dtype.end(), {t.dtype(), {}});
    group->second.push_back(t);
  }
  if (world_size() == 1) return;
  for (auto& [dtype, group] : by_dtype) {
    std::vector<size_t> offsets;
    std::vector<unsigned char> flat = Pack(group, offsets);
    allreduce_host(flat.data(), static_cast<int64_t>(flat.size()) / dtype.itemsize(), dtype, op);
    Unpack(group, flat, offsets);
  }
}

void broadcast(const std::vector<Tensor>& tensors, int root) {
  if (root < 0 || root >= world_size())
    throw Error("tg::dist::broadcast: root " + std::to_string(root) + " is not a rank; ranks are 0.." +
                std::to_string(world_size() - 1));
  if (world_size() == 1) return;
  if (runtime::Device* device = internal::NcclDeviceFor(tensors, /*reduce=*/false, "broadcast"))
    return internal::NcclBroadcast(*device, tensors, root);
  std::vector<size_t> offsets;
  std::vector<unsigned char> flat = Pack(tensors, offsets);
  broadcast_host(flat.data(), static_cast<int64_t>(flat.size()), root);
  if (rank() != root) Unpack(tensors, flat, offsets);
}

void check_replicas(const std::vector<Tensor>& tensors, const char* what) {
  if (world_size() == 1) return;
  Tensor::realize_all(tensors);
  uint64_t hash = 1469598103934665603ull;
  for (const Tensor& t : tensors) hash = Fnv1a(t.to_bytes(), hash);
  std::vector<uint64_t> hashes(world_size());
  MPI_Request request;
  internal::CheckMpi(MPI_Iallgather(&hash, 1, MPI_UINT64_T, hashes.data(), 1, MPI_UINT64_T, MPI_COMM_WORLD, &request),
                     "check_replicas");
  internal::WaitWithin(request, "check_replicas");
  std::string differ;
  for (int r = 1; r < world_size(); ++r)
    if (hashes[r] != hashes[0]) differ += (differ.empty() ? "" : ", ") + std::to_string(r);
  if (!differ.empty())
    throw Error(std::string("tg::dist::check_replicas: the ") + what + " of rank(s) " + differ +
                " differ from rank 0's (they must stay bitwise identical in data-parallel training)");
}

}  // namespace tg::dist
