#include "frontend/dist/world.h"

#include <mpi.h>

#include <cstdio>
#include <cstdlib>

#include "frontend/dist/backend_choice.h"
#include "frontend/dist/mpi_wait.h"
#include "ir/env.h"
#include "ir/error.h"

namespace tg::dist {
namespace {

WorldInfo& World() {
  static WorldInfo world;
  return world;
}
bool& Initialized() {
  static bool initialized = false;
  return initialized;
}

// mpirun (OpenMPI's ORTE or PMIx, MPICH's Hydra) sets these for each rank it starts.
bool LaunchedByMpirun() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK"})
    if (std::getenv(name) != nullptr) return true;
  return false;
}

void FinalizeAtExit() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}

}  // namespace

const WorldInfo& init() {
  WorldInfo& world = World();
  if (Initialized()) return world;
  if (LaunchedByMpirun()) {
    int already = 0;
    MPI_Initialized(&already);
    if (!already) {
      int provided = 0;
      // Host-side collectives are called from one thread at a time (the training loop).
      if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
        throw Error("tg::dist::init: MPI_Init failed (is this process started by a matching mpirun?)");
      std::atexit(FinalizeAtExit);
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &world.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world.size);
    world.mpi = true;
    internal::BackendDecision backend = internal::ChooseWorldBackend();
    world.backend = backend.backend;
    world.backend_reason = backend.reason;
  } else {
    internal::ConfiguredBackendMode();  // a misspelt TG_DIST_BACKEND is an error on one rank too
    world = WorldInfo{0, 1, false, "none", "one rank, not launched by mpirun: collectives change nothing"};
  }
  Initialized() = true;
  if (DebugLevel() >= 1)
    std::fprintf(stderr, "tg::dist: rank %d of %d, collectives: %s (%s)\n", world.rank, world.size,
                 world.backend.c_str(), world.backend_reason.c_str());
  return world;
}

bool is_initialized() { return Initialized(); }
int rank() { return World().rank; }
int world_size() { return World().size; }
bool is_main_process() { return rank() == 0; }

void barrier() {
  if (!World().mpi) return;
  MPI_Request request;
  internal::CheckMpi(MPI_Ibarrier(MPI_COMM_WORLD, &request), "barrier");
  internal::WaitWithin(request, "barrier");
}

void abort(int code) {
  std::fflush(stdout);
  std::fflush(stderr);
  if (World().mpi) MPI_Abort(MPI_COMM_WORLD, code);
  std::exit(code);
}

}  // namespace tg::dist
