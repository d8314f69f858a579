#include "tests/fuzz/program_generator.h"

#include <algorithm>
#include <cmath>
#include <random>

#include "tests/fuzz/reference_eval.h"

namespace tg::fuzz {
namespace {

// Builds a program step by step, evaluating the reference as it goes, so every choice (log of what,
// exp of what, rescale when) is made on the actual values rather than on loose interval bounds.
class Generator {
 public:
  Generator(uint64_t seed, const GeneratorOptions& o) : rng_(seed), opt_(o) { program_.seed = seed; }

  Program Run() {
    Input(RandomDims());
    int ops = 1 + Below(opt_.max_steps);
    for (int i = 0; i < ops; ++i) Action(Pick());
    program_.outputs = {Last()};
    if (Chance(30) && Last() > 0) {
      int extra = Below(Last());
      if (program_.steps[extra].kind != StepKind::kInput) program_.outputs.insert(program_.outputs.begin(), extra);
    }
    return program_;
  }

 private:
  // ---- randomness (integer-only, so seeds reproduce across standard libraries) ----
  int Below(int n) { return n <= 1 ? 0 : static_cast<int>(rng_() % static_cast<uint64_t>(n)); }
  bool Chance(int percent) { return Below(100) < percent; }
  void Shuffle(std::vector<int64_t>& v) {  // Fisher-Yates; std::shuffle's draws differ between libraries
    for (int i = static_cast<int>(v.size()) - 1; i > 0; --i) std::swap(v[i], v[Below(i + 1)]);
  }
  int64_t Size() {
    static const int64_t kSizes[] = {1, 1, 1, 2, 2, 3, 3, 4, 5, 7, 8};
    return kSizes[Below(sizeof kSizes / sizeof kSizes[0])];
  }
  Dims RandomDims() {
    for (;;) {
      Dims d(Below(opt_.max_rank + 1));
      for (int64_t& x : d) x = Size();
      if (Numel(d) <= opt_.max_numel) return d;
    }
  }

  // ---- bookkeeping ----
  int Last() const { return static_cast<int>(program_.steps.size()) - 1; }
  const RefArray& Val(int i) const { return vals_[i]; }
  int Add(Step s) {
    vals_.push_back(EvalStep(s, vals_, /*check_dims=*/false));
    s.dims = vals_.back().dims;
    program_.steps.push_back(std::move(s));
    return Last();
  }
  int Add(StepKind kind, std::vector<int> src, Dims dims, int op = 0) {
    Step s;
    s.kind = kind;
    s.src = std::move(src);
    s.dims = std::move(dims);
    s.op = op;
    return Add(std::move(s));
  }
  int Input(const Dims& dims) {
    Step s;
    s.kind = StepKind::kInput;
    s.dims = dims;
    // Multiples of 1/64 in [-2, 2]: exact in float32, and equal values appear often enough for eq/ne/max ties.
    for (int64_t i = 0; i < Numel(dims); ++i) s.data.push_back(static_cast<float>(Below(257) - 128) / 64.0f);
    return Add(std::move(s));
  }
  int ConstOp(int src, BinaryOp op, double c) {
    Step s;
    s.kind = StepKind::kConstBinary;
    s.src = {src};
    s.op = static_cast<int>(op);
    s.constant = c;
    s.dims = Val(src).dims;
    return Add(std::move(s));
  }
  // The current value: usually the newest step, sometimes an older one, so programs branch and rejoin.
  int Pick() { return Chance(75) ? Last() : Below(Last() + 1); }

  // ---- domain guards: keep every value finite and well inside each op's domain ----
  double MaxAbs(int i) const {
    double m = 0;
    for (double v : Val(i).value) m = std::max(m, std::abs(v));
    return m;
  }
  double MinLow(int i, bool absolute) const {  // smallest (v - err) or (|v| - err)
    double m = 1e300;
    for (size_t k = 0; k < Val(i).value.size(); ++k)
      m = std::min(m, (absolute ? std::abs(Val(i).value[k]) : Val(i).value[k]) - Val(i).err[k]);
    return m;
  }
  // Scales by a power of two (exact in float32) so that max |v| <= limit.
  int Tame(int i, double limit) {
    double m = MaxAbs(i);
    if (m <= limit) return i;
    return ConstOp(i, BinaryOp::kMul, std::ldexp(1.0, -static_cast<int>(std::ceil(std::log2(m / limit)))));
  }
  // x*x + 0.5 >= 0.5: the argument log, sqrt, reciprocal and div need.
  int Positive(int i, bool absolute) {
    if (MinLow(i, absolute) >= 0.25) return i;
    i = Tame(i, 4);
    return ConstOp(Add(StepKind::kUnary, {i}, Val(i).dims, static_cast<int>(UnaryOp::kSquare)), BinaryOp::kAdd, 0.5);
  }

  void Action(int cur) {
    int r = Below(100);
    if (r < 18) Unary(cur);
    else if (r < 36) BinaryWith(cur);
    else if (r < 44) ConstBinary(cur);
    else if (r < 52) WhereOrCompare(cur);
    else if (r < 76) Movement(cur);
    else if (r < 88) Reduce(cur);
    else if (r < 96) Matmul(cur);
    else Add(StepKind::kContiguous, {cur}, Val(cur).dims);
    Tame(Last(), 64);
  }

  void Unary(int cur) {
    auto op = static_cast<UnaryOp>(Below(8));
    if (op == UnaryOp::kLog || op == UnaryOp::kSqrt) cur = Positive(cur, false);
    if (op == UnaryOp::kReciprocal) cur = Positive(cur, true);
    if (op == UnaryOp::kExp || op == UnaryOp::kSin || op == UnaryOp::kSquare) cur = Tame(cur, 4);
    Add(StepKind::kUnary, {cur}, Val(cur).dims, static_cast<int>(op));
  }

  void ConstBinary(int cur) {
    auto op = static_cast<BinaryOp>(Below(5));
    double c = (Below(17) - 8) / 4.0;  // quarters: exact in float32
    if (op == BinaryOp::kDiv && c == 0) c = 0.75;
    ConstOp(cur, op, c);
  }

  // A partner that broadcasts with |cur|: an earlier step if one fits, else a new input.
  int Partner(int cur) {
    const Dims& d = Val(cur).dims;
    Dims out;
    if (Chance(40)) {
      int cand = Below(Last() + 1);
      if (BroadcastDims(d, Val(cand).dims, &out) && Numel(out) <= opt_.max_numel) return cand;
    }
    Dims p = d;
    for (int64_t& x : p) {
      if (x != 1 && Chance(30)) x = 1;
      else if (x == 1 && Chance(30)) x = Size();
    }
    while (!p.empty() && Chance(20)) p.erase(p.begin());
    if (static_cast<int>(p.size()) < opt_.max_rank && Chance(10)) p.insert(p.begin(), Size());
    if (!BroadcastDims(d, p, &out) || Numel(out) > opt_.max_numel) p = d;
    return Input(p);
  }

  void BinaryWith(int cur) {
    auto op = static_cast<BinaryOp>(Below(5));
    int b = Partner(cur);
    if (op == BinaryOp::kDiv) b = Positive(b, true);
    Dims out;
    BroadcastDims(Val(cur).dims, Val(b).dims, &out);
    Add(StepKind::kBinary, {cur, b}, out, static_cast<int>(op));
  }

  void WhereOrCompare(int cur) {
    int b = Partner(cur);
    Dims out;
    BroadcastDims(Val(cur).dims, Val(b).dims, &out);
    int op = Below(4);
    if (Chance(25)) {
      Add(StepKind::kCompare, {cur, b}, out, op);
      return;
    }
    int x = Chance(50) ? cur : b, y = Chance(50) ? b : Partner(cur);
    Dims all;
    if (!BroadcastDims(out, Val(y).dims, &all) || Numel(all) > opt_.max_numel) y = b;
    BroadcastDims(out, Val(y).dims, &all);
    Add(StepKind::kWhere, {cur, b, x, y}, all, op);
  }

  void Movement(int cur);
  void Reshape(int cur);
  void Reduce(int cur);
  void Matmul(int cur);

  std::mt19937_64 rng_;
  GeneratorOptions opt_;
  Program program_;
  std::vector<RefArray> vals_;
};

void Generator::Reshape(int cur) {
  int64_t n = Numel(Val(cur).dims);
  std::vector<int64_t> factors;
  for (int64_t p = 2; n > 1; ++p)
    while (n % p == 0) factors.push_back(p), n /= p;
  Shuffle(factors);
  int rank = 1 + Below(opt_.max_rank);
  Dims d(rank, 1);
  for (int64_t f : factors) d[Below(rank)] *= f;
  Step s;
  s.kind = StepKind::kReshape;
  s.src = {cur};
  s.ints = d;
  Add(std::move(s));
}

void Generator::Movement(int cur) {
  Dims d = Val(cur).dims;
  int kind = d.empty() ? 0 : Below(6);
  Step s;
  s.src = {cur};
  int64_t numel = Numel(d);
  int rank = static_cast<int>(d.size());
  if (kind == 0) return Reshape(cur);
  if (kind == 1) {
    s.kind = StepKind::kPermute;
    for (int i = 0; i < rank; ++i) s.ints.push_back(i);
    Shuffle(s.ints);
  } else if (kind == 2) {
    s.kind = StepKind::kExpand;
    s.ints = d;
    for (int64_t& x : s.ints)
      if (x == 1 && Chance(60) && numel * 4 <= opt_.max_numel) numel *= (x = Size());
    if (rank < opt_.max_rank && Chance(25) && numel * 3 <= opt_.max_numel) s.ints.insert(s.ints.begin(), 3);
  } else if (kind == 3) {
    s.kind = StepKind::kPad;
    for (int64_t x : d) {
      std::pair<int64_t, int64_t> p{Chance(40) ? Below(3) : 0, Chance(40) ? Below(3) : 0};
      if (numel / x * (x + p.first + p.second) > opt_.max_numel) p = {0, 0};
      numel = numel / x * (x + p.first + p.second);
      s.pairs.push_back(p);
    }
  } else if (kind == 4) {
    s.kind = StepKind::kShrink;
    for (int64_t x : d) {
      int64_t start = Chance(50) ? Below(static_cast<int>(x)) : 0;
      s.pairs.push_back({start, start + 1 + Below(static_cast<int>(x - start))});
    }
  } else {
    s.kind = StepKind::kFlip;
    for (int i = 0; i < rank; ++i)
      if (Chance(50)) s.ints.push_back(Chance(30) ? i - rank : i);  // negative axes too
    if (s.ints.empty()) s.ints.push_back(rank - 1);
  }
  Add(std::move(s));
}

void Generator::Reduce(int cur) {
  int rank = static_cast<int>(Val(cur).dims.size());
  if (rank == 0) return Reshape(cur);
  Step s;
  s.kind = StepKind::kReduce;
  s.src = {cur};
  s.op = Below(2);
  s.keepdim = Chance(50);
  if (Chance(80)) {
    for (int i = 0; i < rank; ++i)
      if (Chance(40)) s.ints.push_back(Chance(30) ? i - rank : i);
    if (s.ints.empty()) s.ints.push_back(Below(rank));
  }  // else: empty axes = every axis
  Add(std::move(s));
}

void Generator::Matmul(int cur) {
  const Dims d = Val(cur).dims;
  if (d.size() < 2) return Reshape(cur);
  int64_t k = d.back(), rows = Numel(d) / k;
  int64_t n = 1 + Below(5);
  if (rows * n > opt_.max_numel) n = 1;
  int b;
  if (Chance(25) && d.size() == 2 && rows * rows <= opt_.max_numel) {
    Step t;
    t.kind = StepKind::kPermute;
    t.src = {cur};
    t.ints = {1, 0};
    b = Add(std::move(t));  // x @ x.T: both sides from one buffer
  } else {
    Dims bd = {k, n};
    if (d.size() > 2 && Chance(40)) bd.insert(bd.begin(), d.begin(), d.end() - 2);  // batched
    b = Input(bd);
  }
  Dims out;
  Add(StepKind::kMatmul, {cur, b}, out);
}

}  // namespace

Program GenerateProgram(uint64_t seed, const GeneratorOptions& options) { return Generator(seed, options).Run(); }

}  // namespace tg::fuzz
