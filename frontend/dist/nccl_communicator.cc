#include "frontend/dist/nccl_communicator.h"

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <thread>

#include "absl/status/status.h"
#include "frontend/dist/collectives.h"
#include "frontend/dist/mpi_wait.h"
#include "frontend/dist/world.h"
#include "ir/error.h"
#include "runtime/native_handles.h"

namespace tg::dist::internal {
namespace {

NcclCommunicator*& Instance() {
  static NcclCommunicator* instance = nullptr;  // never deleted: the comm is destroyed at exit instead
  return instance;
}

std::string OnRank() { return " on rank " + std::to_string(rank()) + " of " + std::to_string(world_size()); }

void DestroyAtExit() {
  NcclCommunicator* c = Instance();
  // Collectives are done by now; a comm whose collective was abandoned was aborted already.
  if (c != nullptr && c->comm() != nullptr) c->library().api().comm_destroy(c->comm());
}

// The outcome of one stream_sync that runs on a helper thread, so the caller can stop waiting.
struct SyncResult {
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  absl::Status status;
};

}  // namespace

NcclCommunicator::NcclCommunicator(runtime::Device& device, const NcclLibrary& library)
    : device_(device), library_(library) {}

std::string NcclCommunicator::DeviceName() { return Instance() != nullptr ? Instance()->device_.name() : ""; }

NcclCommunicator& NcclCommunicator::For(runtime::Device& device) {
  if (NcclCommunicator* c = Instance()) {
    if (&c->device_ != &device)
      throw Error("tg::dist: the NCCL communicator of rank " + std::to_string(rank()) + " serves device " +
                  c->device_.name() + ", but these tensors are on " + device.name() +
                  "; NCCL collectives need every tensor on the one device per rank (move them with .to(\"" +
                  c->device_.name() + "\"))");
    if (c->aborted_)
      throw Error("tg::dist: the NCCL communicator" + OnRank() + " was aborted after an earlier failure");
    return *c;
  }
  const NcclLibrary& library = NcclLibrary::Process();
  if (!library.available()) throw Error("tg::dist: NCCL is unavailable" + OnRank() + ": " + library.reason());
  auto* c = new NcclCommunicator(device, library);
  // NCCL binds a communicator to the device current on the calling thread.
  if (absl::Status s = runtime::BindThreadTo(device); !s.ok())
    throw Error("tg::dist: binding this thread to " + device.name() + " for NCCL failed: " + std::string(s.message()));
  NcclUniqueId id{};
  if (rank() == 0) c->Check(library.api().get_unique_id(&id), "ncclGetUniqueId");
  broadcast_host(&id, sizeof id, 0);
  c->Check(library.api().comm_init_rank(&c->comm_, world_size(), id, rank()), "ncclCommInitRank");
  Instance() = c;
  std::atexit(DestroyAtExit);  // after init()'s MPI_Finalize handler, so it runs before it
  return *c;
}

void NcclCommunicator::Check(NcclResult rc, const std::string& call) const {
  if (rc == kNcclSuccess) return;
  throw Error("tg::dist: " + call + " failed" + OnRank() + ": " + library_.ErrorString(rc) + " (NCCL " +
              library_.version_string() + ", " + library_.path() + ")");
}

void NcclCommunicator::Abort() {
  if (aborted_) return;
  aborted_ = true;
  if (library_.api().comm_abort != nullptr) library_.api().comm_abort(comm_);
  comm_ = nullptr;  // aborted: never destroyed again
}

void NcclCommunicator::WaitForDevice(const std::string& what) {
  auto result = std::make_shared<SyncResult>();
  runtime::Device* device = &device_;  // registry devices live until exit, so the thread may outlive us
  std::thread([result, device] {
    absl::Status status = device->Synchronize();
    std::lock_guard<std::mutex> lock(result->mu);
    result->status = status;
    result->done = true;
    result->cv.notify_all();
  }).detach();
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::duration<double>(CollectiveTimeoutSeconds());
  std::unique_lock<std::mutex> lock(result->mu);
  while (!result->done) {
    // Wake up now and then to ask NCCL whether a peer failed (the sync alone would wait forever).
    result->cv.wait_for(lock, std::chrono::milliseconds(100));
    if (result->done) break;
    NcclResult async_error = kNcclSuccess;
    if (library_.api().comm_get_async_error != nullptr && comm_ != nullptr)
      library_.api().comm_get_async_error(comm_, &async_error);
    if (async_error != kNcclSuccess) {
      lock.unlock();
      Abort();
      throw Error("tg::dist: " + what + OnRank() + " failed in NCCL: " + library_.ErrorString(async_error));
    }
    if (Clock::now() > deadline) {
      lock.unlock();
      Abort();
      throw Error("tg::dist: " + what + OnRank() + " got no answer from the other ranks within " +
                  std::to_string(static_cast<int>(CollectiveTimeoutSeconds())) +
                  " s (TG_DIST_TIMEOUT): a rank has died, hangs, or stopped calling the same collectives");
    }
  }
  if (!result->status.ok())
    throw Error("tg::dist: " + what + OnRank() + ": synchronizing " + device_.name() + " failed: " +
                std::string(result->status.message()));
}

}  // namespace tg::dist::internal
