// Internal to //frontend/dist: finishing a non-blocking MPI request within a deadline, and MPI error
// codes as tg::Error. Why non-blocking: a blocking MPI_Allreduce waits forever for a rank that hangs;
// polling MPI_Test lets the waiting ranks give up with a clear tg::Error (TG_DIST_TIMEOUT).
#ifndef TG_FRONTEND_DIST_MPI_WAIT_H_
#define TG_FRONTEND_DIST_MPI_WAIT_H_

#include <mpi.h>

#include <string>

namespace tg::dist::internal {

// Seconds a collective may wait for the other ranks: TG_DIST_TIMEOUT, default 300.
double CollectiveTimeoutSeconds();
// tg::Error "<what>: <MPI's message>" unless |rc| is MPI_SUCCESS.
void CheckMpi(int rc, const std::string& what);
// Polls |request| until it completes: spins briefly, yields for up to a second, then sleeps with backoff,
// so a rank that waits long (for rank 0's evaluation) leaves the cores to the ranks that compute.
// tg::Error naming |what|, this rank and the timeout when it does not complete in time.
void WaitWithin(MPI_Request& request, const std::string& what);

}  // namespace tg::dist::internal

#endif  // TG_FRONTEND_DIST_MPI_WAIT_H_
