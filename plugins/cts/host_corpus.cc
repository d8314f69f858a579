// host_corpus.cc: reading and checking manifest.json. Every field is checked before a case runs, so a
// bad manifest fails HostKernels.manifest with the field's place and what was expected, never a
// kernel case with a misleading launch.
#include "plugins/cts/host_corpus.h"

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "plugins/cts/json_value.h"
#include "plugins/cts/runfile.h"

namespace tg_cts {
namespace {

constexpr char kManifestRunfile[] = "tools/cts_corpus/host_corpus/manifest.json";
constexpr int kVersion = 1;

struct ManifestError {
  std::string message;
};

// Where in the manifest a value is ("kernels[3].args[1]"), for messages.
class Reader {
 public:
  Reader(const JsonValue& v, std::string where) : v_(v), where_(std::move(where)) {}

  [[noreturn]] void Fail(const std::string& what) const {
    throw ManifestError{(where_.empty() ? "" : where_ + ": ") + what};
  }
  Reader Member(const std::string& key, JsonValue::Type type) const {
    const JsonValue* m = v_.Find(key);
    if (m == nullptr) Fail("missing \"" + key + "\" (" + JsonValue::TypeName(type) + ")");
    Reader r(*m, (where_.empty() ? "" : where_ + ".") + key);
    if (m->type() != type) r.Fail(std::string("is ") + JsonValue::TypeName(m->type()) + ", expected " + JsonValue::TypeName(type));
    return r;
  }
  Reader Element(size_t i) const { return Reader(v_.array()[i], where_ + "[" + std::to_string(i) + "]"); }
  size_t size() const { return v_.array().size(); }

  std::string String(const std::string& key) const {
    Reader r = Member(key, JsonValue::Type::kString);
    if (r.v_.string().empty()) r.Fail("is empty");
    return r.v_.string();
  }
  // An integer in [lo, hi], as JSON numbers are doubles: exact up to 2^53.
  int64_t Integer(double lo, double hi) const {
    if (!v_.is_number()) Fail(std::string("is ") + JsonValue::TypeName(v_.type()) + ", expected an integer");
    double x = v_.number();
    if (x != std::floor(x) || x < lo || x > hi) {
      std::ostringstream o;
      o.precision(17);
      o << "is " << x << ", expected an integer in [" << lo << ", " << hi << "]";
      Fail(o.str());
    }
    return static_cast<int64_t>(x);
  }
  int64_t Integer(const std::string& key, double lo, double hi) const {
    return Member(key, JsonValue::Type::kNumber).Integer(lo, hi);
  }
  double Number(const std::string& key) const {
    Reader r = Member(key, JsonValue::Type::kNumber);
    if (!(r.v_.number() >= 0)) r.Fail("is negative, expected a tolerance >= 0");
    return r.v_.number();
  }
  const JsonValue& value() const { return v_; }

 private:
  const JsonValue& v_;
  std::string where_;
};

ElementType ParseType(const Reader& arg) {
  std::string t = arg.String("dtype");
  for (ElementType e : {ElementType::kFloat32, ElementType::kFloat16, ElementType::kInt32})
    if (t == ElementTypeName(e)) return e;
  arg.Member("dtype", JsonValue::Type::kString).Fail("is \"" + t + "\", expected one of float32, float16, int32");
}

void ParseDims(const Reader& k, const std::string& key, uint32_t out[3]) {
  Reader dims = k.Member(key, JsonValue::Type::kArray);
  if (dims.size() != 3) dims.Fail("has " + std::to_string(dims.size()) + " elements, expected 3 (x, y, z)");
  for (size_t d = 0; d < 3; ++d) out[d] = static_cast<uint32_t>(dims.Element(d).Integer(1, 4294967295.0));
}

HostArg ParseArg(const Reader& a) {
  HostArg arg;
  std::string kind = a.String("kind");
  if (kind == "i32" || kind == "i64") {
    arg.kind = kind == "i32" ? HostArg::Kind::kI32 : HostArg::Kind::kI64;
    arg.value = kind == "i32" ? a.Integer("value", -2147483648.0, 2147483647.0)
                              : a.Integer("value", -9007199254740992.0, 9007199254740992.0);
    return arg;
  }
  if (kind != "buffer") a.Member("kind", JsonValue::Type::kString).Fail("is \"" + kind + "\", expected buffer, i32 or i64");
  arg.type = ParseType(a);
  arg.count = static_cast<uint64_t>(a.Integer("count", 1, 1u << 30));
  const bool fill = a.value().Find("fill") != nullptr, expect = a.value().Find("expect") != nullptr;
  if (fill == expect) a.Fail("a buffer has \"fill\" (an input) or \"expect\" (the output), exactly one");
  arg.output = expect;
  Reader values = a.Member(expect ? "expect" : "fill", JsonValue::Type::kArray);
  if (values.size() == 0 || values.size() > arg.count)
    values.Fail("has " + std::to_string(values.size()) + " values, expected 1 to count (" + std::to_string(arg.count) + ")");
  for (size_t i = 0; i < values.size(); ++i) {
    Reader v = values.Element(i);
    if (!v.value().is_number()) v.Fail(std::string("is ") + JsonValue::TypeName(v.value().type()) + ", expected a number");
    if (arg.type == ElementType::kInt32) v.Integer(-2147483648.0, 2147483647.0);
    arg.values.push_back(v.value().number());
  }
  if (expect) {
    arg.atol = a.Number("atol");
    arg.rtol = a.Number("rtol");
  }
  return arg;
}

HostKernel ParseKernel(const Reader& k, const std::string& dir) {
  HostKernel kernel;
  kernel.dialect = k.String("dialect");
  kernel.name = k.String("name");
  std::string file = k.String("file");
  if (file[0] == '/' || file.find("..") != std::string::npos)
    k.Member("file", JsonValue::Type::kString).Fail("is \"" + file + "\", expected a path inside the manifest's directory");
  kernel.path = dir + "/" + file;
  kernel.entry = k.String("entry");
  kernel.what = k.value().Find("what") != nullptr ? k.String("what") : "";
  Reader needs = k.Member("requires", JsonValue::Type::kArray);
  for (size_t i = 0; i < needs.size(); ++i) {
    Reader r = needs.Element(i);
    if (!r.value().is_string() || r.value().string() != "fp16")
      r.Fail("is not a requirement this CTS knows (\"fp16\"); a newer corpus needs a newer CTS");
    kernel.needs_fp16 = true;
  }
  ParseDims(k, "num_groups", kernel.num_groups);
  ParseDims(k, "group_size", kernel.group_size);
  Reader args = k.Member("args", JsonValue::Type::kArray);
  int outputs = 0;
  for (size_t i = 0; i < args.size(); ++i) {
    Reader a = args.Element(i);
    if (!a.value().is_object()) a.Fail(std::string("is ") + JsonValue::TypeName(a.value().type()) + ", expected an object");
    kernel.args.push_back(ParseArg(a));
    outputs += kernel.args.back().output;
  }
  if (outputs == 0) args.Fail("no buffer has \"expect\": the kernel's result would go unchecked");
  return kernel;
}

}  // namespace

const char* ElementTypeName(ElementType t) {
  switch (t) {
    case ElementType::kFloat32: return "float32";
    case ElementType::kFloat16: return "float16";
    case ElementType::kInt32: return "int32";
  }
  return "?";
}

uint32_t ElementBytes(ElementType t) { return t == ElementType::kFloat16 ? 2 : 4; }

std::vector<std::string> HostCorpus::Dialects() const {
  std::vector<std::string> out;
  for (const HostKernel& k : kernels) {
    bool seen = false;
    for (const std::string& d : out) seen = seen || d == k.dialect;
    if (!seen) out.push_back(k.dialect);
  }
  return out;
}

HostCorpus ParseHostCorpus(const std::string& path, const std::string& text) {
  HostCorpus corpus;
  corpus.manifest = path;
  const std::string prefix = "host corpus " + path + ": ";
  std::string syntax;
  JsonValue root = JsonValue::Parse(text, &syntax);
  if (!syntax.empty()) {
    corpus.error = prefix + "not JSON: " + syntax;
    return corpus;
  }
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : path.substr(0, slash);
  try {
    Reader top(root, "");
    if (!root.is_object()) top.Fail(std::string("the manifest is ") + JsonValue::TypeName(root.type()) + ", expected an object");
    int64_t version = top.Integer("version", 0, 1e9);
    if (version != kVersion)
      top.Member("version", JsonValue::Type::kNumber)
          .Fail("is " + std::to_string(version) + "; this CTS reads version " + std::to_string(kVersion) +
                " (rebuild the CTS and //tools/cts_corpus together)");
    Reader kernels = top.Member("kernels", JsonValue::Type::kArray);
    std::map<std::string, size_t> seen;
    for (size_t i = 0; i < kernels.size(); ++i) {
      Reader k = kernels.Element(i);
      if (!k.value().is_object()) k.Fail(std::string("is ") + JsonValue::TypeName(k.value().type()) + ", expected an object");
      HostKernel kernel = ParseKernel(k, dir);
      auto [it, fresh] = seen.emplace(kernel.dialect + "." + kernel.name, i);
      if (!fresh) k.Fail("a second " + it->first + " (the first is kernels[" + std::to_string(it->second) + "])");
      corpus.kernels.push_back(std::move(kernel));
    }
    if (const JsonValue* gaps = root.Find("not_rendered"); gaps != nullptr && gaps->is_array()) {
      for (const JsonValue& g : gaps->array()) {
        const JsonValue *d = g.Find("dialect"), *n = g.Find("name"), *r = g.Find("reason");
        if (d && n && r && d->is_string() && n->is_string() && r->is_string())
          corpus.not_rendered.push_back(d->string() + "/" + n->string() + ": " + r->string());
      }
    }
  } catch (const ManifestError& e) {
    corpus.error = prefix + e.message;
    corpus.kernels.clear();
  }
  return corpus;
}

const HostCorpus& LoadHostCorpus(const Plugin& p) {
  static const HostCorpus corpus = [&p] {
    std::string path = p.host_corpus_dir.empty() ? Runfile(p, kManifestRunfile) : p.host_corpus_dir + "/manifest.json";
    HostCorpus c;
    const char* kHowTo = "build //tools/cts_corpus:host_corpus in a tinygrad-cc checkout and pass --host-corpus "
                         "bazel-bin/tools/cts_corpus/host_corpus";
    if (path.empty()) {
      c.error = "host corpus: no runfiles to find " + std::string(kManifestRunfile) + " in; " + kHowTo;
      return c;
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      c.manifest = path;
      c.error = "host corpus " + path + ": cannot read it; " + kHowTo;
      return c;
    }
    std::ostringstream text;
    text << in.rdbuf();
    HostCorpus parsed = ParseHostCorpus(path, text.str());
    parsed.found = true;
    return parsed;
  }();
  return corpus;
}

}  // namespace tg_cts
