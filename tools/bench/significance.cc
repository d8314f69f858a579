#include "tools/bench/significance.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <utility>

#include "ir/error.h"

namespace tg::bench {
namespace {

// Up to this many values per side, and without ties, p comes from U's exact distribution; beyond it
// the normal approximation is within a fraction of a percent.
constexpr size_t kExactLimit = 30;

struct Ranked {
  double rank_sum_a = 0;
  double tie_term = 0;  // sum over groups of tied values of t^3 - t
};

// Ranks of the pooled values, 1-based, tied values sharing the mean of their ranks.
Ranked RankPooled(const std::vector<double>& a, const std::vector<double>& b) {
  std::vector<std::pair<double, bool>> pooled;  // (value, from a)
  for (double v : a) pooled.push_back({v, true});
  for (double v : b) pooled.push_back({v, false});
  std::sort(pooled.begin(), pooled.end());
  Ranked r;
  for (size_t i = 0; i < pooled.size();) {
    size_t j = i;
    while (j < pooled.size() && pooled[j].first == pooled[i].first) ++j;
    double mean_rank = 0.5 * static_cast<double>(i + 1 + j);
    for (size_t k = i; k < j; ++k)
      if (pooled[k].second) r.rank_sum_a += mean_rank;
    double t = static_cast<double>(j - i);
    r.tie_term += t * t * t - t;
    i = j;
  }
  return r;
}

// P(U <= u) for samples of sizes m and n from one distribution: counts of arrangements by U, built
// one sample size at a time (f(m, n, u) = f(m - 1, n, u - n) + f(m, n - 1, u)).
double ExactLowerTail(size_t m, size_t n, double u) {
  size_t max_u = m * n;
  // ways[j][k]: arrangements of i values of a and j of b with U = k, for the current i.
  std::vector<std::vector<double>> ways(n + 1, std::vector<double>(max_u + 1, 0));
  for (size_t j = 0; j <= n; ++j) ways[j][0] = 1;  // i = 0: U is 0
  for (size_t i = 1; i <= m; ++i) {
    std::vector<std::vector<double>> next(n + 1, std::vector<double>(max_u + 1, 0));
    next[0][0] = 1;
    for (size_t j = 1; j <= n; ++j)
      for (size_t k = 0; k <= i * j; ++k)
        next[j][k] = next[j - 1][k] + (k >= j ? ways[j][k - j] : 0);
    ways = std::move(next);
  }
  const std::vector<double>& dist = ways[n];
  double total = std::accumulate(dist.begin(), dist.end(), 0.0), below = 0;
  for (size_t k = 0; k <= max_u && static_cast<double>(k) <= u + 1e-9; ++k) below += dist[k];
  return below / total;
}

}  // namespace

UTest MannWhitneyU(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.empty() || b.empty())
    throw Error("Mann-Whitney U test: both samples need at least one value (got " + std::to_string(a.size()) +
                " and " + std::to_string(b.size()) + ")");
  double m = static_cast<double>(a.size()), n = static_cast<double>(b.size());
  Ranked r = RankPooled(a, b);
  UTest t;
  t.u = r.rank_sum_a - m * (m + 1) / 2;
  double u_low = std::min(t.u, m * n - t.u);
  if (r.tie_term == 0 && a.size() <= kExactLimit && b.size() <= kExactLimit) {
    t.exact = true;
    t.p_value = std::min(1.0, 2 * ExactLowerTail(a.size(), b.size(), u_low));
    return t;
  }
  double total = m + n;
  double variance = m * n / 12 * ((total + 1) - r.tie_term / (total * (total - 1)));
  if (!(variance > 0)) return t;  // every value equal: nothing tells the samples apart
  double z = std::max(0.0, std::fabs(t.u - m * n / 2) - 0.5) / std::sqrt(variance);
  t.p_value = std::min(1.0, std::erfc(z / std::sqrt(2.0)));
  return t;
}

}  // namespace tg::bench
