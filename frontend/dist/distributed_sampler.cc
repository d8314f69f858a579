#include "frontend/dist/distributed_sampler.h"

#include <numeric>
#include <random>
#include <string>
#include <utility>

#include "ir/error.h"

namespace tg::dist {

DistributedSampler::DistributedSampler(int64_t size, int rank, int world_size, bool shuffle, uint64_t seed,
                                       bool drop_last)
    : size_(size), rank_(rank), world_size_(world_size), shuffle_(shuffle), drop_last_(drop_last), seed_(seed) {
  if (world_size < 1 || rank < 0 || rank >= world_size)
    throw Error("DistributedSampler: rank " + std::to_string(rank) + " is not in [0, world_size=" +
                std::to_string(world_size) + "); world_size must be >= 1");
  if (size < 0) throw Error("DistributedSampler: dataset size must be >= 0, got " + std::to_string(size));
  num_samples_ = drop_last ? size / world_size : (size + world_size - 1) / world_size;
}

std::vector<int64_t> DistributedSampler::Permutation() const {
  std::vector<int64_t> order(size_);
  std::iota(order.begin(), order.end(), 0);
  if (!shuffle_) return order;
  // Fisher-Yates written out (not std::shuffle, whose algorithm the standard leaves open) so ranks built
  // by different compilers still agree.
  std::mt19937_64 rng(seed_ * 0x9E3779B97F4A7C15ull + static_cast<uint64_t>(epoch_));
  for (int64_t i = size_ - 1; i > 0; --i) std::swap(order[i], order[rng() % static_cast<uint64_t>(i + 1)]);
  return order;
}

std::vector<int64_t> DistributedSampler::indices() const {
  std::vector<int64_t> order = Permutation();
  int64_t total = num_samples_ * world_size_;
  for (int64_t i = 0; static_cast<int64_t>(order.size()) < total; ++i) order.push_back(order[i % size_]);  // pad
  std::vector<int64_t> mine;
  mine.reserve(num_samples_);
  for (int64_t i = rank_; i < total; i += world_size_) mine.push_back(order[i]);
  return mine;
}

}  // namespace tg::dist
