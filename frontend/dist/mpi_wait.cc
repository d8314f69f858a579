#include "frontend/dist/mpi_wait.h"

#include <sched.h>

#include <chrono>
#include <cstdio>
#include <thread>

#include "frontend/dist/world.h"
#include "ir/env.h"
#include "ir/error.h"

namespace tg::dist::internal {

double CollectiveTimeoutSeconds() {
  int64_t seconds = GetEnvInt("TG_DIST_TIMEOUT", 300);
  return seconds > 0 ? static_cast<double>(seconds) : 300.0;
}

void CheckMpi(int rc, const std::string& what) {
  if (rc == MPI_SUCCESS) return;
  char message[MPI_MAX_ERROR_STRING] = {0};
  int length = 0;
  MPI_Error_string(rc, message, &length);
  throw Error("tg::dist: " + what + " failed on rank " + std::to_string(rank()) + " of " +
              std::to_string(world_size()) + ": " + std::string(message, length));
}

void WaitWithin(MPI_Request& request, const std::string& what) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  const double timeout = CollectiveTimeoutSeconds();
  auto sleep = std::chrono::microseconds(20);
  for (int polls = 0;; ++polls) {
    int done = 0;
    CheckMpi(MPI_Test(&request, &done, MPI_STATUS_IGNORE), what);
    if (done) return;
    double waited = std::chrono::duration<double>(Clock::now() - start).count();
    if (waited > timeout)
      throw Error("tg::dist: " + what + " on rank " + std::to_string(rank()) + " of " + std::to_string(world_size()) +
                  " got no answer from the other ranks within " + std::to_string(static_cast<int>(timeout)) +
                  " s (TG_DIST_TIMEOUT): a rank has died, hangs, or stopped calling the same collectives");
    if (waited < 1e-4) continue;  // the common case: the peer is about to answer
    // MPI's non-blocking collectives progress only inside MPI_Test: a large message needs many polls, so
    // keep polling (yielding the core) for a second before backing off.
    if (waited < 1.0) {
      sched_yield();
      continue;
    }
    std::this_thread::sleep_for(sleep);  // a long wait (rank 0 evaluating): back off up to 1 ms per poll
    if (sleep < std::chrono::microseconds(1000)) sleep *= 2;
  }
}

}  // namespace tg::dist::internal
