#include "ir/pattern_matcher.h"

#include <optional>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "ir/rewrite_trace.h"

namespace tg {

struct PatNode {
  uint64_t ops = 0;  // bit i: Ops(i) matches; 0 matches every op
  std::string name;
  std::optional<ConstValue> value;
  std::function<bool(DType)> dtype_pred;
  std::vector<Pat> src;  // empty: sources unconstrained
  bool any_len = false;
  bool commutative = false;
};
static_assert(kNumOps <= 64, "PatNode::ops is a 64-bit mask");

namespace {

using Captures = std::vector<std::pair<std::string_view, const UOpRef*>>;

uint64_t Bit(Ops op) { return uint64_t{1} << static_cast<int>(op); }

bool MatchNode(const PatNode& p, const UOpRef& n, Captures& caps);

bool MatchSources(const PatNode& p, const UOp& n, Captures& caps, bool swapped) {
  for (size_t i = 0; i < p.src.size(); ++i) {
    size_t j = swapped ? 1 - i : i;
    if (!MatchNode(p.src[i].node(), n.src()[j], caps)) return false;
  }
  return true;
}

bool MatchNode(const PatNode& p, const UOpRef& n, Captures& caps) {
  if (p.ops != 0 && (p.ops & Bit(n->op())) == 0) return false;
  if (p.value.has_value() && !n->is_const_value(*p.value)) return false;
  if (p.dtype_pred && !p.dtype_pred(n->dtype())) return false;
  size_t mark = caps.size();
  if (!p.name.empty()) {
    bool bound = false;
    for (const auto& [name, node] : caps) {
      if (name != p.name) continue;
      if (node->get() != n.get()) return false;
      bound = true;
      break;
    }
    if (!bound) caps.emplace_back(p.name, &n);
  }
  if (p.src.empty()) return true;
  size_t have = n->src().size();
  if (have >= p.src.size() && (p.any_len || have == p.src.size())) {
    size_t own = caps.size();
    if (MatchSources(p, *n, caps, false)) return true;
    caps.resize(own);  // drop what the failed order bound
    if (p.commutative && p.src.size() == 2 && have == 2 && MatchSources(p, *n, caps, true)) return true;
  }
  caps.resize(mark);
  return false;
}

}  // namespace

// ---- Match ----

const UOpRef& Match::operator[](std::string_view name) const {
  for (const auto& [n, node] : captures_) {
    if (n == name) return *node;
  }
  throw Error(absl::StrCat("Match: no capture named \"", std::string(name), "\""));
}

bool Match::has(std::string_view name) const {
  for (const auto& capture : captures_) {
    if (capture.first == name) return true;
  }
  return false;
}

// ---- Pat ----

namespace {
std::shared_ptr<PatNode> NewNode(std::string name = "") {
  auto node = std::make_shared<PatNode>();
  node->name = std::move(name);
  return node;
}
}  // namespace

Pat Pat::Var(std::string name) { return Pat(NewNode(std::move(name))); }
Pat Pat::Any() { return Pat(NewNode()); }

Pat Pat::Cvar(std::string name) {
  auto node = NewNode(std::move(name));
  node->ops = Bit(Ops::kConst);
  return Pat(std::move(node));
}

Pat Pat::Const(ConstValue v) {
  auto node = NewNode();
  node->ops = Bit(Ops::kConst);
  node->value = v;
  return Pat(std::move(node));
}

Pat Pat::Op(Ops op, std::vector<Pat> src, std::string name) { return Ops_({op}, std::move(src), std::move(name)); }

Pat Pat::Ops_(std::initializer_list<Ops> ops, std::vector<Pat> src, std::string name) {
  return Ops_(std::vector<Ops>(ops), std::move(src), std::move(name));
}

Pat Pat::Ops_(std::vector<Ops> ops, std::vector<Pat> src, std::string name) {
  auto node = NewNode(std::move(name));
  for (Ops op : ops) node->ops |= Bit(op);
  node->src = std::move(src);
  return Pat(std::move(node));
}

Pat Pat::named(std::string name) const {
  auto node = std::make_shared<PatNode>(*node_);
  node->name = std::move(name);
  return Pat(std::move(node));
}

Pat Pat::with_dtype(std::function<bool(DType)> pred) const {
  auto node = std::make_shared<PatNode>(*node_);
  node->dtype_pred = std::move(pred);
  return Pat(std::move(node));
}

Pat Pat::allow_any_len() const {
  auto node = std::make_shared<PatNode>(*node_);
  node->any_len = true;
  return Pat(std::move(node));
}

Pat Pat::commutative() const {
  auto node = std::make_shared<PatNode>(*node_);
  node->commutative = true;
  return Pat(std::move(node));
}

Pat Pat::Alu(Ops op, Pat a, Pat b) {
  Pat p = Op(op, {std::move(a), std::move(b)});
  return IsCommutative(op) ? p.commutative() : p;
}

Pat operator+(Pat a, Pat b) { return Pat::Alu(Ops::kAdd, std::move(a), std::move(b)); }
Pat operator*(Pat a, Pat b) { return Pat::Alu(Ops::kMul, std::move(a), std::move(b)); }
Pat operator/(Pat a, Pat b) { return Pat::Ops_({Ops::kIdiv, Ops::kFdiv}, {std::move(a), std::move(b)}); }
Pat operator%(Pat a, Pat b) { return Pat::Alu(Ops::kMod, std::move(a), std::move(b)); }
Pat operator+(Pat a, int64_t b) { return std::move(a) + Pat::Const(b); }
Pat operator*(Pat a, int64_t b) { return std::move(a) * Pat::Const(b); }
Pat operator/(Pat a, int64_t b) { return std::move(a) / Pat::Const(b); }
Pat operator%(Pat a, int64_t b) { return std::move(a) % Pat::Const(b); }
Pat operator-(Pat a) { return Pat::Op(Ops::kNeg, {std::move(a)}); }
Pat operator&(Pat a, Pat b) { return Pat::Alu(Ops::kAnd, std::move(a), std::move(b)); }
Pat operator|(Pat a, Pat b) { return Pat::Alu(Ops::kOr, std::move(a), std::move(b)); }
Pat operator^(Pat a, Pat b) { return Pat::Alu(Ops::kXor, std::move(a), std::move(b)); }
Pat Pat::lt(Pat b) const { return Alu(Ops::kCmpLt, *this, std::move(b)); }
Pat Pat::ne(Pat b) const { return Alu(Ops::kCmpNe, *this, std::move(b)); }
Pat Pat::eq(Pat b) const { return Alu(Ops::kCmpEq, *this, std::move(b)); }
Pat Pat::max(Pat b) const { return Alu(Ops::kMax, *this, std::move(b)); }
Pat Pat::where(Pat a, Pat b) const { return Op(Ops::kWhere, {*this, std::move(a), std::move(b)}); }
Pat Pat::cast() const { return Op(Ops::kCast, {*this}); }

// ---- PatternMatcher ----

PatternMatcher::PatternMatcher(std::vector<std::pair<Pat, RewriteFn>> rules) : rules_(std::move(rules)) {
  for (int i = 0; i < static_cast<int>(rules_.size()); ++i) {
    uint64_t ops = rules_[i].first.node().ops;
    for (int op = 0; op < kNumOps; ++op) {
      if (ops == 0 || (ops >> op & 1)) by_op_[op].push_back(i);
    }
  }
}

PatternMatcher PatternMatcher::operator+(const PatternMatcher& other) const {
  std::vector<std::pair<Pat, RewriteFn>> all = rules_;
  all.insert(all.end(), other.rules_.begin(), other.rules_.end());
  return PatternMatcher(std::move(all));
}

UOpRef PatternMatcher::Rewrite(const UOpRef& node, void* ctx) const {
  Match m;
  m.ctx_ = ctx;
  for (int i : by_op_[static_cast<int>(node->op())]) {
    m.captures_.clear();
    if (!MatchNode(rules_[i].first.node(), node, m.captures_)) continue;
    UOpRef out = rules_[i].second(m);
    // A rule that hands back its input has not rewritten anything; treating it as a result would loop forever.
    if (out != nullptr && out.get() != node.get()) return out;
  }
  return nullptr;
}

// ---- graph_rewrite ----

namespace {

struct Frame {
  UOpRef node;
  int stage = 0;      // 0: visit sources, 1: rebuild + rewrite, 2: take the rewritten node's result
  UOpRef rebuilt;     // stage 2: |node| with rewritten sources
  UOpRef rewritten;   // stage 2: what a rule turned |rebuilt| into, itself being rewritten
};

class Rewriter {
 public:
  Rewriter(const PatternMatcher& pm, void* ctx) : pm_(pm), ctx_(ctx) {}

  UOpRef Run(const UOpRef& root) {
    stack_.push_back({root});
    while (!stack_.empty()) {
      Frame& f = stack_.back();
      if (f.stage == 0) Visit(f);
      else if (f.stage == 1) Rebuild(f);
      else Finish(f);
    }
    return Lookup(root);
  }
  int64_t rules_fired() const { return rules_fired_; }

 private:
  struct Entry {
    UOpRef key;  // keeps the key alive so its address cannot be reused by another node
    UOpRef result;
  };

  // By value: a reference into |memo_| would dangle when the next Record rehashes it.
  UOpRef Lookup(const UOpRef& n) const {
    auto it = memo_.find(n.get());
    return it == memo_.end() ? nullptr : it->second.result;
  }
  void Record(const UOpRef& n, const UOpRef& result) { memo_.try_emplace(n.get(), Entry{n, result}); }

  void Visit(Frame& f) {
    if (Lookup(f.node) != nullptr) return stack_.pop_back();
    f.stage = 1;
    UOpRef node = f.node;  // |f| dangles once the stack grows
    for (auto it = node->src().rbegin(); it != node->src().rend(); ++it) {
      if (Lookup(*it) == nullptr) stack_.push_back({*it});
    }
  }

  void Rebuild(Frame& f) {
    if (Lookup(f.node) != nullptr) return stack_.pop_back();  // a duplicate frame finished it first
    std::vector<UOpRef> src;
    src.reserve(f.node->src().size());
    for (const UOpRef& s : f.node->src()) src.push_back(Lookup(s));
    UOpRef rebuilt = f.node->replace_src(std::move(src));
    if (UOpRef done = Lookup(rebuilt)) return Done(f.node, done);
    UOpRef rewritten = pm_.Rewrite(rebuilt, ctx_);
    if (rewritten == nullptr) {
      Record(rebuilt, rebuilt);
      return Done(f.node, rebuilt);
    }
    ++rules_fired_;
    if (UOpRef done = Lookup(rewritten)) {
      Record(rebuilt, done);
      return Done(f.node, done);
    }
    f.stage = 2;
    f.rebuilt = rebuilt;
    f.rewritten = rewritten;
    stack_.push_back({std::move(rewritten)});
  }

  void Finish(Frame& f) {
    UOpRef result = Lookup(f.rewritten);
    Record(f.rebuilt, result);
    Done(f.node, result);
  }

  void Done(UOpRef node, UOpRef result) {  // by value: |node| may live only in the frame being popped
    Record(node, result);
    Record(result, result);
    stack_.pop_back();
  }

  const PatternMatcher& pm_;
  void* ctx_;
  std::vector<Frame> stack_;
  absl::flat_hash_map<const UOp*, Entry> memo_;
  int64_t rules_fired_ = 0;
};

}  // namespace

UOpRef graph_rewrite(const UOpRef& root, const PatternMatcher& pm, void* ctx) {
  Rewriter rewriter(pm, ctx);
  UOpRef result = rewriter.Run(root);
  if (viz::VizEnabled()) viz::internal::CountRulesFired(rewriter.rules_fired());
  return result;
}

}  // namespace tg
