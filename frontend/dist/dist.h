// tg::dist: data-parallel training over MPI. One include for the whole library:
//   world.h                  init(), rank(), world_size(), barrier(), abort()
//   collectives.h            allreduce / broadcast of tensors and host buffers, check_replicas
//   distributed_sampler.h    each rank's shard of the dataset indices per epoch
//   distributed_optimizer.h  averages gradients over the ranks before an optimizer's step
// Run a program that uses it with `mpirun -np N prog`; started alone it is a world of one rank.
#ifndef TG_FRONTEND_DIST_DIST_H_
#define TG_FRONTEND_DIST_DIST_H_

#include "frontend/dist/collectives.h"
#include "frontend/dist/distributed_optimizer.h"
#include "frontend/dist/distributed_sampler.h"
#include "frontend/dist/world.h"

#endif  // TG_FRONTEND_DIST_DIST_H_
