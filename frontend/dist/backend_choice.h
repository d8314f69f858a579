// Internal to //frontend/dist: which transport a collective uses. TG_DIST_BACKEND:
//   auto (default)  NCCL for the collectives whose tensors all live, on EVERY rank, on one device whose
//                   native memory is CUDA, when libnccl.so.2 (or TG_NCCL_LIBRARY) loads on every rank;
//                   MPI on host memory for everything else.
//   mpi             always MPI on host memory.
//   nccl            always NCCL on the tensors' device memory (any memory kind the plugin can name, so a
//                   stub NCCL on host memory works too); tg::Error when NCCL cannot be used.
// Ranks never choose differently: init() agrees on the library, and in auto mode every collective
// agrees on its tensors with one small MPI allgather.
#ifndef TG_FRONTEND_DIST_BACKEND_CHOICE_H_
#define TG_FRONTEND_DIST_BACKEND_CHOICE_H_

#include <string>
#include <vector>

#include "frontend/tensor.h"
#include "runtime/device.h"

namespace tg::dist::internal {

enum class BackendMode { kAuto, kMpi, kNccl };

struct BackendDecision {
  std::string backend;  // "MPI", "NCCL", or "NCCL/MPI" (auto with NCCL usable: chosen per collective)
  std::string reason;   // a sentence saying why
};

// TG_DIST_BACKEND; tg::Error naming the allowed values for anything else.
BackendMode ConfiguredBackendMode();

// Called by init() once MPI is up, on every rank (collective). Loads NCCL when the mode may use it and
// agrees on it across ranks. tg::Error, on every rank, when TG_DIST_BACKEND=nccl and NCCL does not load
// on some rank: it names the library, the reason, and the ways out.
BackendDecision ChooseWorldBackend();

// The device whose NCCL communicator this collective of |tensors| uses, or nullptr for MPI. |reduce|:
// an allreduce (the dtypes must have NCCL types). Collective in auto mode. tg::Error in nccl mode when
// the tensors cannot go over NCCL (sharded, on several devices, a plugin without tg.native_handles).
runtime::Device* NcclDeviceFor(const std::vector<Tensor>& tensors, bool reduce, const char* op);

}  // namespace tg::dist::internal

#endif  // TG_FRONTEND_DIST_BACKEND_CHOICE_H_
