// lane_loops.cc: the lane-loop choice and the varying / uniform split (lane_loops.h says the rules).
#include "plugins/cpu/lane_loops.h"

#include <algorithm>

#include "plugins/cpu/lane_ops.h"

namespace tg_cpu::uops {
namespace {

struct Nesting {
  std::vector<int32_t> parent;  // innermost RANGE enclosing the line (for a RANGE: the one around it)
  std::vector<uint8_t> reduce;  // RANGE: a reduce loop
  std::vector<uint8_t> all_parallel;
};

Nesting Nest(const Program& p, std::vector<int32_t>* end_of) {
  const size_t n = p.code.size();
  Nesting nest{std::vector<int32_t>(n, -1), std::vector<uint8_t>(n, 0), std::vector<uint8_t>(n, 0)};
  std::vector<int32_t> open;
  for (size_t i = 0; i < n; ++i) {
    const Instr& in = p.code[i];
    if (in.op == Op::kEND) {
      open.pop_back();
      (*end_of)[in.src[0]] = static_cast<int32_t>(i);
    }
    nest.parent[i] = open.empty() ? -1 : open.back();
    if (in.op == Op::kRANGE) open.push_back(static_cast<int32_t>(i));
    if (in.op == Op::kASSIGN) {  // every loop between the accumulator and this update reduces
      for (int32_t r = nest.parent[i]; r > static_cast<int32_t>(in.src[0]); r = nest.parent[r]) nest.reduce[r] = 1;
    }
  }
  for (size_t i = 0; i < n; ++i) {
    if (p.code[i].op != Op::kRANGE) continue;
    const int32_t up = nest.parent[i];
    nest.all_parallel[i] = !nest.reduce[i] && (up < 0 || nest.all_parallel[up]);
  }
  return nest;
}

// How many of a block's lanes one pass of |range| fills: its constant trip count, capped at a block; a
// bound known only at run time counts as a full block.
int64_t LanesFilled(const Program& p, int32_t range) {
  const Instr& bound = p.code[p.code[range].src[0]];
  return bound.op == Op::kCONST ? std::min<int64_t>(bound.arg, kLanes) : static_cast<int64_t>(kLanes);
}

// Marks the lines of lane loop |l| varying where they are; false (and nothing marked) when |l| cannot
// be a lane loop.
bool MarkVarying(const Program& p, int32_t l, LaneLoops* out) {
  const int32_t end = out->end_of[l];
  std::vector<uint8_t> varying(p.code.size(), 0), stride1(p.code.size(), 0);
  varying[l] = stride1[l] = 1;
  for (int32_t i = l + 1; i < end; ++i) {
    const Instr& in = p.code[i];
    auto any = [&] {  // a LOAD's INDEX is varying when its index or gate is
      for (int k = 0; k < in.num_src; ++k) if (varying[in.src[k]]) return true;
      return false;
    };
    switch (in.op) {
      case Op::kRANGE: if (varying[in.src[0]]) return false; break;
      case Op::kEND: case Op::kSTORE: break;
      case Op::kDEFINE_ACC: varying[i] = 1; break;
      case Op::kASSIGN: case Op::kREDUCE: varying[i] = varying[in.src[0]]; break;
      default: varying[i] = any(); break;
    }
    if (in.op == Op::kADD) {
      const uint32_t a = in.src[0], b = in.src[1];
      stride1[i] = (stride1[a] && !varying[b]) || (!varying[a] && stride1[b]);
    } else if (in.op == Op::kCAST && IsInt(in.dtype) && IsInt(p.code[in.src[0]].dtype)) {
      stride1[i] = stride1[in.src[0]] && DTypeBytes(in.dtype) >= DTypeBytes(p.code[in.src[0]].dtype);
    }
  }
  for (size_t i = end + 1; i < p.code.size(); ++i)  // a per-lane value has no single value after the loop
    for (int k = 0; k < p.code[i].num_src; ++k)
      if (varying[p.code[i].src[k]]) return false;
  for (int32_t i = l; i < end; ++i) {
    out->lane_loop[i] = l;
    out->varying[i] = varying[i];
    out->stride1[i] = stride1[i] && IsInt(p.code[i].dtype);
    out->lane_op[i] = varying[i] || p.code[i].op == Op::kSTORE;
  }
  out->lane_loop[end] = l;
  return true;
}

// The candidates: for each deepest all-parallel RANGE, the loop of its all-parallel chain that fills
// the most lanes of a block, the deepest of equals (whose index is usually the contiguous one). The
// heuristic's loop order puts short loops innermost (a 3x3 window, a batch split for the cores): a block
// of 9 lanes of 64 would pay for 64.
std::vector<int32_t> Candidates(const Program& p, const Nesting& nest) {
  std::vector<uint8_t> has_parallel_child(p.code.size(), 0);
  for (size_t i = 0; i < p.code.size(); ++i)
    if (p.code[i].op == Op::kRANGE && nest.all_parallel[i] && nest.parent[i] >= 0) has_parallel_child[nest.parent[i]] = 1;
  std::vector<int32_t> picks;
  for (size_t i = 0; i < p.code.size(); ++i) {
    if (p.code[i].op != Op::kRANGE || !nest.all_parallel[i] || has_parallel_child[i]) continue;
    int32_t best = -1;
    int64_t best_fill = 0;
    for (int32_t r = static_cast<int32_t>(i); r >= 0 && nest.all_parallel[r]; r = nest.parent[r]) {
      if (p.code[r].dtype != DType::ki32) continue;  // lane registers count in i32; an i64 loop runs uniform
      if (const int64_t fill = LanesFilled(p, r); fill > best_fill) best = r, best_fill = fill;
    }
    if (best >= 0) picks.push_back(best);
  }
  return picks;
}

bool Inside(const Nesting& nest, int32_t line, int32_t range) {
  for (int32_t r = nest.parent[line]; r >= 0; r = nest.parent[r])
    if (r == range) return true;
  return false;
}

}  // namespace

std::vector<uint32_t> ValueSources(const Program& p, uint32_t line) {
  const Instr& in = p.code[line];
  if (in.op == Op::kLOAD || in.op == Op::kSTORE) {
    const Instr& index = p.code[in.src[0]];
    std::vector<uint32_t> s{index.src[1], index.src[2]};
    if (in.op == Op::kSTORE) s.push_back(in.src[1]);
    return s;
  }
  if (in.op == Op::kINDEX) return {in.src[1], in.src[2]};
  return std::vector<uint32_t>(in.src, in.src + in.num_src);
}

LaneLoops FindLaneLoops(const Program& p) {
  const size_t n = p.code.size();
  LaneLoops out;
  out.end_of.assign(n, -1);
  out.lane_loop.assign(n, -1);
  out.varying.assign(n, 0);
  out.lane_op.assign(n, 0);
  out.stride1.assign(n, 0);
  out.broadcast.assign(n, 0);
  const Nesting nest = Nest(p, &out.end_of);
  std::vector<int32_t> picks = Candidates(p, nest);
  std::sort(picks.begin(), picks.end());
  picks.erase(std::unique(picks.begin(), picks.end()), picks.end());
  for (int32_t r : picks) {
    bool nested = false;  // inside a loop already chosen (a parent picked for a short sibling)
    for (int32_t other : picks) nested |= other != r && Inside(nest, r, other);
    if (nested) continue;
    for (int32_t l = r; l >= 0 && nest.all_parallel[l]; l = nest.parent[l]) {
      if (out.lane_loop[l] >= 0) break;  // a sibling already fell back to this parent
      bool holds_chosen = false;          // lane loops do not nest
      for (int32_t chosen : out.loops) holds_chosen |= Inside(nest, chosen, l);
      if (holds_chosen) break;
      if (MarkVarying(p, l, &out)) {
        out.loops.push_back(l);
        break;
      }
    }
  }
  std::sort(out.loops.begin(), out.loops.end());
  for (size_t i = 0; i < n; ++i) {
    if (!out.lane_op[i]) continue;
    const Op op = p.code[i].op;
    if (op == Op::kDEFINE_ACC || op == Op::kASSIGN) continue;  // a uniform value is broadcast straight in
    for (uint32_t s : ValueSources(p, static_cast<uint32_t>(i)))
      if (!out.varying[s]) out.broadcast[s] = 1;
  }
  return out;
}

}  // namespace tg_cpu::uops
