#include "compiler/codegen/heuristic.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "compiler/codegen/cache_blocking.h"
#include "compiler/codegen/reduce_chains.h"
#include "compiler/codegen/vector_memory.h"
#include "ir/env.h"
#include "ir/error.h"

namespace tg::compiler {
namespace {

struct Access {
  UOpRef index;  // linear element index
  bool is_store;
};

std::vector<Access> Accesses(const UOpRef& ast) {
  std::vector<Access> out;
  for (const UOpRef& u : ast->toposort()) {
    if (u->op() == Ops::kLoad) out.push_back({u->src(0)->src(1), false});
    if (u->op() == Ops::kStore) out.push_back({u->src(0)->src(1), true});
  }
  return out;
}

int FindAxis(const Kernel& k, const UOpRef& range) {
  for (size_t i = 0; i < k.axes().size(); ++i)
    if (k.axes()[i].range == range) return static_cast<int>(i);
  return -1;
}

DType StoredDType(const UOpRef& ast) { return ast->src(0)->src(0)->dtype(); }

// SIMD along an output axis the store walks contiguously (elementwise kernels, matmul columns).
bool UpcastContiguousOutput(Kernel& k, int lanes) {
  const Access store = Accesses(k.ast()).back();
  for (int i = static_cast<int>(k.axes().size()) - 1; i >= 0; --i) {
    const auto& a = k.axes()[i];
    if (a.type != AxisType::kGlobal && a.type != AxisType::kLoop) continue;
    if (a.extent() % lanes != 0 || Kernel::Stride(store.index, a.range) != 1) continue;
    k.Apply({OptOp::kUpcast, i, lanes});
    return true;
  }
  return false;
}

// The vector width for a reduce of |extent| along its vectors: each output then takes extent / w
// vector steps and, at the end, a sum of its w lanes in order (w extracts and w adds). A short reduce
// (a 64-wide model's inner products) spends more on that sum than on its steps at the widest vector,
// so the width balances the two: the fewest steps plus lane-sum work, the wider on a tie.
int ReduceVectorWidth(int64_t extent, int lanes) {
  constexpr int kNarrowest = 4, kLaneSumOpsPerLane = 2;
  int best = lanes;
  auto cost = [&](int w) { return extent / w + kLaneSumOpsPerLane * w; };
  for (int w = lanes / 2; w >= kNarrowest; w /= 2)
    if (extent % w == 0 && cost(w) < cost(best)) best = w;
  return best;
}

// SIMD along a reduce axis the loads walk contiguously (row sums, softmax, full reductions): the first
// such axis of every REDUCE the kernel holds. Two reduces fused side by side (a SwiGLU's gate and up
// projections, each over the model width) each get their vectors; the second one left scalar ran the
// whole kernel at 6 GB/s (W12's decode).
bool UnrollContiguousReduce(Kernel& k, int lanes) {
  std::vector<std::pair<int, int>> unrolls;  // axis, width
  std::vector<const UOp*> vectorized;
  for (size_t i = 0; i < k.axes().size(); ++i) {
    const auto& a = k.axes()[i];
    if (a.type != AxisType::kReduce || a.extent() % lanes != 0) continue;
    const UOp* reduce = k.ReduceOf(a.range);
    if (std::find(vectorized.begin(), vectorized.end(), reduce) != vectorized.end()) continue;
    bool contiguous = false;
    for (const Access& acc : Accesses(k.ast()))
      if (!acc.is_store && Kernel::Stride(acc.index, a.range) == 1) contiguous = true;
    if (!contiguous) continue;
    unrolls.emplace_back(static_cast<int>(i), ReduceVectorWidth(a.extent(), lanes));
    vectorized.push_back(reduce);
    if (reduce == nullptr) break;  // not one reduce's own loop: the first axis only, as before
  }
  // From the last axis back, so a split never moves an axis still to be split.
  for (auto it = unrolls.rbegin(); it != unrolls.rend(); ++it) k.Apply({OptOp::kUnroll, it->first, it->second});
  return !unrolls.empty();
}

// Work each output of a reduce sums over: weight gradients sum a whole batch (x spatial) into a
// small output, so each output's loop is long and a few groups already keep every core busy.
int64_t ReduceLength(const Kernel& k) {
  int64_t n = 1;
  for (const auto& a : k.axes())
    if (a.type == AxisType::kReduce || a.type == AxisType::kUnroll) n *= a.extent();
  return n;
}

// How many groups the global axis must keep after a register tile takes a slice of it: four per
// core balance short groups; long reduces need only one per core.
int64_t MinGroups(const Kernel& k, const Target& target) {
  constexpr int64_t kLongReduce = 4096;
  return ReduceLength(k) >= kLongReduce ? target.cores : target.cores * 4;
}

bool LeavesEnoughGroups(const Kernel& k, const Kernel::Axis& a, int64_t amount, const Target& target) {
  return a.type != AxisType::kGlobal || a.extent() / amount >= MinGroups(k, target);
}

bool SomeLoadReuses(const Kernel& k, const UOpRef& range) {
  for (const Access& acc : Accesses(k.ast()))
    if (!acc.is_store && Kernel::Stride(acc.index, range) == 0) return true;
  return false;
}

// Loads that a vector along |range| would have to gather lane by lane (stride neither 0 nor 1).
int Gathers(const Kernel& k, const UOpRef& range) {
  int n = 0;
  for (const Access& acc : Accesses(k.ast())) {
    if (acc.is_store) continue;
    std::optional<int64_t> stride = Kernel::Stride(acc.index, range);
    n += !stride || (*stride != 0 && *stride != 1);
  }
  return n;
}

// Share of the FMA units' width a vector along |extent| keeps busy: full |lanes| vectors over the
// extent padded to a multiple of them, or the widest vector of at least 4 lanes that divides it
// unpadded (0 when none does: the axis would run scalar).
double PaddedShare(int64_t extent, int lanes) {
  int64_t padded = (extent + lanes - 1) / lanes * lanes;
  return static_cast<double>(extent) / static_cast<double>(padded);
}

double UnpaddedShare(int64_t extent, int lanes) {
  for (int w = lanes; w >= 4; w /= 2)
    if (extent % w == 0) return static_cast<double>(w) / lanes;
  return 0;
}

bool LoadContiguousVectorFits(const Kernel& k, size_t i, int width, const Target& target);  // below

// The largest share of the FMA width that unpadded vectors along an output axis other than
// |padded_axis|, read contiguously by some load, would keep busy (0 when none takes 4 lanes).
double UnpaddedShareElsewhere(const Kernel& k, size_t padded_axis, int lanes, const Target& target) {
  for (int w = lanes; w >= 4; w /= 2)
    for (size_t j = 0; j < k.axes().size(); ++j)
      if (j != padded_axis && LoadContiguousVectorFits(k, j, w, target)) return static_cast<double>(w) / lanes;
  return 0;
}

// A reduce's contiguous output axis that the full SIMD width does not divide (conv2d's 56 columns on
// AVX-512, a small feature map's 18 or 9) is padded to a multiple of it when that keeps more of the
// FMA units busy than the widest unpadded vector would, at least half of them, and the vector gathers
// no more loads than one along a reduce axis would: a multiply-add on 16 lanes with 8 of every 64
// masked off does 87.5% useful work, one on 8 lanes half of what the FMA units can (they take either
// width at the same rate), and 18 columns in 32 lanes still do 56% where scalar code does 6%.
// Measured on W4: 1.27x with LLVM's masked loads and stores; 0.82x with C's, which test every lane
// first. Padding that masks more than an eighth also yields to another output axis that some load
// walks contiguously, unpadded, at a width that keeps as many lanes busy (a weight gradient's 16
// output channels against its 9 taps: 2.4x faster).
bool PadContiguousOutput(Kernel& k, int lanes, const Target& target) {
  constexpr double kMinShare = 0.5, kCheapShare = 7.0 / 8;
  if (!target.masked_vectors || k.RangesOf(AxisType::kReduce).empty()) return false;
  const Access store = Accesses(k.ast()).back();
  for (int i = static_cast<int>(k.axes().size()) - 1; i >= 0; --i) {
    const auto& a = k.axes()[i];
    if (a.type != AxisType::kGlobal && a.type != AxisType::kLoop) continue;
    if (Kernel::Stride(store.index, a.range) != 1) continue;
    double share = PaddedShare(a.extent(), lanes);
    if (a.extent() % lanes == 0 || share < kMinShare || share <= UnpaddedShare(a.extent(), lanes)) return false;
    if (share < kCheapShare && share <= UnpaddedShareElsewhere(k, i, lanes, target)) return false;
    if (Gathers(k, a.range) > 0) return false;  // a strided input: the padded lanes would be gathered too
    for (const auto& r : k.axes())
      if (r.type == AxisType::kReduce && r.extent() % lanes == 0 && Gathers(k, r.range) < Gathers(k, a.range)) return false;
    k.Apply({OptOp::kPadTo, i, lanes});
    k.Apply({OptOp::kUpcast, i, lanes});
    return true;
  }
  return false;
}

// A tile's short reduce axes (a convolution's 3 x 3 taps) run unrolled: each tap's loop step costs
// its compare, branch and gate masks against a dozen multiply-adds, and unrolled the taps' masks and
// addresses fold to constants. Measured on W4: 1.26x. The innermost axes first, up to nine copies
// of the tile's body (a 5 x 5 kernel unrolls its columns only), and only inside a reduce loop that
// stays (the input channels): a reduce that is all short axes has nothing to overlap. Not where the
// vectors gather (a strided convolution): nine copies of a gather per lane compiled for 2 s.
void UnrollShortReduces(Kernel& k) {
  constexpr int64_t kShortAxis = 5, kMaxCopies = 9;
  for (const auto& a : k.axes())
    if (a.type == AxisType::kUpcast) {
      if (Gathers(k, a.range) > 0) return;
      break;
    }
  std::vector<int> taps;
  int64_t copies = 1;
  bool loop_stays = false;
  for (int i = static_cast<int>(k.axes().size()) - 1; i >= 0; --i) {
    const auto& a = k.axes()[i];
    if (a.type != AxisType::kReduce) continue;
    if (loop_stays || a.extent() > kShortAxis || copies * a.extent() > kMaxCopies) {
      loop_stays = true;
      continue;
    }
    copies *= a.extent();
    taps.push_back(i);
  }
  if (!loop_stays) return;
  for (int i : taps) k.Apply({OptOp::kUnroll, i, static_cast<int>(k.axes()[i].extent())});
}

// SIMD along an output axis of a reduce that the loads walk contiguously while the store does
// not (a weight gradient of channels-last activations, stored in the weight's (out, in) order): the
// reduce runs on vectors and only the final store goes lane by lane. The widest width that leaves
// the threads their groups.
// Whether a |width|-lane vector along output axis |i| reads some load contiguously, gathers none
// lane by lane and leaves the threads their groups.
bool LoadContiguousVectorFits(const Kernel& k, size_t i, int width, const Target& target) {
  const auto& a = k.axes()[i];
  if (a.type != AxisType::kGlobal && a.type != AxisType::kLoop) return false;
  if (a.extent() % width != 0 || !LeavesEnoughGroups(k, a, width, target) || Gathers(k, a.range) > 0)
    return false;
  for (const Access& acc : Accesses(k.ast()))
    if (!acc.is_store && Kernel::Stride(acc.index, a.range) == 1) return true;
  return false;
}

bool UpcastLoadContiguousOutput(Kernel& k, int lanes, const Target& target) {
  if (k.RangesOf(AxisType::kReduce).empty()) return false;
  for (int width = lanes; width >= 4; width /= 2)
    for (size_t i = 0; i < k.axes().size(); ++i)
      if (LoadContiguousVectorFits(k, i, width, target)) {
        k.Apply({OptOp::kUpcast, static_cast<int>(i), width});
        return true;
      }
  return false;
}

// Float values the kernel computes that move with one output axis and no other: a fused elementwise
// chain (an activation's or a normalization's backward feeding a weight gradient) moves with its own
// output axis only, and in a tile it is computed once per step of that axis. The final product of
// the two operands moves with both and is the same work whichever axis the vectors take, so it does
// not count for either.
std::vector<int> ValueWorkAlongOutputs(const Kernel& k) {
  std::vector<int> work(k.axes().size(), 0);
  auto is_output = [&](size_t i) {
    return k.axes()[i].type == AxisType::kGlobal || k.axes()[i].type == AxisType::kLoop;
  };
  absl::flat_hash_map<const UOp*, std::vector<bool>> moves;
  for (const UOpRef& u : k.ast()->toposort()) {
    std::vector<bool> m(k.axes().size(), false);
    for (size_t i = 0; i < k.axes().size(); ++i) m[i] = u == k.axes()[i].range;
    for (const UOpRef& s : u->src())
      for (size_t i = 0; i < m.size(); ++i) m[i] = m[i] || moves.at(s.get())[i];
    bool value = (IsAlu(u->op()) || u->op() == Ops::kLoad) && u->dtype().is_float();
    int outputs_moved = 0;
    for (size_t i = 0; i < m.size(); ++i) outputs_moved += m[i] && is_output(i);
    for (size_t i = 0; i < m.size() && value && outputs_moved == 1; ++i) work[i] += m[i] && is_output(i);
    moves[u.get()] = std::move(m);
  }
  return work;
}

// In a reduce tiled as vector x rows, what moves with the rows only is computed once per row and
// what moves with the vector axis once per vector. When an expensive operand moves with an output
// axis the store does not walk, the vectors go along that axis instead, when its loads are
// contiguous (measured: gathered lanes cost more than the scalar chain saves). Only for the two
// output axes of a weight gradient, where the rows are the stored axis the chain does not move with
// (measured: an attention kernel's four output axes tiled so ran 2x slower).
bool UpcastCostlyOutput(Kernel& k, int lanes, const Target& target) {
  constexpr int kCostlier = 4;
  if (k.RangesOf(AxisType::kReduce).empty()) return false;
  if (k.RangesOf(AxisType::kGlobal).size() + k.RangesOf(AxisType::kLoop).size() != 2) return false;
  const Access store = Accesses(k.ast()).back();
  std::vector<int> work = ValueWorkAlongOutputs(k);
  int stored_work = -1;
  for (size_t i = 0; i < k.axes().size(); ++i)
    if (Kernel::Stride(store.index, k.axes()[i].range) == 1) stored_work = work[i];
  if (stored_work < 0) return false;
  for (int width = lanes; width >= 4; width /= 2)
    for (size_t i = 0; i < k.axes().size(); ++i)
      if (work[i] >= kCostlier * std::max(stored_work, 1) && LoadContiguousVectorFits(k, i, width, target)) {
        k.Apply({OptOp::kUpcast, static_cast<int>(i), width});
        return true;
      }
  return false;
}

// Vector registers the output tile of |k| holds: the expanded output axes' extents with the first
// one (the SIMD axis) counted as one register.
int64_t TileRegisters(const Kernel& k) {
  int64_t n = 1;
  bool first = true;
  for (const auto& a : k.axes()) {
    if (a.type != AxisType::kUpcast && a.type != AxisType::kUnroll) continue;
    if (a.type == AxisType::kUpcast && !first) n *= a.extent();
    first = false;
  }
  return n;
}

// Accumulators a tile may hold: half the vector register file (AVX-512's 32, AVX2's 16 registers),
// the rest for the loaded operands.
int64_t AccumulatorBudget(const Target& target) { return target.vector_bytes >= 64 ? 16 : 8; }

// A vector tile narrower than the register budget takes more rows of a reused output axis: each
// loaded vector then serves that many broadcast values (a weight gradient's 784 columns, 49 vectors,
// leave no second vector per row; its rows are the tile).
void FillRegisterTile(Kernel& k, const Target& target) {
  if (k.RangesOf(AxisType::kReduce).empty()) return;
  for (size_t i = 0; i < k.axes().size(); ++i) {
    const auto& a = k.axes()[i];
    if (a.type != AxisType::kGlobal && a.type != AxisType::kLoop) continue;
    if (!SomeLoadReuses(k, a.range)) continue;
    int64_t room = AccumulatorBudget(target) / TileRegisters(k);
    for (int64_t d = std::min(room, a.extent()); d >= 2; --d)
      if (a.extent() % d == 0 && LeavesEnoughGroups(k, a, d, target))
        return k.Apply({OptOp::kUpcast, static_cast<int>(i), d});
  }
}

// Register tiling for kernels that reduce: an output axis that some load does not move along
// (stride 0) lets one loaded value serve several outputs, as a row of A serves a matmul tile.
// The global axis is skipped when a quarter of it would leave the threads too few groups (conv2d's
// batch of 8: the output channels are the better tile there, reusing each gathered input load).
void UpcastReusedOutput(Kernel& k, const Target& target) {
  if (k.RangesOf(AxisType::kReduce).empty()) return;
  for (size_t i = 0; i < k.axes().size(); ++i) {
    const auto& a = k.axes()[i];
    if (a.type != AxisType::kGlobal && a.type != AxisType::kLoop) continue;
    if (a.extent() % 4 != 0 || a.extent() < 8 || !LeavesEnoughGroups(k, a, 4, target)) continue;
    if (SomeLoadReuses(k, a.range)) return k.Apply({OptOp::kUpcast, static_cast<int>(i), 4});
  }
}

// A matrix-vector product: the only loads reused across outputs are the vector itself, the same for
// every output. A register tile over the matrix rows would save only that vector's loads, which L1
// serves anyway, and it reads the rows as interleaved streams: a decoder's int8 weights (768-byte
// rows) streamed from memory at half the rate of one row after another (tools/bench/RESULTS.md).
bool MultipliesOneVector(const Kernel& k) {
  std::vector<UOpRef> outputs = k.RangesOf(AxisType::kGlobal);
  for (const UOpRef& r : k.RangesOf(AxisType::kLoop)) outputs.push_back(r);
  bool reused = false;
  for (const Access& acc : Accesses(k.ast())) {
    if (acc.is_store) continue;
    int moves = 0, still = 0;
    for (const UOpRef& r : outputs) {
      std::optional<int64_t> stride = Kernel::Stride(acc.index, r);
      (stride && *stride == 0 ? still : moves) += 1;
    }
    if (still > 0 && moves > 0) return false;  // reused along one output, moving with another: a matrix
    reused = reused || still > 0;
  }
  return reused;
}

// An inner-product kernel (x @ W.T: both operands walk the vectorized reduce axis) whose rows already
// reuse one operand's vector gets a second output axis that reuses the other's: a 4 x 4 tile loads 8
// vectors per 16 multiply-adds instead of 5 per 4. The second axis is one the first tile's operand
// moves along (so not a further slice of the rows' axis).
void UpcastSecondReusedOutput(Kernel& k, const Target& target) {
  constexpr int64_t kRows = 4;
  const Kernel::Axis* rows = nullptr;
  for (const auto& a : k.axes())
    if (a.type == AxisType::kUpcast) rows = &a;
  if (rows == nullptr || rows->extent() * kRows > AccumulatorBudget(target)) return;
  for (size_t i = 0; i < k.axes().size(); ++i) {
    const auto& a = k.axes()[i];
    if (a.type != AxisType::kGlobal && a.type != AxisType::kLoop) continue;
    if (a.extent() % kRows != 0 || a.extent() < 2 * kRows || !LeavesEnoughGroups(k, a, kRows, target)) continue;
    for (const Access& acc : Accesses(k.ast())) {
      if (acc.is_store || Kernel::Stride(acc.index, a.range) != 0) continue;
      std::optional<int64_t> along_rows = Kernel::Stride(acc.index, rows->range);
      if (along_rows && *along_rows != 0) return k.Apply({OptOp::kUpcast, static_cast<int>(i), kRows});
    }
  }
}

// With two vectors per row, the tile takes 8 rows: 16 accumulators of AVX-512's 32 registers (BEAM's
// winner for W1, 2.8x the 4-row tile at 2048). The rows' axis is the one the first tile split.
void DeepenRowTile(Kernel& k, const Target& target) {
  const auto& applied = k.applied();
  if (applied.size() < 3) return;
  const Opt& rows = applied[applied.size() - 2];
  const Opt& widen = applied.back();
  if (rows.op != OptOp::kUpcast || rows.amount != 4 || widen.op != OptOp::kUpcast || widen.amount != 2) return;
  const auto& a = k.axes()[rows.axis];
  if (a.extent() % 2 != 0 || (a.type == AxisType::kGlobal && a.extent() / 2 < target.cores * 4)) return;
  k.Apply({OptOp::kUpcast, rows.axis, 2});
}

// A second vector of outputs per row of the tile: two accumulators per loaded broadcast value.
void WidenVectorTile(Kernel& k, int lanes) {
  if (k.RangesOf(AxisType::kReduce).empty()) return;
  const Access store = Accesses(k.ast()).back();
  for (size_t i = 0; i < k.axes().size(); ++i) {
    const auto& a = k.axes()[i];
    if (a.type != AxisType::kGlobal && a.type != AxisType::kLoop) continue;
    if (a.extent() % 2 != 0 || Kernel::Stride(store.index, a.range) != lanes) continue;
    return k.Apply({OptOp::kUpcast, static_cast<int>(i), 2});
  }
}

// A reduce whose tile holds few accumulators adds each loaded value into the same register: one
// dependent add per iteration, so the add's latency bounds the loop, not the loads (a batch norm's
// per-channel sums over batch x spatial into 16 outputs, one vector). Unrolling a reduce axis sums
// several loaded values apart before each accumulator add. The innermost reduce axis, whose copies
// read neighbouring addresses.
void UnrollLatencyBoundReduce(Kernel& k) {
  constexpr int64_t kAddsInFlight = 8, kMinReduce = 256;
  for (const auto& a : k.axes())
    if (a.type == AxisType::kUnroll) return;
  if (ReduceLength(k) < kMinReduce) return;
  int64_t accumulators = TileRegisters(k);
  if (accumulators >= kAddsInFlight / 2) return;
  for (int i = static_cast<int>(k.axes().size()) - 1; i >= 0; --i) {
    const auto& a = k.axes()[i];
    if (a.type != AxisType::kReduce) continue;
    for (int64_t d = kAddsInFlight / accumulators; d >= 2; --d)
      if (a.extent() % d == 0 && a.extent() / d >= 2) return k.Apply({OptOp::kUnroll, i, d});
    return;
  }
}

// The iterations a group runs: its other output axes times its reduce loops. The axes of one reduce
// nest, so they multiply; reduces side by side (a SwiGLU's gate and up rows) loop one after the other,
// so their lengths add.
int64_t WorkPerGroup(const Kernel& k) {
  int64_t outputs = 1;
  absl::flat_hash_map<const UOp*, int64_t> reduce_length;
  for (const auto& a : k.axes()) {
    if (a.type == AxisType::kGlobal) continue;
    if (const UOp* reduce = k.ReduceOf(a.range)) {
      reduce_length.try_emplace(reduce, 1).first->second *= a.extent();
    } else {
      outputs *= a.extent();
    }
  }
  int64_t reduces = reduce_length.empty() ? 1 : 0;
  for (const auto& [reduce, length] : reduce_length) reduces += length;
  return outputs * reduces;
}

// Below this many iterations a group does not pay for its dispatch to another thread.
constexpr int64_t kMinWorkPerGroup = 8192;

// A kernel with too little work for two such groups runs as one: handing half of a 768-element
// add to the other core and waiting for it takes longer than doing it all (a decoder's per-token
// norms and head reshapes, a small CNN's pooled features: 10 us a launch where one group is 1).
bool RunInOneGroup(Kernel& k) {
  int64_t total = 1;
  for (const auto& a : k.axes()) total *= a.extent();
  if (total >= 2 * kMinWorkPerGroup) return false;
  for (auto globals = k.RangesOf(AxisType::kGlobal); !globals.empty(); globals = k.RangesOf(AxisType::kGlobal)) {
    int axis = FindAxis(k, globals.front());
    k.Apply({OptOp::kThread, axis, k.axes()[axis].extent()});
  }
  return true;
}

// Groups too small to pay for their dispatch take a slice of the global axis as a loop.
void CoarsenGroups(Kernel& k, const Target& target) {
  if (target.cores > 1 && RunInOneGroup(k)) return;
  auto globals = k.RangesOf(AxisType::kGlobal);
  if (globals.empty()) return;
  int axis = FindAxis(k, globals.front());
  int64_t extent = k.axes()[axis].extent(), work = WorkPerGroup(k);
  for (int64_t d = 2; d <= extent; ++d) {
    if (extent % d != 0) continue;
    if (extent / d < target.cores * 4) return;
    if (work * d >= kMinWorkPerGroup) return k.Apply({OptOp::kThread, axis, d});
  }
}

// GPU: a reduce into few outputs (a sum to a scalar, a norm's row statistics) would leave most of the
// device idle with one work item an output; its first reduce axis is shared by a group instead,
// 256 work items where the outputs are very few, else 16 (tinygrad's choice: GROUPTOP). Not where a
// group's items run one after another (a CPU's OpenCL): there it only adds barriers (W3a on PoCL:
// 1.8x slower), unless GROUP_SERIAL=1 asks for it anyway, so the test suites run grouped kernels on PoCL.
void GroupSmallOutputReduce(Kernel& k, const Target& target) {
  if (!target.shared_memory || !(target.parallel_group_items || GetEnvInt("GROUP_SERIAL", 0) != 0)) return;
  int64_t outputs = 1;
  int reduce = -1;
  for (size_t i = 0; i < k.axes().size(); ++i) {
    const auto& a = k.axes()[i];
    if (a.type == AxisType::kGlobal || a.type == AxisType::kLoop) outputs *= a.extent();
    if (a.type == AxisType::kReduce && reduce < 0) reduce = static_cast<int>(i);
  }
  constexpr int64_t kFewOutputs = 2048, kVeryFewOutputs = 32;
  if (reduce < 0 || outputs > kFewOutputs) return;
  for (int64_t amount : outputs <= kVeryFewOutputs ? std::vector<int64_t>{256, 16} : std::vector<int64_t>{16}) {
    if (k.axes()[reduce].extent() % amount != 0) continue;
    try {
      k.Apply({OptOp::kGroupTop, reduce, amount});
      return;
    } catch (const Error&) {  // too many work items or too little local memory for this amount
    }
  }
}

// GPU: each work item takes a 16-byte vector of the output the store writes contiguously (float4,
// half8), its loads and store joined by codegen/vector_memory, where the axis leaves work items for
// a group.
void UpcastForVectorMemory(Kernel& k, const Target& target) {
  int64_t width = VectorMemoryLanes(StoredDType(k.ast()));
  if (!target.vector_memory || width == 0) return;
  const Access store = Accesses(k.ast()).back();
  for (int i = static_cast<int>(k.axes().size()) - 1; i >= 0; --i) {
    const auto& a = k.axes()[i];
    if (a.type != AxisType::kGlobal || Kernel::Stride(store.index, a.range) != 1) continue;
    if (a.extent() % width == 0 && a.extent() / width >= 32) k.Apply({OptOp::kUpcast, i, width});
    return;
  }
}

// GPU: a matmul in half or bfloat16 runs on the target's matrix instructions when its axes take the
// tile, the innermost reduce axis first (TC=0 keeps them off, as in tinygrad).
bool UseTensorCores(Kernel& k, const Target& target) {
  if (target.tensor_cores.empty() || GetEnvInt("TC", 1) == 0) return false;
  for (int axis = static_cast<int>(k.axes().size()) - 1; axis >= 0; --axis) {
    if (k.axes()[axis].type != AxisType::kReduce) continue;
    for (size_t tc = 0; tc < target.tensor_cores.size(); ++tc) {
      try {
        k.Apply({OptOp::kTc, axis, static_cast<int64_t>(tc)});
        return true;
      } catch (const Error&) {  // not this instruction's dtypes or tile
      }
    }
  }
  return false;
}

// GPU: the innermost grid axis runs as work items of a group, so neighbouring items touch
// neighbouring memory (coalesced) and the group fills a warp or more.
void AddLocalGroup(Kernel& k, const Target& target) {
  auto globals = k.RangesOf(AxisType::kGlobal);
  if (globals.empty()) return;
  int axis = FindAxis(k, globals.back());
  int64_t extent = k.axes()[axis].extent(), amount = 1;
  int64_t room = std::min<int64_t>(256, target.max_group_threads) / k.GroupThreads();
  while (amount * 2 <= room && extent % (amount * 2) == 0) amount *= 2;
  if (amount > 1) k.Apply({OptOp::kLocal, axis, amount});
}

// GPU: tensor cores for a matmul, else a group for a reduce into few outputs; 16-byte accesses where
// neither applied; then the group's work items.
void ApplyGpuHeuristic(Kernel& k, const Target& target) {
  if (!UseTensorCores(k, target)) GroupSmallOutputReduce(k, target);
  if (k.applied().empty()) UpcastForVectorMemory(k, target);
  AddLocalGroup(k, target);
}

}  // namespace

// Loads gathered lane by lane by a vector along the output axis the store walks contiguously, when
// that axis takes |output_lanes|, and along the first reduce axis that takes |reduce_lanes|; -1
// where no axis takes the width.
struct VectorGathers {
  int output = -1, reduce = -1;
};

VectorGathers GathersAlongOutputAndReduce(const Kernel& k, int reduce_lanes, int output_lanes) {
  const Access store = Accesses(k.ast()).back();
  VectorGathers g;
  for (const auto& a : k.axes()) {
    bool output = (a.type == AxisType::kGlobal || a.type == AxisType::kLoop) && Kernel::Stride(store.index, a.range) == 1;
    if (output && g.output < 0 && a.extent() % output_lanes == 0) g.output = Gathers(k, a.range);
    if (a.type == AxisType::kReduce && g.reduce < 0 && a.extent() % reduce_lanes == 0) g.reduce = Gathers(k, a.range);
  }
  return g;
}

// Vectorizing the output makes the loads along it vectors or gathers; vectorizing a reduce axis
// the loads walk contiguously makes them plain vector loads (x @ W.T's inner products). Pick the
// output unless the reduce axis gathers less.
bool ReduceVectorizesBetter(const Kernel& k, int lanes) {
  VectorGathers g = GathersAlongOutputAndReduce(k, lanes, lanes);
  return g.reduce >= 0 && (g.output < 0 || g.reduce < g.output);
}

// A reduce axis that gathers more loads than a narrower output vector would (a convolution whose
// per-channel input scale is the one load contiguous along its channels while the input itself is a
// channel plane apart, and whose 72 columns AVX-512's 16 lanes do not divide) waits for that width.
bool ReduceWaitsForNarrowerOutput(const Kernel& k, int lanes, int narrowest) {
  if (narrowest >= lanes) return false;
  VectorGathers g = GathersAlongOutputAndReduce(k, lanes, narrowest);
  return g.reduce >= 0 && g.output >= 0 && g.reduce > g.output;
}

void ApplyHeuristic(Kernel& k, const Target& target) {
  if (target.gpu) return ApplyGpuHeuristic(k, target);
  int lanes = std::clamp(target.vector_bytes / std::max(StoredDType(k.ast()).itemsize(), 1), 1, 16);
  // The full SIMD width first; an axis it does not divide (conv2d's 56 columns) still gets
  // narrower vectors and the register tile over the reused axis.
  // (32-bit lanes only: bool masks and 64-bit selects do not vectorize at other widths.)
  DType stored = StoredDType(k.ast());
  // Only for kernels big enough to pay (tiny ones, e.g. scatter_reduce's 4 outputs, stay scalar).
  int64_t outputs = 1;
  for (const auto& a : k.axes())
    if (a.type == AxisType::kGlobal || a.type == AxisType::kLoop) outputs *= a.extent();
  bool lanes32 = stored.itemsize() == 4 && !stored.is_bool();
  bool narrower = lanes32 && outputs >= 4096;
  constexpr int kNarrowestVector = 4;
  constexpr int64_t kMinPaddedWork = int64_t{1} << 16;  // a small convolution's multiply-adds, and more
  bool tiled = target.vectors && lanes32 && UpcastCostlyOutput(k, lanes, target);
  if (tiled) UpcastReusedOutput(k, target);
  // No second vector per row on a padded axis: its unrolled taps then hold twice the input vectors
  // and spill (W4: 1.5x slower than one vector by 16 rows).
  bool enough_work = outputs * ReduceLength(k) >= kMinPaddedWork;
  if (!tiled && target.vectors && lanes32 && (narrower || enough_work) && PadContiguousOutput(k, lanes, target)) {
    UpcastReusedOutput(k, target);
    tiled = true;
  }
  for (int width = lanes; !tiled && target.vectors && width > 1 && (width == lanes || (narrower && width >= kNarrowestVector)); width /= 2) {
    if (!ReduceVectorizesBetter(k, width) && UpcastContiguousOutput(k, width)) {
      UpcastReusedOutput(k, target);
      WidenVectorTile(k, width);
      DeepenRowTile(k, target);
      tiled = true;
      break;
    }
    if (narrower && ReduceWaitsForNarrowerOutput(k, width, kNarrowestVector)) continue;
    if (UnrollContiguousReduce(k, width)) {
      if (MultipliesOneVector(k)) {
        ShortenReduceChain(k, target, kMinMatrixVectorSteps);
        break;
      }
      UpcastReusedOutput(k, target);
      UpcastSecondReusedOutput(k, target);
      ShortenReduceChain(k, target);
      break;
    }
  }
  if (!tiled && k.applied().empty() && target.vectors && stored.itemsize() == 4 && !stored.is_bool())
    tiled = UpcastLoadContiguousOutput(k, lanes, target);
  if (tiled) FillRegisterTile(k, target);
  if (tiled) UnrollShortReduces(k);
  if (tiled && BlockForCache(k, target)) return;
  UnrollLatencyBoundReduce(k);
  CoarsenGroups(k, target);
}

}  // namespace tg::compiler
