// A stand-in libnccl.so.2 for machines without GPUs or NCCL: the NCCL entry points
// tg::dist resolves, implemented on HOST pointers with MPI underneath (ncclAllReduce -> MPI_Allreduce,
// ncclBroadcast -> MPI_Bcast, ncclGetUniqueId -> random bytes). tg::dist reaches it with
// TG_NCCL_LIBRARY=<this .so> and TG_DIST_BACKEND=nccl on CPU tensors, whose plugin names host memory
// through tg.native_handles, so the whole NCCL path runs here. It counts every call
// (tg_nccl_stub_calls) so tests can tell NCCL was really used.
//
// Knobs, read at each call: TG_NCCL_STUB_VERSION (ncclGetVersion's code, default 22106 = 2.21.6;
// below 21000 there is no ncclAvg), TG_NCCL_STUB_FAIL=<entry point> (that call returns
// ncclSystemError). Built with TG_NCCL_STUB_WITHOUT_BROADCAST it lacks ncclBroadcast.
#include <mpi.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <random>
#include <string>
#include <vector>

namespace {

constexpr int kSuccess = 0, kSystemError = 2, kInvalidArgument = 4, kInvalidUsage = 5;
constexpr int kAvg = 4;

std::mutex g_mu;
std::map<std::string, int>& Calls() {
  static std::map<std::string, int> calls;
  return calls;
}
std::map<std::string, long long>& LastCounts() {
  static std::map<std::string, long long> counts;
  return counts;
}
int g_last_reduce_op = -1;

// Counts the call; returns the injected failure (TG_NCCL_STUB_FAIL) or success.
int Enter(const char* fn, long long count = -1) {
  std::lock_guard<std::mutex> lock(g_mu);
  Calls()[fn] += 1;
  if (count >= 0) LastCounts()[fn] = count;
  const char* fail = std::getenv("TG_NCCL_STUB_FAIL");
  return fail != nullptr && std::strcmp(fail, fn) == 0 ? kSystemError : kSuccess;
}

bool ToMpi(int type, MPI_Datatype* out, size_t* size) {
  switch (type) {
    case 0: *out = MPI_INT8_T, *size = 1; return true;
    case 1: *out = MPI_UINT8_T, *size = 1; return true;
    case 2: *out = MPI_INT32_T, *size = 4; return true;
    case 3: *out = MPI_UINT32_T, *size = 4; return true;
    case 4: *out = MPI_INT64_T, *size = 8; return true;
    case 5: *out = MPI_UINT64_T, *size = 8; return true;
    case 7: *out = MPI_FLOAT, *size = 4; return true;
    case 8: *out = MPI_DOUBLE, *size = 8; return true;
    default: return false;  // float16 / bfloat16: MPI has no such types
  }
}

}  // namespace

extern "C" {

struct ncclUniqueId {
  char internal[128];
};
struct ncclComm {
  int rank, nranks;
};

int ncclGetVersion(int* version) {
  if (int rc = Enter("ncclGetVersion")) return rc;
  const char* v = std::getenv("TG_NCCL_STUB_VERSION");
  *version = v != nullptr ? std::atoi(v) : 22106;
  return kSuccess;
}

int ncclGetUniqueId(ncclUniqueId* id) {
  if (int rc = Enter("ncclGetUniqueId")) return rc;
  std::random_device random;
  for (char& c : id->internal) c = static_cast<char>(random());
  return kSuccess;
}

int ncclCommInitRank(ncclComm** comm, int nranks, ncclUniqueId id, int rank) {
  if (int rc = Enter("ncclCommInitRank")) return rc;
  int size = 0, me = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  if (nranks != size || rank != me) return kInvalidArgument;
  // Every rank must have been given rank 0's id (tg::dist broadcasts it): compare with rank 0's.
  ncclUniqueId root = id;
  MPI_Bcast(root.internal, sizeof root.internal, MPI_BYTE, 0, MPI_COMM_WORLD);
  if (std::memcmp(root.internal, id.internal, sizeof id.internal) != 0) return kInvalidUsage;
  *comm = new ncclComm{rank, nranks};
  return kSuccess;
}

int ncclAllReduce(const void* send, void* recv, size_t count, int type, int op, ncclComm* comm, void* /*stream*/) {
  if (int rc = Enter("ncclAllReduce", static_cast<long long>(count))) return rc;
  g_last_reduce_op = op;
  MPI_Datatype mpi_type;
  size_t size = 0;
  if (comm == nullptr || !ToMpi(type, &mpi_type, &size)) return kInvalidArgument;
  MPI_Op mpi_op = op == 2 ? MPI_MAX : op == 3 ? MPI_MIN : op == 1 ? MPI_PROD : MPI_SUM;
  const void* in = send == recv ? MPI_IN_PLACE : send;
  if (MPI_Allreduce(in, recv, static_cast<int>(count), mpi_type, mpi_op, MPI_COMM_WORLD) != MPI_SUCCESS)
    return kSystemError;
  if (op == kAvg) {
    if (type == 7)
      for (size_t i = 0; i < count; ++i) static_cast<float*>(recv)[i] /= static_cast<float>(comm->nranks);
    else if (type == 8)
      for (size_t i = 0; i < count; ++i) static_cast<double*>(recv)[i] /= comm->nranks;
    else
      return kInvalidArgument;
  }
  return kSuccess;
}

#ifndef TG_NCCL_STUB_WITHOUT_BROADCAST
int ncclBroadcast(const void* send, void* recv, size_t count, int type, int root, ncclComm* comm, void* /*stream*/) {
  if (int rc = Enter("ncclBroadcast", static_cast<long long>(count))) return rc;
  MPI_Datatype mpi_type;
  size_t size = 0;
  if (comm == nullptr || !ToMpi(type, &mpi_type, &size)) return kInvalidArgument;
  if (comm->rank == root && send != recv) std::memcpy(recv, send, count * size);
  if (MPI_Bcast(recv, static_cast<int>(count), mpi_type, root, MPI_COMM_WORLD) != MPI_SUCCESS) return kSystemError;
  return kSuccess;
}
#endif

int ncclCommDestroy(ncclComm* comm) {
  Enter("ncclCommDestroy");
  delete comm;
  return kSuccess;
}

int ncclCommAbort(ncclComm* comm) {
  Enter("ncclCommAbort");
  delete comm;
  return kSuccess;
}

int ncclCommGetAsyncError(ncclComm* /*comm*/, int* async_error) {
  *async_error = kSuccess;  // not counted: polled while waiting
  return kSuccess;
}

const char* ncclGetErrorString(int result) {
  switch (result) {
    case kSuccess: return "no error";
    case kSystemError: return "unhandled system error (stub: injected by TG_NCCL_STUB_FAIL)";
    case kInvalidArgument: return "invalid argument";
    case kInvalidUsage: return "invalid usage";
    default: return "unknown result code";
  }
}

// Test hooks (not NCCL's): how often |fn| was called, and the count of its last call.
int tg_nccl_stub_calls(const char* fn) {
  std::lock_guard<std::mutex> lock(g_mu);
  auto it = Calls().find(fn);
  return it == Calls().end() ? 0 : it->second;
}
long long tg_nccl_stub_last_count(const char* fn) {
  std::lock_guard<std::mutex> lock(g_mu);
  auto it = LastCounts().find(fn);
  return it == LastCounts().end() ? -1 : it->second;
}

// The ncclRedOp_t of the last ncclAllReduce (-1 before any).
int tg_nccl_stub_last_reduce_op() { return g_last_reduce_op; }

}  // extern "C"
