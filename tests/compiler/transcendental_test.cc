// Transcendentals as polynomials (compiler/codegen/transcendental.h): exp2, log2 and sin computed by
// the rewritten kernels on the CPU against libm over wide ranges, special values (inf, nan, +-0) and
// denormals, in ulps as tinygrad's tests bound them; and the CPU path's choice: float32 vectors get
// the polynomials (no libm call left in gelu's source), scalars keep libm.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>

#include "compiler/codegen/codegen.h"
#include "compiler/schedule/schedule.h"
#include "frontend/tg.h"
#include "gtest/gtest.h"
#include "runtime/device_registry.h"

namespace tg::compiler {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

const runtime::DeviceInfo& Cpu() { return runtime::DeviceRegistry::Global().GetDevice("CPU").value()->info(); }

// TRANSCENDENTAL=2 for one scope: every EXP2/LOG2/SIN becomes a polynomial.
class ForcePolynomials {
 public:
  ForcePolynomials() { setenv("TRANSCENDENTAL", "2", 1); }
  ~ForcePolynomials() { unsetenv("TRANSCENDENTAL"); }
};

enum class Fn { kExp2, kLog2, kSin };

Tensor Apply(Fn fn, const Tensor& t) {
  return fn == Fn::kExp2 ? t.exp2() : fn == Fn::kLog2 ? t.log2() : t.sin();
}
double Reference(Fn fn, double x) {
  return fn == Fn::kExp2 ? std::exp2(x) : fn == Fn::kLog2 ? std::log2(x) : std::sin(x);
}

// Distance in representable values (monotonic integer order of the bit patterns).
template <class F, class I>
int64_t UlpDistance(F a, F b) {
  auto key = [](F v) {
    I bits;
    std::memcpy(&bits, &v, sizeof(v));
    return bits < 0 ? std::numeric_limits<I>::min() - bits : bits;
  };
  __int128 d = static_cast<__int128>(key(a)) - key(b);
  return static_cast<int64_t>(d < 0 ? -d : d);
}

// Inputs spanning the type: specials, +-0, denormals, log-spaced magnitudes of both signs, and a
// dense uniform band [lo, hi].
template <class F>
std::vector<F> Inputs(double lo, double hi, uint32_t seed) {
  std::vector<F> v = {F(0), F(-0.0), F(kInf), F(-kInf), F(kNan), F(1), F(-1), F(0.5), F(2), F(3.14159265358979),
                      std::numeric_limits<F>::denorm_min(), -std::numeric_limits<F>::denorm_min(),
                      std::numeric_limits<F>::min(), std::numeric_limits<F>::max(), -std::numeric_limits<F>::max()};
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> unit(0, 1);
  int min_exp = std::numeric_limits<F>::min_exponent - std::numeric_limits<F>::digits;
  int max_exp = std::numeric_limits<F>::max_exponent;
  for (int i = 0; i < 1500; ++i) {
    double mag = std::ldexp(1.0 + unit(rng), min_exp + static_cast<int>(unit(rng) * (max_exp - min_exp - 1)));
    v.push_back(F(i % 2 ? -mag : mag));
  }
  for (int i = 0; i < 2500; ++i) v.push_back(F(lo + (hi - lo) * unit(rng)));
  return v;
}

template <class F>
std::vector<F> Evaluate(Fn fn, const std::vector<F>& in) {
  return Apply(fn, Tensor::from_vector(in)).template to_vector<F>();
}

// |got| against the correctly rounded |want| for input |x|: nan where libm says nan, exact
// infinities and zeros, |max_ulp| elsewhere; results below the normal range (the polynomial's
// scaling rounds twice there) within |max_ulp| of the smallest normal's ulp.
template <class F, class I>
void ExpectUlps(Fn fn, F x, F got, int64_t max_ulp, double sin_abs_tol = 0) {
  F want = static_cast<F>(Reference(fn, static_cast<double>(x)));
  std::string where = "f(" + std::to_string(static_cast<double>(x)) + "): got " + std::to_string(got) + " want " +
                      std::to_string(want);
  if (std::isnan(want)) {
    EXPECT_TRUE(std::isnan(got)) << where;
  } else if (fn == Fn::kSin) {
    EXPECT_NEAR(got, want, sin_abs_tol + 1e-5 * std::abs(want)) << where;
  } else if (std::isinf(want) || want == 0) {
    EXPECT_EQ(got, want) << where;
  } else if (std::abs(want) < std::numeric_limits<F>::min()) {
    EXPECT_LE(std::abs(got - want), max_ulp * std::numeric_limits<F>::denorm_min() * 2) << where;
  } else {
    EXPECT_LE((UlpDistance<F, I>(got, want)), max_ulp) << where;
  }
}

TEST(Transcendental, Float32MatchesLibmWithinTwoUlps) {
  ForcePolynomials force;
  for (Fn fn : {Fn::kExp2, Fn::kLog2}) {
    std::vector<float> in = fn == Fn::kExp2 ? Inputs<float>(-160, 140, 1) : Inputs<float>(0, 1e6, 2);
    std::vector<float> out = Evaluate(fn, in);
    for (size_t i = 0; i < in.size(); ++i) ExpectUlps<float, int32_t>(fn, in[i], out[i], 2);
  }
}

TEST(Transcendental, Float32SinMatchesLibmAcrossReductions) {
  ForcePolynomials force;
  // Cody-Waite below 30, Payne-Hanek above, up to the largest float (tinygrad's bound: 2e-5 + 1e-5 rel).
  std::vector<float> in = Inputs<float>(-200, 200, 3);
  std::vector<float> out = Evaluate(Fn::kSin, in);
  for (size_t i = 0; i < in.size(); ++i) ExpectUlps<float, int32_t>(Fn::kSin, in[i], out[i], 0, 2e-5);
}

TEST(Transcendental, Float64MatchesLibm) {
  ForcePolynomials force;
  for (Fn fn : {Fn::kExp2, Fn::kLog2}) {
    std::vector<double> in = fn == Fn::kExp2 ? Inputs<double>(-1100, 1030, 4) : Inputs<double>(0, 1e12, 5);
    std::vector<double> out = Evaluate(fn, in);
    for (size_t i = 0; i < in.size(); ++i) ExpectUlps<double, int64_t>(fn, in[i], out[i], 2);
  }
  // sin: Cody-Waite (|x| < 30) is accurate to 1e-15; Payne-Hanek's 190 bits of 2/pi are a float32
  // table, so far from 0 float64 keeps only tinygrad's bound (3e-2 absolute, |x| <= 1e8).
  std::vector<double> in = Inputs<double>(-30, 30, 6);
  std::erase_if(in, [](double x) { return std::abs(x) > 1e8; });
  std::vector<double> out = Evaluate(Fn::kSin, in);
  for (size_t i = 0; i < in.size(); ++i)
    ExpectUlps<double, int64_t>(Fn::kSin, in[i], out[i], 0, std::abs(in[i]) < 30 ? 1e-15 : 3e-2);
}

TEST(Transcendental, Float16ComputesThroughFloat32) {
  ForcePolynomials force;
  std::vector<float> in = {-20, -3.5f, -1, -0.25f, 0, 0.001f, 0.5f, 1, 2.5f, 7, 15.9f, 100, 60000};
  for (Fn fn : {Fn::kExp2, Fn::kLog2, Fn::kSin}) {
    std::vector<float> got = Apply(fn, Tensor::from_vector(in).half()).float_().to_vector<float>();
    std::vector<float> halves = Tensor::from_vector(in).half().float_().to_vector<float>();
    for (size_t i = 0; i < in.size(); ++i) {
      double want = Reference(fn, halves[i]);
      if (std::isnan(want)) { EXPECT_TRUE(std::isnan(got[i])) << in[i]; continue; }
      if (std::abs(want) > 65504) { EXPECT_TRUE(std::isinf(got[i])) << in[i]; continue; }
      EXPECT_NEAR(got[i], want, 1e-2 + 5e-3 * std::abs(want)) << static_cast<int>(fn) << " at " << in[i];
    }
  }
}

TEST(Transcendental, ForcedKernelsCallNoLibm) {
  ForcePolynomials force;
  Tensor x = Tensor::rand({24}, dtypes::float32);
  for (Fn fn : {Fn::kExp2, Fn::kLog2, Fn::kSin}) {
    Schedule s = CreateSchedule({Apply(fn, x).uop()}, {x.device()});
    std::string src = GenerateKernel(s.items.back().ast, Cpu()).source.source;
    for (const char* call : {"exp2f(", "log2f(", "sinf("}) EXPECT_EQ(src.find(call), std::string::npos) << src;
  }
}

// The default on the CPU: W2's gelu(x*a+b) is one vector kernel (tanh = 2*sigmoid(2x)-1 goes
// through exp2) with no libm call; a scalar exp2 keeps libm.
TEST(Transcendental, CpuVectorsUsePolynomialsScalarsKeepLibm) {
  std::vector<float> xs(64 * 64);
  for (size_t i = 0; i < xs.size(); ++i) xs[i] = -8.0f + 16.0f * static_cast<float>(i) / xs.size();
  Tensor x = Tensor::from_vector(xs, Shape{64, 64});
  Tensor a = Tensor::full({64}, 0.75f), b = Tensor::full({64}, 0.125f);
  Tensor y = (x * a + b).gelu("tanh");
  Schedule s = CreateSchedule({y.uop()}, {y.device()});
  std::string src = GenerateKernel(s.items.back().ast, Cpu()).source.source;
  EXPECT_NE(src.find("vector_size"), std::string::npos) << src;
  EXPECT_EQ(src.find("exp2f("), std::string::npos) << src;
  std::vector<float> got = y.to_vector<float>();
  for (size_t i = 0; i < xs.size(); ++i) {
    double v = xs[i] * 0.75 + 0.125;
    double want = 0.5 * v * (1 + std::tanh(std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v)));
    ASSERT_NEAR(got[i], want, 1e-5 * std::max(1.0, std::abs(want))) << i;
  }

  Tensor scalar = Tensor::from_vector(std::vector<float>{1.5f}).exp2();
  Schedule one = CreateSchedule({scalar.uop()}, {scalar.device()});
  EXPECT_NE(GenerateKernel(one.items.back().ast, Cpu()).source.source.find("exp2f("), std::string::npos);
}

}  // namespace
}  // namespace tg::compiler
