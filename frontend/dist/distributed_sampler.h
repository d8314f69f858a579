// Which dataset indices each rank trains on, per epoch: PyTorch's DistributedSampler.
// Every rank draws the same permutation of [0, size) from (seed, epoch) and keeps every world_size-th
// entry starting at its rank, so the ranks' shards are disjoint and together cover the epoch.
#ifndef TG_FRONTEND_DIST_DISTRIBUTED_SAMPLER_H_
#define TG_FRONTEND_DIST_DISTRIBUTED_SAMPLER_H_

#include <cstdint>
#include <vector>

namespace tg::dist {

class DistributedSampler {
 public:
  // |rank| in [0, world_size). When |size| is not a multiple of |world_size|: with |drop_last| the tail of
  // the permutation is left out (shards disjoint, a few samples unseen this epoch); without it the
  // permutation is padded from its start so every rank gets as many (a few samples seen twice), as
  // PyTorch does. tg::Error on a bad rank, world size or dataset size.
  DistributedSampler(int64_t size, int rank, int world_size, bool shuffle = true, uint64_t seed = 0,
                     bool drop_last = false);
  // Call at the start of each epoch: the permutation depends on it (the same on every rank).
  void set_epoch(int64_t epoch) { epoch_ = epoch; }
  // This rank's indices for the current epoch, num_samples() of them.
  std::vector<int64_t> indices() const;
  int64_t num_samples() const { return num_samples_; }

 private:
  std::vector<int64_t> Permutation() const;

  int64_t size_, num_samples_;
  int rank_, world_size_;
  bool shuffle_, drop_last_;
  uint64_t seed_;
  int64_t epoch_ = 0;
};

}  // namespace tg::dist

#endif  // TG_FRONTEND_DIST_DISTRIBUTED_SAMPLER_H_
