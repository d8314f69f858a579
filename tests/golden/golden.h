// Golden op tests: reads a data/<family>.golden file written by make_golden.py (PyTorch's inputs,
// outputs and input gradients) and replays each case through tg::Tensor. Format: README.md.
#ifndef TG_TESTS_GOLDEN_GOLDEN_H_
#define TG_TESTS_GOLDEN_GOLDEN_H_

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "frontend/tg.h"

namespace tg::golden {

// A slice of the file's blob: |count| values encoded as "f4", "f8" or "i8" (little-endian).
struct Blob {
  std::string enc = "-";
  size_t offset = 0;
  size_t count = 0;
};

// The case's op arguments, as the generator wrote them (key -> text).
class Args {
 public:
  bool Has(const std::string& key) const { return values_.count(key) > 0; }
  int64_t Int(const std::string& key) const;
  int64_t Int(const std::string& key, int64_t fallback) const { return Has(key) ? Int(key) : fallback; }
  double Float(const std::string& key) const;
  double Float(const std::string& key, double fallback) const { return Has(key) ? Float(key) : fallback; }
  bool Bool(const std::string& key, bool fallback = false) const;
  std::string Str(const std::string& key, const std::string& fallback = "") const;
  // A Python-style number: an int when written without '.', 'e' or inf/nan (tinygrad's weak types).
  Scalar Num(const std::string& key) const;
  std::vector<int64_t> Ints(const std::string& key) const;  // "1,2" ; "-" is empty
  std::vector<int> Axes(const std::string& key) const;      // Ints as int; absent = {}
  std::vector<std::pair<int64_t, int64_t>> Pairs(const std::string& key) const;  // "0:2,1:3"
  void Set(const std::string& key, const std::string& value) { values_[key] = value; }

 private:
  const std::string& Raw(const std::string& key) const;
  std::map<std::string, std::string> values_;
};

struct View {
  std::string kind;  // permute expand reshape flip shrink
  std::string value;
};

struct InputSpec {
  DType dtype;
  bool grad = false;
  Shape shape;  // of the base (leaf) tensor
  Blob data;
  std::vector<View> views;
};

struct OutputSpec {
  std::optional<DType> dtype;  // absent: not checked
  Shape shape;
  Blob data;
  Blob upstream;  // d(loss)/d(output); count 0 when the output takes no gradient
};

struct Case {
  std::string name, op;
  double atol = 1e-6, rtol = 1e-3, gatol = 1e-4, grtol = 1e-3;
  bool fd = false;  // also check the gradient with float64 finite differences
  std::string skip;  // non-empty: a known bug outside the op (the reason), reported as skipped
  Args args;
  std::vector<InputSpec> inputs;
  std::vector<OutputSpec> outputs;
  std::map<size_t, Blob> grads;  // input index -> expected gradient of its base
};

struct File {
  std::vector<Case> cases;
  std::string blob;
  std::vector<double> Values(const Blob& b) const;
};

// Parses |path|; throws std::runtime_error naming the line on malformed input.
File Load(const std::string& path);
// The runfiles path of data/<family>.golden.
std::string DataPath(const std::string& family);

// A case's op over tg::Tensor: inputs (views applied) and args in, outputs out.
using OpFn = std::function<std::vector<Tensor>(const std::vector<Tensor>&, const Args&)>;
using Registry = std::map<std::string, OpFn>;

// Runs one case: forward values, dtypes and shapes, then the input gradients. gtest failures.
void RunCase(const File& file, const Case& c, const Registry& ops);
// Central differences in float64 of sum(upstream * outputs) against the analytic gradient.
void RunFiniteDifference(const File& file, const Case& c, const Registry& ops);

}  // namespace tg::golden

#endif  // TG_TESTS_GOLDEN_GOLDEN_H_
