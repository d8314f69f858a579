// tg::dist's process group: which rank this process is among how many, from the MPI environment that
// `mpirun -np N` sets up (issue 8 part 2; PyTorch's init_process_group / get_rank / get_world_size).
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
  std::string backend;    // "MPI" or "none" (one rank), as DEBUG lines and --help texts name it
};

// Initializes MPI when the process was launched by mpirun (OMPI_COMM_WORLD_SIZE, PMIX_RANK or PMI_RANK
// set), with errors returned rather than fatal so they become tg::Error. Idempotent; MPI is finalized at
// exit. tg::Error when MPI_Init fails.
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
