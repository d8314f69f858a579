#include "tests/golden/golden.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "gtest/gtest.h"

namespace tg::golden {
namespace {

std::vector<std::string> Split(const std::string& s, char sep) {
  std::vector<std::string> out;
  if (s == "-") return out;
  std::stringstream ss(s);
  for (std::string item; std::getline(ss, item, sep);) out.push_back(item);
  return out;
}

Shape ParseShape(const std::string& s) {
  Shape shape;
  for (const std::string& d : Split(s, ',')) shape.push_back(std::stoll(d));
  return shape;
}

DType ParseDType(const std::string& name) {
  std::optional<DType> d = DTypeFromName(name);
  if (!d) throw std::runtime_error("golden: unknown dtype " + name);
  return *d;
}

Blob ReadBlob(std::istringstream& in) {
  Blob b;
  in >> b.enc >> b.offset >> b.count;
  return b;
}

// One "key value..." line of the index into |c|.
void ParseLine(const std::string& key, std::istringstream& in, Case& c) {
  if (key == "skip") {
    in >> c.skip;
  } else if (key == "arg") {
    std::string k, v;
    in >> k >> v;
    c.args.Set(k, v);
  } else if (key == "in") {
    InputSpec s;
    std::string dtype, shape;
    int grad;
    in >> dtype >> grad >> shape;
    s.dtype = ParseDType(dtype), s.grad = grad != 0, s.shape = ParseShape(shape), s.data = ReadBlob(in);
    c.inputs.push_back(s);
  } else if (key == "view") {
    View v;
    in >> v.kind >> v.value;
    c.inputs.back().views.push_back(v);
  } else if (key == "out") {
    OutputSpec o;
    std::string dtype, shape;
    in >> dtype >> shape;
    if (dtype != "-") o.dtype = ParseDType(dtype);
    o.shape = ParseShape(shape), o.data = ReadBlob(in), o.upstream = ReadBlob(in);
    c.outputs.push_back(o);
  } else if (key == "grad") {
    size_t index;
    in >> index;
    c.grads[index] = ReadBlob(in);
  } else {
    throw std::runtime_error("golden: unknown line kind " + key);
  }
}

bool Close(double got, double want, double atol, double rtol) {
  if (std::isnan(want)) return std::isnan(got);
  if (std::isinf(want)) return got == want;
  return std::abs(got - want) <= atol + rtol * std::abs(want);
}

void ExpectClose(const std::vector<double>& got, const std::vector<double>& want, double atol, double rtol,
                 const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what << ": element count";
  int bad = 0;
  std::ostringstream report;
  for (size_t i = 0; i < got.size(); ++i) {
    if (Close(got[i], want[i], atol, rtol)) continue;
    if (bad++ < 6) report << "\n  [" << i << "] got " << got[i] << " want " << want[i];
  }
  EXPECT_EQ(bad, 0) << what << ": " << bad << " of " << got.size() << " elements differ (atol " << atol
                    << ", rtol " << rtol << ")" << report.str();
}

std::vector<double> ValuesOf(const Tensor& t) {
  if (t.dtype() == dtypes::float64) return t.to_vector<double>();
  if (t.dtype().is_float()) {
    std::vector<float> f = t.cast(dtypes::float32).to_vector<float>();
    return std::vector<double>(f.begin(), f.end());
  }
  std::vector<int64_t> i = t.cast(dtypes::int64).to_vector<int64_t>();
  return std::vector<double>(i.begin(), i.end());
}

Tensor ApplyViews(Tensor t, const std::vector<View>& views) {
  for (const View& v : views) {
    Args a;
    a.Set("v", v.value);
    if (v.kind == "permute") t = t.permute(a.Axes("v"));
    else if (v.kind == "expand") t = t.expand(a.Ints("v"));
    else if (v.kind == "reshape") t = t.reshape(a.Ints("v"));
    else if (v.kind == "flip") t = t.flip(a.Axes("v"));
    else if (v.kind == "shrink") t = t.shrink(a.Pairs("v"));
    else throw std::runtime_error("golden: unknown view " + v.kind);
  }
  return t;
}

// The leaf for input |s|: a buffer (float32 or float64; |force64| for finite differences) cast to
// the input dtype. Gradients are taken with respect to this leaf.
Tensor MakeLeaf(const File& f, const InputSpec& s, bool force64) {
  std::vector<double> v = f.Values(s.data);
  if (s.dtype.is_float() && (force64 || s.dtype == dtypes::float64)) return Tensor::from_vector(v, s.shape);
  if (s.dtype.is_float()) return Tensor::from_vector(std::vector<float>(v.begin(), v.end()), s.shape);
  std::vector<int64_t> ints(v.begin(), v.end());
  return Tensor::from_vector(ints, s.shape).cast(s.dtype).contiguous().realize();
}

struct Run {
  std::vector<Tensor> leaves, outputs;
};

Run Forward(const File& f, const Case& c, const Registry& ops, bool force64, const std::vector<Tensor>* leaves_in) {
  Run run;
  std::vector<Tensor> inputs;
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    const InputSpec& s = c.inputs[i];
    Tensor leaf = leaves_in ? (*leaves_in)[i] : MakeLeaf(f, s, force64);
    run.leaves.push_back(leaf);
    Tensor x = (s.dtype.is_float() && !force64) ? leaf.cast(s.dtype) : leaf;
    inputs.push_back(ApplyViews(x, s.views));
  }
  auto it = ops.find(c.op);
  if (it == ops.end()) throw std::runtime_error("golden: no C++ op registered for \"" + c.op + "\"");
  run.outputs = it->second(inputs, c.args);
  return run;
}

// sum_k sum(upstream_k * output_k): its gradient is PyTorch's with the same upstream gradients.
std::optional<Tensor> Loss(const File& f, const Case& c, const std::vector<Tensor>& outputs, bool force64) {
  std::optional<Tensor> loss;
  for (size_t k = 0; k < c.outputs.size(); ++k) {
    const Blob& up = c.outputs[k].upstream;
    if (up.enc == "-") continue;  // this output takes no gradient
    std::vector<double> u = f.Values(up);
    Tensor ut = force64 ? Tensor::from_vector(u, c.outputs[k].shape)
                        : Tensor::from_vector(std::vector<float>(u.begin(), u.end()), c.outputs[k].shape);
    Tensor term = (outputs[k] * ut).sum();
    loss = loss ? *loss + term : term;
  }
  return loss;
}

}  // namespace

const std::string& Args::Raw(const std::string& key) const {
  auto it = values_.find(key);
  if (it == values_.end()) throw std::runtime_error("golden: the case has no arg \"" + key + "\"");
  return it->second;
}
int64_t Args::Int(const std::string& key) const { return std::stoll(Raw(key)); }
double Args::Float(const std::string& key) const {
  const std::string& r = Raw(key);
  if (r == "inf") return INFINITY;
  if (r == "-inf") return -INFINITY;
  if (r == "nan") return NAN;
  return std::stod(r);
}
Scalar Args::Num(const std::string& key) const {
  const std::string& r = Raw(key);
  if (r == "true" || r == "false") return Scalar(r == "true");
  if (r.find_first_of(".eEn") == std::string::npos) return Scalar(Int(key));
  return Scalar(Float(key));
}
bool Args::Bool(const std::string& key, bool fallback) const { return Has(key) ? Raw(key) == "true" : fallback; }
std::string Args::Str(const std::string& key, const std::string& fallback) const { return Has(key) ? Raw(key) : fallback; }
std::vector<int64_t> Args::Ints(const std::string& key) const {
  std::vector<int64_t> out;
  for (const std::string& s : Split(Raw(key), ',')) out.push_back(std::stoll(s));
  return out;
}
std::vector<int> Args::Axes(const std::string& key) const {
  if (!Has(key)) return {};
  std::vector<int> out;
  for (int64_t v : Ints(key)) out.push_back(static_cast<int>(v));
  return out;
}
std::vector<std::pair<int64_t, int64_t>> Args::Pairs(const std::string& key) const {
  std::vector<std::pair<int64_t, int64_t>> out;
  for (const std::string& s : Split(Raw(key), ',')) {
    size_t colon = s.find(':');
    out.emplace_back(std::stoll(s.substr(0, colon)), std::stoll(s.substr(colon + 1)));
  }
  return out;
}

std::vector<double> File::Values(const Blob& b) const {
  std::vector<double> out(b.count);
  const char* p = blob.data() + b.offset;
  size_t width = b.enc == "f4" ? 4 : 8;
  if (b.offset + b.count * width > blob.size()) throw std::runtime_error("golden: blob slice out of range");
  for (size_t i = 0; i < b.count; ++i, p += width) {
    if (b.enc == "f4") { float v; std::memcpy(&v, p, 4); out[i] = v; }
    else if (b.enc == "f8") { std::memcpy(&out[i], p, 8); }
    else { int64_t v; std::memcpy(&v, p, 8); out[i] = static_cast<double>(v); }
  }
  return out;
}

File Load(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("golden: cannot open " + path + " (run tests/golden/make_golden.py)");
  File file;
  std::string line;
  std::getline(in, line);
  if (line != "TGGOLDEN 1") throw std::runtime_error("golden: " + path + " is not a TGGOLDEN 1 file");
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::string key;
    ls >> key;
    if (key == "BLOB") {
      size_t n;
      ls >> n;
      file.blob.resize(n);
      in.read(file.blob.data(), static_cast<std::streamsize>(n));
      break;
    }
    if (key == "case") {
      Case c;
      int fd;
      ls >> c.name >> c.op >> c.atol >> c.rtol >> c.gatol >> c.grtol >> fd;
      c.fd = fd != 0;
      file.cases.push_back(c);
    } else if (key != "end") {
      ParseLine(key, ls, file.cases.back());
    }
  }
  return file;
}

std::string DataPath(const std::string& family) {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  std::string rel = "tests/golden/data/" + family + ".golden";
  return srcdir ? std::string(srcdir) + "/tinygrad_cc/" + rel : rel;
}

void RunCase(const File& f, const Case& c, const Registry& ops) {
  Run run = Forward(f, c, ops, false, nullptr);
  ASSERT_EQ(run.outputs.size(), c.outputs.size()) << "number of outputs";
  // The gradient graph is built before anything is realized: realizing an output replaces its
  // graph with a buffer, which would cut it off from the leaves.
  std::vector<Tensor> grads;
  if (!c.grads.empty()) {
    std::optional<Tensor> loss = Loss(f, c, run.outputs, false);
    ASSERT_TRUE(loss.has_value()) << "gradients expected but no output takes one";
    std::vector<Tensor> targets;
    for (const auto& [i, blob] : c.grads) targets.push_back(run.leaves[i]);
    grads = loss->gradient(targets);
  }
  for (size_t k = 0; k < c.outputs.size(); ++k) {
    const OutputSpec& o = c.outputs[k];
    std::string what = "output " + std::to_string(k);
    ASSERT_EQ(run.outputs[k].shape(), o.shape) << what << " shape";
    if (o.dtype) EXPECT_EQ(run.outputs[k].dtype(), *o.dtype) << what << " dtype";
    ExpectClose(ValuesOf(run.outputs[k]), f.Values(o.data), c.atol, c.rtol, what);
  }
  size_t t = 0;
  for (const auto& [i, blob] : c.grads)
    ExpectClose(ValuesOf(grads[t++]), f.Values(blob), c.gatol, c.grtol, "gradient of input " + std::to_string(i));
}

void RunFiniteDifference(const File& f, const Case& c, const Registry& ops) {
  Run run = Forward(f, c, ops, true, nullptr);
  std::optional<Tensor> loss = Loss(f, c, run.outputs, true);
  ASSERT_TRUE(loss.has_value());
  for (const auto& [i, blob] : c.grads) {
    std::vector<double> analytic = ValuesOf(loss->gradient({run.leaves[i]})[0]);
    std::vector<double> x0 = f.Values(c.inputs[i].data);
    const double h = 1e-6;
    for (size_t e = 0; e < x0.size(); ++e) {
      double value[2];
      for (int side = 0; side < 2; ++side) {
        std::vector<double> x = x0;
        x[e] += side == 0 ? h : -h;
        std::vector<Tensor> leaves = run.leaves;
        leaves[i] = Tensor::from_vector(x, c.inputs[i].shape);
        Run r = Forward(f, c, ops, true, &leaves);
        value[side] = Loss(f, c, r.outputs, true)->item<double>();
      }
      double numeric = (value[0] - value[1]) / (2 * h);
      EXPECT_NEAR(analytic[e], numeric, 1e-5 * std::max(1.0, std::abs(numeric)))
          << "input " << i << " element " << e;
    }
  }
}

}  // namespace tg::golden
