// host_corpus.cc: reading and checking manifest.json. Every field is checked before a case runs, so a
// bad manifest fails HostKernels.manifest with the field's place and what was expected, never a
// kernel case with a misleading launch.
#include "plugins/cts/host_corpus.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "nlohmann/json.hpp"
#include "plugins/cts/runfile.h"

namespace tg_cts {
namespace {

using Json = nlohmann::json;

constexpr char kManifestRunfile[] = "tools/cts_corpus/host_corpus/manifest.json";
constexpr int kVersion = 1;
constexpr int64_t kMaxExact = int64_t{1} << 53;  // i64 arguments: what a double carries exactly

struct ManifestError {
  std::string message;
};

// What a field must be. JSON has one number type; nlohmann keeps three (signed, unsigned, float).
enum class Kind { kNumber, kString, kArray, kObject };

bool Is(const Json& v, Kind k) {
  switch (k) {
    case Kind::kNumber: return v.is_number();
    case Kind::kString: return v.is_string();
    case Kind::kArray: return v.is_array();
    case Kind::kObject: return v.is_object();
  }
  return false;
}
const char* KindName(Kind k) {
  switch (k) {
    case Kind::kNumber: return "a number";
    case Kind::kString: return "a string";
    case Kind::kArray: return "an array";
    case Kind::kObject: return "an object";
  }
  return "?";
}
const char* TypeName(const Json& v) {
  if (v.is_null()) return "null";
  if (v.is_boolean()) return "a boolean";
  if (v.is_number()) return "a number";
  if (v.is_string()) return "a string";
  if (v.is_array()) return "an array";
  if (v.is_object()) return "an object";
  return "binary data";
}

// The member |key| of an object, or nullptr (also for a value that is not an object).
const Json* Find(const Json& v, const std::string& key) {
  if (!v.is_object()) return nullptr;
  auto it = v.find(key);
  return it == v.end() ? nullptr : &*it;
}

// Raised from the parser's callback: JSON that nlohmann accepts but a manifest must not have.
struct StructureError {
  std::string message;
};

// Watches the parse for what nlohmann lets through: a member twice in one object (nlohmann keeps the
// last silently; a hand-edited manifest would then run with a value nobody sees) and nesting deeper
// than any manifest has (a hostile file's brackets would each cost a frame here and a value there).
// It keeps the path to where the parse is ("kernels[3].args"), so the message says where.
class StructureCheck {
 public:
  static constexpr int kMaxDepth = 64;

  bool operator()(int depth, Json::parse_event_t event, Json& parsed) {
    using E = Json::parse_event_t;
    switch (event) {
      case E::object_start:
      case E::array_start:
        if (depth >= kMaxDepth) Throw("nested deeper than " + std::to_string(kMaxDepth) + " levels");
        frames_.push_back(Frame{event == E::array_start, 0, {}, {}});
        break;
      case E::key: {
        Frame& f = frames_.back();
        f.key = parsed.get<std::string>();
        if (!f.keys.insert(f.key).second) {
          const std::string key = std::move(f.key);
          f.key.clear();  // the path is the object's, not the member's
          Throw("member \"" + key + "\" appears twice");
        }
        break;
      }
      case E::object_end:
      case E::array_end:
        frames_.pop_back();
        Done();
        break;
      case E::value: Done(); break;
    }
    return true;
  }

 private:
  struct Frame {
    bool array;
    size_t index;                // the element being read, in an array
    std::set<std::string> keys;  // the members seen, in an object
    std::string key;             // the member being read
  };
  void Done() {  // a value ended: an array moves to its next element
    if (!frames_.empty() && frames_.back().array) ++frames_.back().index;
  }
  [[noreturn]] void Throw(const std::string& what) const {
    std::string where;
    for (const Frame& f : frames_) {
      if (where.size() > 60) {  // deep nesting: its start says where
        where += "...";
        break;
      }
      if (f.array) where += "[" + std::to_string(f.index) + "]";
      else if (!f.key.empty()) where += (where.empty() ? "" : ".") + f.key;
    }
    throw StructureError{where.empty() ? what : where + ": " + what};
  }
  std::vector<Frame> frames_;
};

// nlohmann's syntax error as "line 4, column 19: syntax error while parsing object key - unexpected
// ','; expected string literal": the line and column of the byte it stopped at (from the byte offset
// nlohmann reports), and its reason.
std::string SyntaxError(const Json::parse_error& e, const std::string& text) {
  // e.byte counts the bytes read, the offending one included (one past the end at end of input).
  const size_t at = std::min<size_t>(e.byte == 0 ? 0 : e.byte - 1, text.size());
  size_t line = 1, line_start = 0;
  for (size_t i = 0; i < at; ++i)
    if (text[i] == '\n') ++line, line_start = i + 1;
  std::string what = e.what();
  // "[json.exception.parse_error.101] parse error at line 4, column 19: <reason>": keep the reason.
  if (size_t p = what.find("parse error"); p != std::string::npos)
    if (size_t colon = what.find(": ", p); colon != std::string::npos) what = what.substr(colon + 2);
  // Its "last read: '...'" quotes the file's bytes, which may be anything: spelled out unless printable.
  std::string reason;
  for (unsigned char c : what) {
    if (c >= 0x20 && c < 0x7f) {
      reason += static_cast<char>(c);
    } else {
      char hex[5];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      reason += hex;
    }
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(at - line_start + 1) + ": " + reason;
}

// Where in the manifest a value is ("kernels[3].args[1]"), for messages.
class Reader {
 public:
  Reader(const Json& v, std::string where) : v_(v), where_(std::move(where)) {}

  [[noreturn]] void Fail(const std::string& what) const {
    throw ManifestError{(where_.empty() ? "" : where_ + ": ") + what};
  }
  Reader Member(const std::string& key, Kind kind) const {
    const Json* m = Find(v_, key);
    if (m == nullptr) Fail("missing \"" + key + "\" (" + KindName(kind) + ")");
    Reader r(*m, (where_.empty() ? "" : where_ + ".") + key);
    if (!Is(*m, kind)) r.Fail(std::string("is ") + TypeName(*m) + ", expected " + KindName(kind));
    return r;
  }
  Reader Element(size_t i) const { return Reader(v_[i], where_ + "[" + std::to_string(i) + "]"); }
  size_t size() const { return v_.size(); }

  std::string String(const std::string& key) const {
    Reader r = Member(key, Kind::kString);
    const std::string& s = r.v_.get_ref<const std::string&>();
    if (s.empty()) r.Fail("is empty");
    return s;
  }
  // An integer in [lo, hi]. nlohmann keeps integers exact (int64 or uint64); a number written with a
  // fraction or exponent is a double, an integer when it has no fractional part.
  int64_t Integer(int64_t lo, int64_t hi) const {
    if (!v_.is_number()) Fail(std::string("is ") + TypeName(v_) + ", expected an integer");
    bool ok;
    int64_t x = 0;
    if (v_.is_number_unsigned()) {
      const uint64_t u = v_.get<uint64_t>();
      ok = u <= static_cast<uint64_t>(hi) && (lo <= 0 || u >= static_cast<uint64_t>(lo));
      x = static_cast<int64_t>(u);
    } else if (v_.is_number_integer()) {
      x = v_.get<int64_t>();
      ok = x >= lo && x <= hi;
    } else {
      const double d = v_.get<double>();
      ok = d == std::floor(d) && d >= static_cast<double>(lo) && d <= static_cast<double>(hi);
      if (ok) x = static_cast<int64_t>(d);
    }
    if (!ok) Fail("is " + v_.dump() + ", expected an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
    return x;
  }
  int64_t Integer(const std::string& key, int64_t lo, int64_t hi) const {
    return Member(key, Kind::kNumber).Integer(lo, hi);
  }
  double Number(const std::string& key) const {
    Reader r = Member(key, Kind::kNumber);
    const double x = r.v_.get<double>();
    if (!(x >= 0)) r.Fail("is negative, expected a tolerance >= 0");
    return x;
  }
  const Json& value() const { return v_; }

 private:
  const Json& v_;
  std::string where_;
};

ElementType ParseType(const Reader& arg) {
  std::string t = arg.String("dtype");
  for (ElementType e : {ElementType::kFloat32, ElementType::kFloat16, ElementType::kInt32})
    if (t == ElementTypeName(e)) return e;
  arg.Member("dtype", Kind::kString).Fail("is \"" + t + "\", expected one of float32, float16, int32");
}

void ParseDims(const Reader& k, const std::string& key, uint32_t out[3]) {
  Reader dims = k.Member(key, Kind::kArray);
  if (dims.size() != 3) dims.Fail("has " + std::to_string(dims.size()) + " elements, expected 3 (x, y, z)");
  for (size_t d = 0; d < 3; ++d) out[d] = static_cast<uint32_t>(dims.Element(d).Integer(1, UINT32_MAX));
}

HostArg ParseArg(const Reader& a) {
  HostArg arg;
  std::string kind = a.String("kind");
  if (kind == "i32" || kind == "i64") {
    arg.kind = kind == "i32" ? HostArg::Kind::kI32 : HostArg::Kind::kI64;
    arg.value = kind == "i32" ? a.Integer("value", INT32_MIN, INT32_MAX)
                              : a.Integer("value", -kMaxExact, kMaxExact);
    return arg;
  }
  if (kind != "buffer") a.Member("kind", Kind::kString).Fail("is \"" + kind + "\", expected buffer, i32 or i64");
  arg.type = ParseType(a);
  arg.count = static_cast<uint64_t>(a.Integer("count", 1, 1u << 30));
  const bool fill = Find(a.value(), "fill") != nullptr, expect = Find(a.value(), "expect") != nullptr;
  if (fill == expect) a.Fail("a buffer has \"fill\" (an input) or \"expect\" (the output), exactly one");
  arg.output = expect;
  Reader values = a.Member(expect ? "expect" : "fill", Kind::kArray);
  if (values.size() == 0 || values.size() > arg.count)
    values.Fail("has " + std::to_string(values.size()) + " values, expected 1 to count (" + std::to_string(arg.count) + ")");
  for (size_t i = 0; i < values.size(); ++i) {
    Reader v = values.Element(i);
    if (!v.value().is_number()) v.Fail(std::string("is ") + TypeName(v.value()) + ", expected a number");
    if (arg.type == ElementType::kInt32) v.Integer(INT32_MIN, INT32_MAX);
    arg.values.push_back(v.value().get<double>());
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
    k.Member("file", Kind::kString).Fail("is \"" + file + "\", expected a path inside the manifest's directory");
  kernel.path = dir + "/" + file;
  kernel.entry = k.String("entry");
  kernel.what = Find(k.value(), "what") != nullptr ? k.String("what") : "";
  Reader needs = k.Member("requires", Kind::kArray);
  for (size_t i = 0; i < needs.size(); ++i) {
    Reader r = needs.Element(i);
    if (!r.value().is_string() || r.value().get_ref<const std::string&>() != "fp16")
      r.Fail("is not a requirement this CTS knows (\"fp16\"); a newer corpus needs a newer CTS");
    kernel.needs_fp16 = true;
  }
  ParseDims(k, "num_groups", kernel.num_groups);
  ParseDims(k, "group_size", kernel.group_size);
  Reader args = k.Member("args", Kind::kArray);
  int outputs = 0;
  for (size_t i = 0; i < args.size(); ++i) {
    Reader a = args.Element(i);
    if (!a.value().is_object()) a.Fail(std::string("is ") + TypeName(a.value()) + ", expected an object");
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
  Json root;
  try {
    StructureCheck check;
    root = Json::parse(text, std::ref(check));
  } catch (const Json::parse_error& e) {
    corpus.error = prefix + "not JSON: " + SyntaxError(e, text);
    return corpus;
  } catch (const StructureError& e) {
    corpus.error = prefix + e.message;
    return corpus;
  }
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : path.substr(0, slash);
  try {
    Reader top(root, "");
    if (!root.is_object()) top.Fail(std::string("the manifest is ") + TypeName(root) + ", expected an object");
    int64_t version = top.Integer("version", 0, 1000000000);
    if (version != kVersion)
      top.Member("version", Kind::kNumber)
          .Fail("is " + std::to_string(version) + "; this CTS reads version " + std::to_string(kVersion) +
                " (rebuild the CTS and //tools/cts_corpus together)");
    Reader kernels = top.Member("kernels", Kind::kArray);
    std::map<std::string, size_t> seen;
    for (size_t i = 0; i < kernels.size(); ++i) {
      Reader k = kernels.Element(i);
      if (!k.value().is_object()) k.Fail(std::string("is ") + TypeName(k.value()) + ", expected an object");
      HostKernel kernel = ParseKernel(k, dir);
      auto [it, fresh] = seen.emplace(kernel.dialect + "." + kernel.name, i);
      if (!fresh) k.Fail("a second " + it->first + " (the first is kernels[" + std::to_string(it->second) + "])");
      corpus.kernels.push_back(std::move(kernel));
    }
    if (const Json* gaps = Find(root, "not_rendered"); gaps != nullptr && gaps->is_array()) {
      for (const Json& g : *gaps) {
        const Json *d = Find(g, "dialect"), *n = Find(g, "name"), *r = Find(g, "reason");
        if (d && n && r && d->is_string() && n->is_string() && r->is_string())
          corpus.not_rendered.push_back(d->get<std::string>() + "/" + n->get<std::string>() + ": " + r->get<std::string>());
      }
    }
  } catch (const ManifestError& e) {
    corpus.error = prefix + e.message;
    corpus.kernels.clear();
  } catch (const Json::exception& e) {  // a check above missed a case: still a failed manifest, not a crash
    corpus.error = prefix + e.what();
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
