// Helpers shared by the front-end tests: deterministic random data and Eigen views of it.
#ifndef TG_TESTS_FRONTEND_TEST_UTIL_H_
#define TG_TESTS_FRONTEND_TEST_UTIL_H_

#include <random>
#include <vector>

#include <unsupported/Eigen/CXX11/Tensor>

#include "frontend/tg.h"
#include "gtest/gtest.h"

namespace tg::testing {

inline std::vector<float> RandomFloats(size_t n, uint32_t seed, float lo = -2.0f, float hi = 2.0f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

// A row-major Eigen tensor over a copy of |data|.
template <int Rank>
Eigen::Tensor<float, Rank, Eigen::RowMajor> ToEigen(const std::vector<float>& data,
                                                   const std::array<Eigen::Index, Rank>& dims) {
  Eigen::Tensor<float, Rank, Eigen::RowMajor> t(dims);
  std::copy(data.begin(), data.end(), t.data());
  return t;
}

template <class EigenTensor>
std::vector<float> FromEigen(const EigenTensor& t) {
  return std::vector<float>(t.data(), t.data() + t.size());
}

inline void ExpectAllNear(const std::vector<float>& got, const std::vector<float>& want, float tol = 1e-5f) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i)
    ASSERT_NEAR(got[i], want[i], tol * std::max(1.0f, std::abs(want[i]))) << "at flat index " << i;
}

}  // namespace tg::testing

#endif  // TG_TESTS_FRONTEND_TEST_UTIL_H_
