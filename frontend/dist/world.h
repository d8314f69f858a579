// tg::dist's process group: which rank this process is among how many, from the MPI environment that
// `mpirun -np N` sets up (PyTorch's init_process_group / get_rank / get_world_size).
// A process not started by mpirun is a world of one rank and never touches MPI, so every program that
// uses tg::dist also runs as a plain single process.
#ifndef TG_FRONTEND_DIST_WORLD_H_
#define TG_FRONTEND_DIST_WORLD_H_

#include <string>

namespace tg::dist {

struct WorldInfo {
  int rank = 0;
  int size = 1;
  bool mpi = false;       // launched by mpirun: MPI is initialized and collectives go over it
  // Which transport collectives use (TG_DIST_BACKEND=auto|mpi|nccl, see backend_choice.h): "none" (one
  // rank), "MPI" (host memory), "NCCL" (device memory, forced), or "NCCL/MPI" (auto with NCCL loaded on
  // every rank: NCCL for tensors on one CUDA device per rank, MPI for the rest).
  std::string backend;
  std::string backend_reason;  // why, naming the NCCL library and what kept it out
};

// Initializes MPI when the process was launched by mpirun (OMPI_COMM_WORLD_SIZE, PMIX_RANK or PMI_RANK
// set), with errors returned rather than fatal so they become tg::Error, then chooses the backend
// (collective: every rank must call it). Idempotent; MPI is finalized at exit. tg::Error when MPI_Init
// fails, TG_DIST_BACKEND is not auto/mpi/nccl, or it is nccl and NCCL does not load on every rank.
const WorldInfo& init();
bool is_initialized();
int rank();        // init() first; 0 before
int world_size();  // init() first; 1 before
bool is_main_process();  // rank() == 0: the rank that prints and saves

// Waits until every rank reached this call (bounded by the collective timeout, see collectives.h).
void barrier();
// Ends every rank of the job now (MPI_Abort) with |code|; in a world of one rank, std::exit(code). Call
// it after reporting a tg::Error in a distributed program, so the other ranks stop instead of waiting.
[[noreturn]] void abort(int code);

}  // namespace tg::dist

#endif  // TG_FRONTEND_DIST_WORLD_H_
