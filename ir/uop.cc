#include "ir/uop.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <mutex>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "ir/uop_internal.h"

namespace tg {
namespace {

size_t Mix(size_t h, size_t v) {  // splitmix64 step: cheap and well spread for pointer keys
  uint64_t x = h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2));
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

size_t HashVector(size_t h, const std::vector<int64_t>& v) {
  for (int64_t x : v) h = Mix(h, static_cast<size_t>(x));
  return Mix(h, v.size());
}

size_t HashDevices(size_t h, const DeviceSet& devices) {
  for (const std::string& d : devices) h = Mix(h, std::hash<std::string>{}(d));
  return Mix(h, devices.size());
}

size_t NodeHash(Ops op, DType dtype, const std::vector<UOpRef>& src, const Arg& arg) {
  size_t h = Mix(static_cast<size_t>(op), (static_cast<size_t>(dtype.scalar()) << 8) | dtype.count());
  for (const UOpRef& s : src) h = Mix(h, reinterpret_cast<size_t>(s.get()));
  return Mix(h, ArgHash(arg));
}

bool SameSrc(const std::vector<UOpRef>& a, const std::vector<UOpRef>& b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(),
                                            [](const UOpRef& x, const UOpRef& y) { return x.get() == y.get(); });
}

}  // namespace

bool ArgEqual(const Arg& a, const Arg& b) {
  if (a.index() != b.index()) return false;
  return std::visit(
      [&b](const auto& x) -> bool {
        using T = std::decay_t<decltype(x)>;
        const T& y = std::get<T>(b);
        if constexpr (std::is_same_v<T, std::monostate>) return true;
        else if constexpr (std::is_same_v<T, double>) return std::bit_cast<uint64_t>(x) == std::bit_cast<uint64_t>(y);
        else if constexpr (std::is_same_v<T, ReduceArg>) return x.op == y.op && x.axes == y.axes;
        // id, place and size: real buffers have unique ids; placeholders (compiler/schedule/schedule_cache)
        // share ids across graphs of different sizes and devices.
        else if constexpr (std::is_same_v<T, BufferArg>) return x.id == y.id && x.size == y.size && x.device == y.device;
        else return x == y;
      },
      a);
}

size_t ArgHash(const Arg& a) {
  size_t h = a.index();
  return std::visit(
      [h](const auto& x) -> size_t {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::monostate>) return h;
        else if constexpr (std::is_same_v<T, double>) return Mix(h, std::bit_cast<uint64_t>(x));
        else if constexpr (std::is_same_v<T, std::string>) return Mix(h, std::hash<std::string>{}(x));
        else if constexpr (std::is_same_v<T, std::vector<int64_t>>) return HashVector(h, x);
        else if constexpr (std::is_same_v<T, ReduceArg>) return HashVector(Mix(h, static_cast<size_t>(x.op)), x.axes);
        else if constexpr (std::is_same_v<T, BufferArg>)
          return Mix(Mix(h, static_cast<size_t>(x.id)), static_cast<size_t>(x.size) ^ std::hash<std::string>()(x.device));
        else if constexpr (std::is_same_v<T, MultiArg>)
          return HashDevices(Mix(h, static_cast<size_t>(x.axis)), x.devices);
        else if constexpr (std::is_same_v<T, AllreduceArg>)
          return HashDevices(Mix(Mix(h, static_cast<size_t>(x.op)), static_cast<size_t>(x.out)), x.devices);
        else return Mix(h, static_cast<size_t>(x));  // int64_t, bool
      },
      a);
}

std::string ShapeString(const Shape& s) { return absl::StrCat("(", absl::StrJoin(s, ", "), ")"); }

std::string ArgString(const Arg& a) {
  return std::visit(
      [](const auto& x) -> std::string {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::monostate>) return "None";
        else if constexpr (std::is_same_v<T, bool>) return x ? "True" : "False";
        else if constexpr (std::is_same_v<T, std::string>) return absl::StrCat("\"", x, "\"");
        else if constexpr (std::is_same_v<T, std::vector<int64_t>>) return ShapeString(x);
        else if constexpr (std::is_same_v<T, ReduceArg>)
          return absl::StrCat(std::string(OpName(x.op)), " ", ShapeString(x.axes));
        else if constexpr (std::is_same_v<T, BufferArg>)
          return absl::StrCat("buffer ", x.id, " ", x.device, " size ", x.size);
        else if constexpr (std::is_same_v<T, MultiArg>) return absl::StrCat("axis ", x.axis, " ", x.devices.Name());
        else if constexpr (std::is_same_v<T, AllreduceArg>)
          return absl::StrCat(std::string(OpName(x.op)), " out ", x.out, " ", x.devices.Name());
        else return absl::StrCat(x);
      },
      a);
}

// ---- interning ----

// Everything a lookup needs before a node exists; the table is keyed by node pointers and probed with this.
struct Probe {
  Ops op;
  DType dtype;
  const std::vector<UOpRef>& src;
  const Arg& arg;
  size_t hash;
};

struct UOpFactory {
  struct Hash {
    using is_transparent = void;
    size_t operator()(const UOp* n) const { return n->hash_; }
    size_t operator()(const Probe& p) const { return p.hash; }
  };
  struct Eq {
    using is_transparent = void;
    static bool Same(const UOp* n, const Probe& p) {
      return n->hash_ == p.hash && n->op_ == p.op && n->dtype_ == p.dtype && SameSrc(n->src_, p.src) &&
             ArgEqual(n->arg_, p.arg);
    }
    static Probe Of(const UOp* n) { return {n->op_, n->dtype_, n->src_, n->arg_, n->hash_}; }
    bool operator()(const UOp* a, const UOp* b) const { return a == b || Same(a, Of(b)); }
    bool operator()(const UOp* a, const Probe& b) const { return Same(a, b); }
    bool operator()(const Probe& a, const UOp* b) const { return Same(b, a); }
  };
  // std::mutex rather than absl::Mutex: the system's prebuilt Abseil is not built with ThreadSanitizer,
  // so TSan cannot see absl::Mutex order memory and reports every guarded access as a race.
  struct Table {
    std::mutex mutex;
    absl::flat_hash_set<const UOp*, Hash, Eq> nodes;  // guarded by |mutex|
  };
  // Leaked on purpose: static rule sets hold UOpRefs that die after any static table would.
  static Table& GetTable() {
    static Table* table = new Table();
    return *table;
  }

  static UOpRef LiveOrNull(const UOp* n) { return std::const_pointer_cast<const UOp>(n->weak_from_this().lock()); }

  static UOpRef Find(Table& t, const Probe& p) {  // |t.mutex| held
    auto it = t.nodes.find(p);
    return it == t.nodes.end() ? nullptr : LiveOrNull(*it);
  }

  // Freed nodes drop their sources after this frame returns, from a loop: a chain of 100000 nodes would
  // otherwise free itself recursively and overflow the stack.
  static void Release(UOp* node) {
    Table& t = GetTable();
    {
      std::lock_guard<std::mutex> lock(t.mutex);
      auto it = t.nodes.find(node);
      if (it != t.nodes.end() && *it == node) t.nodes.erase(it);
    }
    thread_local std::vector<UOpRef> orphans;
    thread_local bool draining = false;
    for (UOpRef& s : node->src_) orphans.push_back(std::move(s));
    delete node;
    if (draining) return;
    draining = true;
    while (!orphans.empty()) {
      UOpRef last = std::move(orphans.back());
      orphans.pop_back();
      last.reset();
    }
    draining = false;
  }

  static UOpRef Make(Ops op, DType dtype, std::vector<UOpRef> src, Arg arg) {
    Table& t = GetTable();
    size_t hash = NodeHash(op, dtype, src, arg);
    {
      std::lock_guard<std::mutex> lock(t.mutex);
      if (UOpRef hit = Find(t, Probe{op, dtype, src, arg, hash})) return hit;
    }
    return Enter(t, hash, op, dtype, std::move(src), std::move(arg));
  }

  static UOpRef MakeNew(Ops op, DType dtype, std::vector<UOpRef> src, Arg arg) {
    Table& t = GetTable();
    size_t hash = NodeHash(op, dtype, src, arg);
    return Enter(t, hash, op, dtype, std::move(src), std::move(arg));
  }

  // Builds the node and enters it, unless a live twin got there first (then the twin is the result).
  static UOpRef Enter(Table& t, size_t hash, Ops op, DType dtype, std::vector<UOpRef> src, Arg arg) {
    // Built outside the lock: shape derivation may throw and range analysis reads sources.
    UOp* raw = new UOp(op, dtype, std::move(src), std::move(arg));
    raw->hash_ = hash;
    UOpRef fresh(std::shared_ptr<UOp>(raw, &Release));
    UOpRef winner;
    {
      std::lock_guard<std::mutex> lock(t.mutex);
      auto it = t.nodes.find(raw);
      if (it != t.nodes.end()) {
        winner = LiveOrNull(*it);
        if (winner == nullptr) t.nodes.erase(it);  // a dying twin: its Release will find ours and skip
      }
      if (winner == nullptr) t.nodes.insert(raw);
    }
    return winner != nullptr ? winner : fresh;  // a losing |fresh| is released after the lock is dropped
  }
};

UOp::UOp(Ops op, DType dtype, std::vector<UOpRef> src, Arg arg)
    : op_(op), dtype_(dtype), src_(std::move(src)), arg_(std::move(arg)) {
  has_multi_ = op_ == Ops::kMulti;
  has_bind_ = op_ == Ops::kBind;
  for (const UOpRef& s : src_) {
    if (s == nullptr) throw Error(absl::StrCat(std::string(OpName(op_)), ": null source"));
    has_multi_ = has_multi_ || s->has_multi_;
    has_bind_ = has_bind_ || s->has_bind_;
  }
  shape_ = internal::DeriveShape(op_, dtype_, src_, arg_);
  lengths_ = internal::DeriveLengths(op_, shape_, src_, arg_);
  std::tie(vmin_, vmax_) = internal::DeriveRange(op_, dtype_, src_, arg_);
}

UOpRef UOp::Make(Ops op, DType dtype, std::vector<UOpRef> src, Arg arg) {
  return UOpFactory::Make(op, dtype, std::move(src), std::move(arg));
}

UOpRef UOp::MakeNew(Ops op, DType dtype, std::vector<UOpRef> src, Arg arg) {
  return UOpFactory::MakeNew(op, dtype, std::move(src), std::move(arg));
}

size_t UOp::LiveCount() {
  auto& t = UOpFactory::GetTable();
  std::lock_guard<std::mutex> lock(t.mutex);
  return t.nodes.size();
}

int64_t UOp::numel() const {
  int64_t n = 1;
  for (int64_t d : shape_) n *= d;
  return n;
}

// ---- constants ----

UOpRef UOp::Const(DType dtype, ConstValue v) {
  return Make(Ops::kConst, dtype, {}, std::visit([](auto x) { return Arg(x); }, CastConst(v, dtype)));
}

UOpRef UOp::const_like(ConstValue v) const { return Const(dtype_, v); }

ConstValue UOp::const_value() const {
  if (op_ != Ops::kConst) throw Error(absl::StrCat("const_value() on ", std::string(OpName(op_)), ", not CONST"));
  if (const auto* i = std::get_if<int64_t>(&arg_)) return *i;
  if (const auto* d = std::get_if<double>(&arg_)) return *d;
  if (const auto* b = std::get_if<bool>(&arg_)) return *b;
  throw Error("CONST with a non-numeric arg " + ArgString(arg_));
}

bool UOp::is_const_value(ConstValue v) const {
  if (op_ != Ops::kConst) return false;
  ConstValue mine = const_value();
  if (std::holds_alternative<double>(mine) || std::holds_alternative<double>(v)) {
    return ConstToDouble(mine) == ConstToDouble(v);
  }
  return ConstToInt(mine) == ConstToInt(v);
}

// ---- building ----

UOpRef UOp::alu(Ops op, std::initializer_list<UOpRef> more) const {
  std::vector<UOpRef> src;
  src.reserve(1 + more.size());
  src.push_back(shared_from_this());
  src.insert(src.end(), more.begin(), more.end());
  DType out = dtype_;
  if (IsComparison(op)) out = dtypes::bool_.vec(dtype_.count());
  else if (op == Ops::kWhere && src.size() > 1) out = src[1]->dtype();
  return Make(op, out, std::move(src));
}

UOpRef UOp::cast(DType d) const { return Make(Ops::kCast, d, {shared_from_this()}); }
UOpRef UOp::bitcast(DType d) const { return Make(Ops::kBitcast, d, {shared_from_this()}); }
UOpRef UOp::reshape(Shape s) const { return Make(Ops::kReshape, dtype_, {shared_from_this()}, std::move(s)); }
UOpRef UOp::permute(std::vector<int64_t> p) const {
  return Make(Ops::kPermute, dtype_, {shared_from_this()}, std::move(p));
}
UOpRef UOp::expand(Shape s) const { return Make(Ops::kExpand, dtype_, {shared_from_this()}, std::move(s)); }

UOpRef UOp::pad(std::vector<std::pair<int64_t, int64_t>> p) const {
  std::vector<int64_t> flat;
  for (auto [before, after] : p) flat.insert(flat.end(), {before, after});
  return Make(Ops::kPad, dtype_, {shared_from_this()}, std::move(flat));
}

UOpRef UOp::shrink(std::vector<std::pair<int64_t, int64_t>> s) const {
  std::vector<int64_t> flat;
  for (auto [start, stop] : s) flat.insert(flat.end(), {start, stop});
  return Make(Ops::kShrink, dtype_, {shared_from_this()}, std::move(flat));
}

std::vector<std::pair<int64_t, int64_t>> UOp::arg_pairs() const {
  const std::vector<int64_t>& flat = arg_as<std::vector<int64_t>>();
  std::vector<std::pair<int64_t, int64_t>> out;
  for (size_t i = 0; i + 1 < flat.size(); i += 2) out.emplace_back(flat[i], flat[i + 1]);
  return out;
}

UOpRef UOp::flip(std::vector<bool> axes_to_flip) const {
  return Make(Ops::kFlip, dtype_, {shared_from_this()}, std::vector<int64_t>(axes_to_flip.begin(), axes_to_flip.end()));
}

UOpRef UOp::reduce(Ops op, std::vector<int64_t> axes) const {
  const int64_t rank = static_cast<int64_t>(shape_.size());
  for (int64_t& a : axes) {
    if (a < -rank || a >= rank) {
      throw Error(absl::StrCat("REDUCE on shape ", ShapeString(shape_), ": axis ", a, " is out of range"));
    }
    if (a < 0) a += rank;
  }
  std::sort(axes.begin(), axes.end());  // one spelling per reduction, so equal reductions intern together
  axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
  return Make(Ops::kReduce, dtype_, {shared_from_this()}, ReduceArg{op, std::move(axes)});
}

UOpRef UOp::where(const UOpRef& a, const UOpRef& b) const {
  return Make(Ops::kWhere, a->dtype(), {shared_from_this(), a, b});
}

UOpRef UOp::Range(const UOpRef& end, int64_t axis_id) { return Make(Ops::kRange, end->dtype(), {end}, axis_id); }
UOpRef UOp::Range(int64_t end, int64_t axis_id, DType dtype) { return Range(Const(dtype, end), axis_id); }
UOpRef UOp::Special(std::string name, int64_t extent, DType dtype) {
  return Make(Ops::kSpecial, dtype, {Const(dtype, extent)}, std::move(name));
}
UOpRef UOp::Variable(std::string name, int64_t min, int64_t max, DType dtype) {
  return Make(Ops::kDefineVar, dtype, {Const(dtype, min), Const(dtype, max)}, std::move(name));
}
UOpRef UOp::var_shrink(int64_t axis, const UOpRef& length) const {
  return Make(Ops::kVarShrink, dtype_, {shared_from_this(), length}, axis);
}

const UOpRef& UOp::length(size_t axis) const {
  static const UOpRef* none = new UOpRef();
  return lengths_ != nullptr ? lengths_->at(axis) : *none;
}

UOpRef UOp::Bind(const UOpRef& variable, int64_t value) {
  if (variable->op() != Ops::kDefineVar)
    throw Error("BIND: the bound node must be a DEFINE_VAR, got " + std::string(OpName(variable->op())));
  return Make(Ops::kBind, variable->dtype(), {variable, Const(variable->dtype(), value)});
}
UOpRef UOp::Sink(std::vector<UOpRef> src) { return Make(Ops::kSink, dtypes::void_, std::move(src)); }
UOpRef UOp::replace_src(std::vector<UOpRef> src) const {
  if (SameSrc(src, src_)) return shared_from_this();
  return Make(op_, dtype_, std::move(src), arg_);
}

// ---- walking ----

std::vector<UOpRef> UOp::toposort() const {
  std::vector<UOpRef> order;
  absl::flat_hash_set<const UOp*> seen;
  std::vector<std::pair<const UOp*, size_t>> stack{{this, 0}};  // node, next source to visit
  seen.insert(this);
  while (!stack.empty()) {
    auto& [node, next] = stack.back();
    if (next < node->src_.size()) {
      const UOp* child = node->src_[next++].get();
      if (seen.insert(child).second) stack.emplace_back(child, 0);
      continue;
    }
    order.push_back(node->shared_from_this());
    stack.pop_back();
  }
  return order;
}

std::string UOp::str() const {
  std::vector<UOpRef> order = toposort();
  absl::flat_hash_map<const UOp*, size_t> id;
  std::string out;
  for (const UOpRef& n : order) {
    std::vector<size_t> srcs;
    for (const UOpRef& s : n->src()) srcs.push_back(id.at(s.get()));
    size_t my_id = id.size();
    id[n.get()] = my_id;
    absl::StrAppendFormat(&out, "%4d %-14s %-10s %-24s [%s]\n", my_id, std::string(OpName(n->op())), n->dtype().name(),
                          ArgString(n->arg()), absl::StrJoin(srcs, ", "));
  }
  return out;
}

// ---- expression operators ----

UOpRef operator+(const UOpRef& a, const UOpRef& b) { return a->alu(Ops::kAdd, {b}); }
UOpRef operator*(const UOpRef& a, const UOpRef& b) { return a->alu(Ops::kMul, {b}); }
UOpRef operator%(const UOpRef& a, const UOpRef& b) { return a->alu(Ops::kMod, {b}); }
UOpRef operator/(const UOpRef& a, const UOpRef& b) {
  return a->alu(a->dtype().is_float() ? Ops::kFdiv : Ops::kIdiv, {b});
}
UOpRef operator-(const UOpRef& a) { return a->alu(Ops::kNeg); }
UOpRef operator-(const UOpRef& a, const UOpRef& b) {
  if (a->dtype().is_float()) return a + (-b);
  return a + b * b->const_like(int64_t{-1});
}
UOpRef lt(const UOpRef& a, const UOpRef& b) { return a->alu(Ops::kCmpLt, {b}); }
UOpRef ne(const UOpRef& a, const UOpRef& b) { return a->alu(Ops::kCmpNe, {b}); }
UOpRef eq(const UOpRef& a, const UOpRef& b) { return a->alu(Ops::kCmpEq, {b}); }
UOpRef maximum(const UOpRef& a, const UOpRef& b) { return a->alu(Ops::kMax, {b}); }
UOpRef logical_and(const UOpRef& a, const UOpRef& b) { return a->alu(Ops::kAnd, {b}); }
UOpRef logical_or(const UOpRef& a, const UOpRef& b) { return a->alu(Ops::kOr, {b}); }
UOpRef logical_not(const UOpRef& a) { return ne(a, a->const_like(true)); }

}  // namespace tg
