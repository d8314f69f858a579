#include "frontend/dist/backend_choice.h"

#include <mpi.h>

#include <cstdio>
#include <string>

#include "absl/status/statusor.h"
#include "compiler/compiler.h"
#include "frontend/dist/mpi_wait.h"
#include "frontend/dist/nccl_communicator.h"
#include "frontend/dist/nccl_library.h"
#include "frontend/dist/nccl_types.h"
#include "frontend/dist/world.h"
#include "ir/env.h"
#include "ir/error.h"
#include "runtime/native_handles.h"

namespace tg::dist::internal {
namespace {

BackendMode& Mode() {
  static BackendMode mode = BackendMode::kMpi;
  return mode;
}
bool& NcclEverywhere() {  // NCCL loaded on every rank (agreed at init)
  static bool loaded = false;
  return loaded;
}

// Every rank's |flag|, gathered (bounded by the collective timeout).
std::vector<int> GatherFlags(int flag, const std::string& what) {
  std::vector<int> flags(world_size());
  MPI_Request request;
  CheckMpi(MPI_Iallgather(&flag, 1, MPI_INT, flags.data(), 1, MPI_INT, MPI_COMM_WORLD, &request), what);
  WaitWithin(request, what);
  return flags;
}

// "1, 3": the ranks whose flag is 0.
std::string RanksWithout(const std::vector<int>& flags) {
  std::string ranks;
  for (size_t r = 0; r < flags.size(); ++r)
    if (!flags[r]) ranks += (ranks.empty() ? "" : ", ") + std::to_string(r);
  return ranks;
}

std::string HowToGetNccl(const std::string& path) {
  return "install NVIDIA's libnccl2 (it provides libnccl.so.2), set TG_NCCL_LIBRARY to a libnccl.so.2 (now \"" +
         path + "\"), or use TG_DIST_BACKEND=mpi (or auto, which falls back to MPI)";
}

// Why this rank cannot run a collective of |tensors| over NCCL ("" when it can); the device in |out|.
// |need_cuda|: auto mode, where only CUDA memory is worth it.
std::string LocalObstacle(const std::vector<Tensor>& tensors, bool reduce, bool need_cuda, runtime::Device** out) {
  *out = nullptr;
  if (tensors.empty()) return "no tensors";
  const std::string& device = tensors[0].device();
  for (const Tensor& t : tensors) {
    if (t.devices().size() != 1) return "a tensor is sharded over " + t.device() + " (NCCL needs one device per rank)";
    if (t.device() != device) return "the tensors are on " + device + " and " + t.device() + " (NCCL needs one device)";
    if (reduce && !NcclTypeOf(t.dtype())) return "dtype " + t.dtype().name() + " has no NCCL type";
  }
  runtime::Device& dev = compiler::DeviceNamed(device);
  absl::StatusOr<runtime::NativeDevice> native = runtime::NativeDeviceOf(dev);
  if (!native.ok()) return std::string(native.status().message());
  if (need_cuda && native->memory_kind != "cuda")
    return "device " + device + " holds " + native->memory_kind + " memory, not CUDA memory";
  std::string comm_device = NcclCommunicator::DeviceName();
  if (!comm_device.empty() && comm_device != dev.name())
    return "the NCCL communicator serves " + comm_device + ", the tensors are on " + dev.name();
  *out = &dev;
  return "";
}

void Report(const char* op, bool nccl, const std::string& why) {
  static int last = -1;  // print when the choice changes (DEBUG>=1) or on every call (DEBUG>=3)
  if (DebugLevel() >= 3 || (DebugLevel() >= 1 && last != static_cast<int>(nccl)))
    std::fprintf(stderr, "tg::dist: rank %d: %s over %s: %s\n", rank(), op, nccl ? "NCCL" : "MPI", why.c_str());
  last = nccl;
}

}  // namespace

BackendMode ConfiguredBackendMode() {
  std::string v = GetEnvString("TG_DIST_BACKEND", "auto");
  if (v == "auto" || v.empty()) return BackendMode::kAuto;
  if (v == "mpi" || v == "MPI") return BackendMode::kMpi;
  if (v == "nccl" || v == "NCCL") return BackendMode::kNccl;
  throw Error("TG_DIST_BACKEND=" + v + " is not a tg::dist backend; allowed: auto (default), mpi, nccl");
}

BackendDecision ChooseWorldBackend() {
  BackendMode mode = Mode() = ConfiguredBackendMode();
  if (mode == BackendMode::kMpi) return {"MPI", "TG_DIST_BACKEND=mpi: every collective goes through host memory"};
  const NcclLibrary& nccl = NcclLibrary::Process();
  std::vector<int> loaded = GatherFlags(nccl.available() ? 1 : 0, "choosing the backend (NCCL on every rank?)");
  std::string missing = RanksWithout(loaded);
  NcclEverywhere() = missing.empty();
  std::string here = nccl.available() ? "" : " (here: " + nccl.reason() + ")";
  if (mode == BackendMode::kNccl) {
    if (!missing.empty())
      throw Error("tg::dist: TG_DIST_BACKEND=nccl, but NCCL (" + nccl.path() + ") is unavailable on rank(s) " +
                  missing + here + "; " + HowToGetNccl(nccl.path()));
    return {"NCCL", "TG_DIST_BACKEND=nccl: every collective runs NCCL " + nccl.version_string() + " (" + nccl.path() +
                        ") on the tensors' device memory"};
  }
  if (!missing.empty())
    return {"MPI", "auto: NCCL (" + nccl.path() + ") is unavailable on rank(s) " + missing + here +
                       ", so every collective goes through host memory over MPI"};
  return {"NCCL/MPI", "auto: NCCL " + nccl.version_string() + " (" + nccl.path() +
                          ") loads on every rank: collectives of tensors on one CUDA device per rank use it, "
                          "the others MPI"};
}

runtime::Device* NcclDeviceFor(const std::vector<Tensor>& tensors, bool reduce, const char* op) {
  if (world_size() == 1 || tensors.empty() || Mode() == BackendMode::kMpi || !NcclEverywhere()) return nullptr;
  runtime::Device* device = nullptr;
  if (Mode() == BackendMode::kNccl) {
    std::string obstacle = LocalObstacle(tensors, reduce, /*need_cuda=*/false, &device);
    if (!obstacle.empty())
      throw Error(std::string("tg::dist::") + op + ": TG_DIST_BACKEND=nccl, but on rank " + std::to_string(rank()) +
                  " " + obstacle + "; use TG_DIST_BACKEND=auto or mpi to send such tensors over MPI");
    Report(op, true, "TG_DIST_BACKEND=nccl");
    return device;
  }
  std::string obstacle = LocalObstacle(tensors, reduce, /*need_cuda=*/true, &device);
  std::vector<int> able = GatherFlags(obstacle.empty() ? 1 : 0, std::string(op) + ": choosing NCCL or MPI");
  std::string unable = RanksWithout(able);
  if (unable.empty()) {
    Report(op, true, "auto: every rank's tensors are on one CUDA device");
    return device;
  }
  Report(op, false, "auto: not on rank(s) " + unable + (obstacle.empty() ? "" : " (here: " + obstacle + ")"));
  return nullptr;
}

}  // namespace tg::dist::internal
