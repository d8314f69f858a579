// tg::dist::DistributedSampler without MPI: the shards of world sizes 1-4 are disjoint, cover the epoch
// (or pad / drop as documented), agree between calls, and change with the epoch.
#include "frontend/dist/distributed_sampler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "ir/error.h"

namespace tg::dist {
namespace {

std::vector<int> TimesSeen(int64_t size, int world, int64_t epoch, bool drop_last) {
  std::vector<int> seen(size, 0);
  for (int r = 0; r < world; ++r) {
    DistributedSampler s(size, r, world, true, 1337, drop_last);
    s.set_epoch(epoch);
    std::vector<int64_t> mine = s.indices();
    EXPECT_EQ(static_cast<int64_t>(mine.size()), s.num_samples());
    for (int64_t i : mine) seen.at(i) += 1;
  }
  return seen;
}

TEST(DistributedSampler, ShardsAreDisjointAndCoverWhenTheSizeDivides) {
  for (int world : {1, 2, 3, 4})
    for (int64_t epoch : {0, 5}) {
      std::vector<int> seen = TimesSeen(12 * world, world, epoch, false);
      EXPECT_TRUE(std::all_of(seen.begin(), seen.end(), [](int n) { return n == 1; })) << world;
    }
}

TEST(DistributedSampler, PadsOrDropsWhenItDoesNot) {
  std::vector<int> padded = TimesSeen(10, 4, 0, false);  // 12 slots: two indices twice
  EXPECT_EQ(std::count(padded.begin(), padded.end(), 1), 8);
  EXPECT_EQ(std::count(padded.begin(), padded.end(), 2), 2);
  std::vector<int> dropped = TimesSeen(10, 4, 0, true);  // 8 slots: two indices unseen, none twice
  EXPECT_EQ(std::count(dropped.begin(), dropped.end(), 1), 8);
  EXPECT_EQ(std::count(dropped.begin(), dropped.end(), 0), 2);
}

TEST(DistributedSampler, SameSeedAndEpochSameShardOtherEpochAnotherOrder) {
  DistributedSampler a(100, 1, 2, true, 9), b(100, 1, 2, true, 9);
  EXPECT_EQ(a.indices(), b.indices());
  b.set_epoch(1);
  EXPECT_NE(a.indices(), b.indices());
  DistributedSampler ordered(6, 1, 2, /*shuffle=*/false);
  EXPECT_EQ(ordered.indices(), (std::vector<int64_t>{1, 3, 5}));
}

TEST(DistributedSampler, RefusesARankOutsideTheWorld) {
  EXPECT_THROW(DistributedSampler(10, 2, 2), Error);
  EXPECT_THROW(DistributedSampler(10, 0, 0), Error);
  EXPECT_THROW(DistributedSampler(-1, 0, 1), Error);
}

}  // namespace
}  // namespace tg::dist
