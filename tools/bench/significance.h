// significance.h: the Mann-Whitney U test, which `tg bench --compare` uses to tell a real slowdown from
// the noise of a shared machine (as Google Benchmark's compare.py does). It compares two sets of
// repeated measurements without assuming they are normally distributed: timings on a loaded machine
// have long right tails, which would fool a t-test.
#ifndef TG_TOOLS_BENCH_SIGNIFICANCE_H_
#define TG_TOOLS_BENCH_SIGNIFICANCE_H_

#include <vector>

namespace tg::bench {

struct UTest {
  double u = 0;        // U of the first sample: how many (a, b) pairs have a > b (ties count one half)
  double p_value = 1;  // two-sided: how likely a split at least this uneven is when both come from one distribution
  bool exact = false;  // from the exact distribution of U (small samples without ties), else the normal approximation
};

// Throws tg::Error when either sample is empty.
UTest MannWhitneyU(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace tg::bench

#endif  // TG_TOOLS_BENCH_SIGNIFICANCE_H_
