// Internal to //frontend/dist: the process's NCCL communicator over init()'s world, bound to the one
// device whose buffers it reduces. Created lazily by the first NCCL collective (rank 0's unique id
// reaches the others by MPI broadcast), destroyed at exit before MPI is finalized.
#ifndef TG_FRONTEND_DIST_NCCL_COMMUNICATOR_H_
#define TG_FRONTEND_DIST_NCCL_COMMUNICATOR_H_

#include <string>

#include "frontend/dist/nccl_library.h"
#include "runtime/device.h"

namespace tg::dist::internal {

class NcclCommunicator {
 public:
  // The communicator for |device|. The first call is collective: every rank must make it (all NCCL
  // collectives do, in the same order). tg::Error when NCCL is unavailable, when ncclCommInitRank
  // fails, or when the communicator already serves another device (one device per rank).
  static NcclCommunicator& For(runtime::Device& device);
  // The device of the existing communicator, or "" before the first NCCL collective.
  static std::string DeviceName();

  NcclComm comm() const { return comm_; }
  runtime::Device& device() const { return device_; }
  const NcclLibrary& library() const { return library_; }

  // tg::Error "tg::dist: <call> failed on rank r of n: <ncclGetErrorString>" unless |rc| is success.
  void Check(NcclResult rc, const std::string& call) const;
  // Waits for the device's queued work (the collective just enqueued) through the plugin's stream_sync,
  // within TG_DIST_TIMEOUT seconds. On a timeout or an asynchronous NCCL error the communicator is
  // aborted (when the library has ncclCommAbort) and a tg::Error names |what|.
  void WaitForDevice(const std::string& what);

 private:
  NcclCommunicator(runtime::Device& device, const NcclLibrary& library);
  void Abort();

  runtime::Device& device_;
  const NcclLibrary& library_;
  NcclComm comm_ = nullptr;
  bool aborted_ = false;
};

}  // namespace tg::dist::internal

#endif  // TG_FRONTEND_DIST_NCCL_COMMUNICATOR_H_
