// Pat (tinygrad's UPat), PatternMatcher and graph_rewrite: the one rewrite engine of the project.
// Every compiler pass (docs/architecture.md: schedule, codegen, symbolic, decompositions) and autograd is a rule set.
#pragma once

#include <array>
#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ir/uop.h"

namespace tg {

// The named captures of one successful match. Valid only during the callback (it borrows the matched graph).
class Match {
 public:
  const UOpRef& operator[](std::string_view name) const;  // throws tg::Error if absent
  bool has(std::string_view name) const;
  template <class T>
  T& ctx() const {
    if (ctx_ == nullptr) throw Error("Match::ctx: graph_rewrite was given no ctx");
    return *static_cast<T*>(ctx_);
  }

 private:
  friend class PatternMatcher;
  std::vector<std::pair<std::string_view, const UOpRef*>> captures_;
  void* ctx_ = nullptr;
};
using RewriteFn = std::function<UOpRef(const Match&)>;  // return nullptr for "no rewrite"

struct PatNode;

// A pattern over UOps. Op/Ops_ match sources in the given order; the algebra operators below build
// patterns that match a commutative op's two sources in either order. A name used twice in one pattern must
// bind the same node both times (so `x + x` needs equal operands).
class Pat {
 public:
  static Pat Var(std::string name);    // matches anything, captured
  static Pat Any();                    // matches anything
  static Pat Cvar(std::string name);   // a CONST, captured
  static Pat Const(ConstValue v);      // a CONST with this value (int 0 == float 0.0 == false)
  static Pat Op(Ops op, std::vector<Pat> src = {}, std::string name = "");
  static Pat Ops_(std::initializer_list<Ops> ops, std::vector<Pat> src = {}, std::string name = "");
  Pat named(std::string name) const;
  Pat with_dtype(std::function<bool(DType)> pred) const;  // e.g. [](DType d){ return d.is_int(); }
  Pat allow_any_len() const;                              // src list is a prefix
  // ALU patterns read like algebra; commutative ops match both orders:
  friend Pat operator+(Pat a, Pat b);
  friend Pat operator*(Pat a, Pat b);
  friend Pat operator/(Pat a, Pat b);  // IDIV or FDIV
  friend Pat operator%(Pat a, Pat b);
  friend Pat operator+(Pat a, int64_t b);
  friend Pat operator*(Pat a, int64_t b);
  friend Pat operator/(Pat a, int64_t b);
  friend Pat operator%(Pat a, int64_t b);
  Pat lt(Pat b) const;
  Pat ne(Pat b) const;
  Pat max(Pat b) const;

  // Op sets, more comparisons and operators, and commutative matching.
  static Pat Ops_(std::vector<Ops> ops, std::vector<Pat> src = {}, std::string name = "");
  static Pat Const(int v) { return Const(ConstValue(static_cast<int64_t>(v))); }  // Const(0) is unambiguous
  Pat eq(Pat b) const;
  Pat where(Pat a, Pat b) const;  // this is the condition
  Pat cast() const;               // CAST of this, any target dtype
  Pat commutative() const;        // match the two sources in either order
  friend Pat operator-(Pat a);    // NEG
  friend Pat operator&(Pat a, Pat b);
  friend Pat operator|(Pat a, Pat b);
  friend Pat operator^(Pat a, Pat b);
  Pat lt(int64_t b) const { return lt(Const(b)); }
  friend Pat operator+(Pat a, int b) { return a + static_cast<int64_t>(b); }
  friend Pat operator*(Pat a, int b) { return a * static_cast<int64_t>(b); }
  friend Pat operator/(Pat a, int b) { return a / static_cast<int64_t>(b); }
  friend Pat operator%(Pat a, int b) { return a % static_cast<int64_t>(b); }
  static Pat Const(int64_t v) { return Const(ConstValue(v)); }
  static Pat Const(double v) { return Const(ConstValue(v)); }
  static Pat Const(bool v) { return Const(ConstValue(v)); }

  const PatNode& node() const { return *node_; }

 private:
  explicit Pat(std::shared_ptr<const PatNode> node) : node_(std::move(node)) {}
  static Pat Alu(Ops op, Pat a, Pat b);
  std::shared_ptr<const PatNode> node_;
};

// An ordered list of rules; the first rule whose pattern matches and whose callback returns non-null wins.
class PatternMatcher {
 public:
  PatternMatcher(std::vector<std::pair<Pat, RewriteFn>> rules);  // NOLINT: brace-init rule lists
  PatternMatcher operator+(const PatternMatcher& other) const;   // concatenation
  UOpRef Rewrite(const UOpRef& node, void* ctx = nullptr) const; // first matching rule's result, or nullptr
  size_t size() const { return rules_.size(); }

 private:
  std::vector<std::pair<Pat, RewriteFn>> rules_;
  std::array<std::vector<int>, kNumOps> by_op_;  // rule indices tried for each root op, in rule order
};

// Rebuilds the graph bottom-up (sources first), applying |pm| to each node until no rule fires (fixed point),
// memoized per node; returns the new root. Iterative: graph depth costs heap, not C stack.
UOpRef graph_rewrite(const UOpRef& root, const PatternMatcher& pm, void* ctx = nullptr);

}  // namespace tg
