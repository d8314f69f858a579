#include "compiler/codegen/heuristic.h"

#include <algorithm>

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

// SIMD along a reduce axis the loads walk contiguously (row sums, softmax, full reductions).
bool UnrollContiguousReduce(Kernel& k, int lanes) {
  for (size_t i = 0; i < k.axes().size(); ++i) {
    const auto& a = k.axes()[i];
    if (a.type != AxisType::kReduce || a.extent() % lanes != 0) continue;
    bool contiguous = false;
    for (const Access& acc : Accesses(k.ast()))
      if (!acc.is_store && Kernel::Stride(acc.index, a.range) == 1) contiguous = true;
    if (!contiguous) continue;
    k.Apply({OptOp::kUnroll, static_cast<int>(i), lanes});
    return true;
  }
  return false;
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
    if (a.extent() % 4 != 0 || a.extent() < 8) continue;
    if (a.type == AxisType::kGlobal && a.extent() / 4 < target.cores * 4) continue;
    bool reused = false;
    for (const Access& acc : Accesses(k.ast()))
      if (!acc.is_store && Kernel::Stride(acc.index, a.range) == 0) reused = true;
    if (reused) return k.Apply({OptOp::kUpcast, static_cast<int>(i), 4});
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

int64_t WorkPerGroup(const Kernel& k) {
  int64_t work = 1;
  for (const auto& a : k.axes())
    if (a.type != AxisType::kGlobal) work *= a.extent();
  return work;
}

// Groups too small to pay for their dispatch take a slice of the global axis as a loop.
void CoarsenGroups(Kernel& k, const Target& target) {
  constexpr int64_t kMinWorkPerGroup = 8192;
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

}  // namespace

// GPU: the innermost grid axis runs as work items of a group, so neighbouring items touch
// neighbouring memory (coalesced) and the group fills a warp or more.
void AddLocalGroup(Kernel& k, const Target& target) {
  auto globals = k.RangesOf(AxisType::kGlobal);
  if (globals.empty()) return;
  int axis = FindAxis(k, globals.back());
  int64_t extent = k.axes()[axis].extent(), amount = 1;
  while (amount * 2 <= std::min<int64_t>(256, target.max_group_threads) && extent % (amount * 2) == 0) amount *= 2;
  if (amount > 1) k.Apply({OptOp::kLocal, axis, amount});
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

// Vectorizing the output makes the loads along it vectors or gathers; vectorizing a reduce axis
// the loads walk contiguously makes them plain vector loads (x @ W.T's inner products). Pick the
// output unless the reduce axis gathers less.
bool ReduceVectorizesBetter(const Kernel& k, int lanes) {
  const Access store = Accesses(k.ast()).back();
  int output_gathers = -1, reduce_gathers = -1;
  for (const auto& a : k.axes()) {
    if (a.extent() % lanes != 0) continue;
    bool output = (a.type == AxisType::kGlobal || a.type == AxisType::kLoop) && Kernel::Stride(store.index, a.range) == 1;
    if (output && output_gathers < 0) output_gathers = Gathers(k, a.range);
    if (a.type == AxisType::kReduce && reduce_gathers < 0) reduce_gathers = Gathers(k, a.range);
  }
  return reduce_gathers >= 0 && (output_gathers < 0 || reduce_gathers < output_gathers);
}

void ApplyHeuristic(Kernel& k, const Target& target) {
  if (target.gpu) return AddLocalGroup(k, target);
  int lanes = std::clamp(target.vector_bytes / std::max(StoredDType(k.ast()).itemsize(), 1), 1, 16);
  // The full SIMD width first; an axis it does not divide (conv2d's 56 columns) still gets
  // narrower vectors and the register tile over the reused axis.
  // (32-bit lanes only: bool masks and 64-bit selects do not vectorize at other widths.)
  DType stored = StoredDType(k.ast());
  // Only for kernels big enough to pay (tiny ones, e.g. scatter_reduce's 4 outputs, stay scalar).
  int64_t outputs = 1;
  for (const auto& a : k.axes())
    if (a.type == AxisType::kGlobal || a.type == AxisType::kLoop) outputs *= a.extent();
  bool narrower = stored.itemsize() == 4 && !stored.is_bool() && outputs >= 4096;
  for (int width = lanes; target.vectors && width > 1 && (width == lanes || (narrower && width >= 4)); width /= 2) {
    if (!ReduceVectorizesBetter(k, width) && UpcastContiguousOutput(k, width)) {
      UpcastReusedOutput(k, target);
      WidenVectorTile(k, width);
      DeepenRowTile(k, target);
      break;
    }
    if (UnrollContiguousReduce(k, width)) {
      UpcastReusedOutput(k, target);
      break;
    }
  }
  CoarsenGroups(k, target);
}

}  // namespace tg::compiler
