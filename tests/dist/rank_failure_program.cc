// A 2-rank program whose rank 1 fails on purpose, for rank_failure_test.sh:
//   rank_failure_program exit   rank 1 exits (code 3) between two allreduces, without MPI_Finalize
//   rank_failure_program hang   rank 1 stops calling collectives (sleeps); rank 0 must give up after
//                               TG_DIST_TIMEOUT seconds with a tg::Error, then abort the job
// Rank 0 keeps calling allreduce. What must happen: the job ends (never hangs) with a non-zero status and
// a message that says why.
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <vector>

#include "frontend/dist/dist.h"
#include "frontend/tg.h"

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "exit";
  try {
    const tg::dist::WorldInfo& world = tg::dist::init();
    std::vector<float> values(1024, 1.0f);
    for (int step = 0; step < 1000; ++step) {
      if (world.rank == 1 && step == 2) {
        if (std::strcmp(mode, "hang") == 0) {
          std::fprintf(stderr, "rank 1: stops answering at step 2 (sleeping)\n");
          sleep(120);
        }
        std::fprintf(stderr, "rank 1: exits with code 3 at step 2\n");
        std::fflush(stderr);
        _exit(3);
      }
      tg::dist::allreduce_host(values.data(), static_cast<int64_t>(values.size()), tg::dtypes::float32,
                               tg::dist::ReduceOp::kAverage);
      usleep(10000);
    }
    std::fprintf(stderr, "rank %d: finished 1000 steps: the failure was not noticed\n", world.rank);
    return 0;
  } catch (const tg::Error& e) {
    std::fprintf(stderr, "rank_failure_program: %s\n", e.what());
    tg::dist::abort(1);
  }
}
