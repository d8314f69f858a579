// Internal to //frontend/dist: NCCL (NVIDIA's collective library) loaded with dlopen at run time, never
// linked, so tg::dist builds and runs where it is absent. The few types, values and
// signatures of nccl.h that tg::dist calls are declared here with NCCL's ABI values (stable across
// NCCL 2.x; ncclAvg and ncclBfloat16 since 2.10). No NCCL header is needed to build.
#ifndef TG_FRONTEND_DIST_NCCL_LIBRARY_H_
#define TG_FRONTEND_DIST_NCCL_LIBRARY_H_

#include <cstddef>
#include <string>

namespace tg::dist::internal {

// nccl.h's enums, as the ints they are in its ABI.
using NcclResult = int;  // ncclResult_t
inline constexpr NcclResult kNcclSuccess = 0;
using NcclDataType = int;  // ncclDataType_t
inline constexpr NcclDataType kNcclInt8 = 0, kNcclUint8 = 1, kNcclInt32 = 2, kNcclUint32 = 3, kNcclInt64 = 4,
                              kNcclUint64 = 5, kNcclFloat16 = 6, kNcclFloat32 = 7, kNcclFloat64 = 8,
                              kNcclBfloat16 = 9;
using NcclRedOp = int;  // ncclRedOp_t
inline constexpr NcclRedOp kNcclSum = 0, kNcclMax = 2, kNcclMin = 3, kNcclAvg = 4;
inline constexpr int kNcclVersionWithAvg = 21000;  // NCCL_VERSION(2, 10, 0)

struct NcclUniqueId {  // ncclUniqueId: NCCL_UNIQUE_ID_BYTES opaque bytes, passed by value
  char internal[128];
};
struct NcclCommImpl;
using NcclComm = NcclCommImpl*;  // ncclComm_t
using NcclStream = void*;        // cudaStream_t (a CUstream is the same handle)

// The entry points, with nccl.h's signatures.
struct NcclApi {
  NcclResult (*get_version)(int* version);
  NcclResult (*get_unique_id)(NcclUniqueId* id);
  NcclResult (*comm_init_rank)(NcclComm* comm, int nranks, NcclUniqueId id, int rank);
  NcclResult (*all_reduce)(const void* send, void* recv, size_t count, NcclDataType type, NcclRedOp op, NcclComm comm,
                           NcclStream stream);
  NcclResult (*broadcast)(const void* send, void* recv, size_t count, NcclDataType type, int root, NcclComm comm,
                          NcclStream stream);
  NcclResult (*comm_destroy)(NcclComm comm);
  const char* (*get_error_string)(NcclResult result);
  // Optional (NULL when the library lacks them): used to give up on a collective that never finishes.
  NcclResult (*comm_abort)(NcclComm comm);
  NcclResult (*comm_get_async_error)(NcclComm comm, NcclResult* async_error);
};

class NcclLibrary {
 public:
  // dlopen(|path|) and every required symbol; never throws. Unavailable, with reason(), when the
  // library does not load, a required symbol is missing, or ncclGetVersion fails.
  static NcclLibrary Load(const std::string& path);
  // TG_NCCL_LIBRARY when set, else "libnccl.so.2" (found on the loader's search path).
  static std::string ConfiguredPath();
  // The process's NCCL: Load(ConfiguredPath()) once, on first use.
  static const NcclLibrary& Process();

  bool available() const { return available_; }
  const std::string& path() const { return path_; }
  // Why it is unavailable, naming the library (and the symbol, or dlerror's text); "" when available.
  const std::string& reason() const { return reason_; }
  int version() const { return version_; }  // ncclGetVersion: 22106 for 2.21.6
  std::string version_string() const;       // "2.21.6"
  bool has_avg() const { return version_ >= kNcclVersionWithAvg; }
  const NcclApi& api() const { return api_; }
  // ncclGetErrorString's text for |result| (bounded; "error N" when the library gives none).
  std::string ErrorString(NcclResult result) const;

 private:
  std::string path_, reason_;
  bool available_ = false;
  int version_ = 0;
  NcclApi api_{};
};

}  // namespace tg::dist::internal

#endif  // TG_FRONTEND_DIST_NCCL_LIBRARY_H_
