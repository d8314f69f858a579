#include "compiler/codegen/cache_blocking.h"

#include <algorithm>
#include <optional>

#include "ir/error.h"

namespace tg::compiler {
namespace {

bool IsOutput(AxisType t) { return t == AxisType::kGlobal || t == AxisType::kLoop; }

bool Moves(const UOpRef& index, const UOpRef& range) {
  std::optional<int64_t> stride = Kernel::Stride(index, range);
  return !stride || *stride != 0;
}

// The roles of a register-tiled reduce's axes as cache blocking sees them: |shared| is the operand
// every row tile reads the same slice of (B of A @ B: it moves with the reduce across rows, with
// the columns, and not with the rows).
struct TiledReduce {
  int reduce = -1, rows = -1, columns = -1;
  int64_t step_bytes = 0;  // what one reduce step of one tile reads of |shared|
};

// The index of the kernel's one store (its SINK also lists the buffers), or nullopt.
std::optional<UOpRef> StoreIndex(const UOpRef& ast) {
  std::optional<UOpRef> index;
  for (const UOpRef& s : ast->src()) {
    if (s->op() != Ops::kStore) continue;
    if (index) return std::nullopt;
    index = s->src(0)->src(1);
  }
  return index;
}

int64_t StoredItemSize(const Kernel& k) {
  for (const UOpRef& s : k.ast()->src())
    if (s->op() == Ops::kStore) return s->src(1)->dtype().itemsize();
  return 4;
}

// The axis of |type| along which |index| walks contiguously, or -1.
int ContiguousAxis(const Kernel& k, const UOpRef& index, AxisType type) {
  for (size_t i = 0; i < k.axes().size(); ++i)
    if (k.axes()[i].type == type && Kernel::Stride(index, k.axes()[i].range) == 1) return static_cast<int>(i);
  return -1;
}

// |load|'s roles when it is the shared operand of the tile whose vectors run along |vector|.
std::optional<TiledReduce> AsShared(const Kernel& k, const UOpRef& load, int vector, int reduce) {
  const UOpRef& index = load->src(0)->src(1);
  std::optional<int64_t> down = Kernel::Stride(index, k.axes()[reduce].range);
  if (Kernel::Stride(index, k.axes()[vector].range) != 1 || !down || *down == 0 || *down == 1) return std::nullopt;
  TiledReduce t;
  t.reduce = reduce;
  t.step_bytes = load->dtype().itemsize();
  for (size_t i = 0; i < k.axes().size(); ++i) {
    const Kernel::Axis& a = k.axes()[i];
    bool moves = Moves(index, a.range);
    if (IsOutput(a.type) && !moves && t.rows < 0) t.rows = static_cast<int>(i);
    if (IsOutput(a.type) && moves && t.columns < 0) t.columns = static_cast<int>(i);
    if ((a.type == AxisType::kUpcast && moves) || a.type == AxisType::kUnroll) t.step_bytes *= a.extent();
  }
  if (t.rows < 0 || t.columns < 0) return std::nullopt;
  return t;
}

std::optional<TiledReduce> FindTiledReduce(const Kernel& k) {
  std::vector<UOpRef> reduces = k.RangesOf(AxisType::kReduce);
  std::optional<UOpRef> store = StoreIndex(k.ast());
  if (reduces.size() != 1 || !store) return std::nullopt;
  int vector = ContiguousAxis(k, *store, AxisType::kUpcast);
  if (vector < 0) return std::nullopt;
  int reduce = 0;
  while (k.axes()[reduce].range != reduces[0]) ++reduce;
  for (const UOpRef& u : k.ast()->toposort())
    if (u->op() == Ops::kLoad)
      if (std::optional<TiledReduce> t = AsShared(k, u, vector, reduce)) return t;
  return std::nullopt;
}

// The largest divisor of |n| below it that is at most |most|, or 1.
int64_t LargestDivisor(int64_t n, int64_t most) {
  for (int64_t d = std::min(most, n - 1); d >= 2; --d)
    if (n % d == 0) return d;
  return 1;
}

bool Legal(const Kernel& k, const Opt& opt) {
  Kernel copy = k;
  try {
    copy.Apply(opt);
  } catch (const Error& e) {
      return false;
  }
  return true;
}

// The column tiles one group takes: as many as keep one block of them (|block_bytes| each) in a
// quarter of the second level (the rest holds the rows' slices and the outputs), leaving two groups
// per core to balance; 1 when no such count divides the tiles.
int64_t ColumnTilesPerGroup(int64_t tiles, int64_t block_bytes, const Target& target) {
  for (int64_t per_group = target.l2_bytes / 4 / block_bytes; per_group >= 2; --per_group)
    if (tiles % per_group == 0 && tiles / per_group >= 2 * target.cores) return per_group;
  return 1;
}

// Every block adds into the outputs the earlier blocks stored. When a group's outputs outgrow the
// second level, each block pass would fetch and store them from further out; a row block loop
// outside the block loop keeps a quarter of the second level of them cached across all the blocks.
// Returns the row tiles per row block, or 0 when the group's outputs fit (or no divisor does).
int64_t RowTilesPerBlock(const Kernel& k, const TiledReduce& t, int64_t per_group, const Target& target) {
  int64_t outputs = 1;
  for (const Kernel::Axis& a : k.axes())
    if (IsOutput(a.type) || a.type == AxisType::kUpcast) outputs *= a.extent();
  const int64_t row_tiles = k.axes()[t.rows].extent(), column_tiles = k.axes()[t.columns].extent();
  const int64_t group_bytes = outputs / (column_tiles / per_group) * StoredItemSize(k);
  if (group_bytes <= target.l2_bytes) return 0;
  const int64_t row_tile_bytes = group_bytes / row_tiles;
  for (int64_t d = std::min(row_tiles - 1, target.l2_bytes / 4 / row_tile_bytes); d >= 2; --d)
    if (row_tiles % d == 0) return d;
  return 0;
}

}  // namespace

bool BlockForCache(Kernel& k, const Target& target) {
  if (target.gpu || target.l1_bytes <= 0 || target.l2_bytes <= 0) return false;
  std::optional<TiledReduce> t = FindTiledReduce(k);
  // The threads split the rows or the columns (not a batch axis around them).
  if (!t || (t->rows != 0 && t->columns != 0) || k.axes()[0].type != AxisType::kGlobal) return false;
  const int64_t length = k.axes()[t->reduce].extent();
  // The slice under one tile already fits the first level: nothing to block. Blocks too short to
  // pay for re-reading and re-storing the outputs once per block are not worth it either.
  if (length * t->step_bytes <= target.l1_bytes || k.axes()[t->rows].extent() < 2) return false;
  // All of the shared operand fits the second level: the row sweep finds it there unblocked.
  if (length * t->step_bytes * k.axes()[t->columns].extent() <= target.l2_bytes) return false;
  int64_t block = LargestDivisor(length, target.l1_bytes / t->step_bytes);
  if (block * t->step_bytes * 8 < target.l1_bytes || !Legal(k, {OptOp::kBlock, t->reduce, block})) return false;
  const int64_t per_group = ColumnTilesPerGroup(k.axes()[t->columns].extent(), block * t->step_bytes, target);
  const int64_t rows_per_block = t->rows == 0 ? RowTilesPerBlock(k, *t, per_group, target) : 0;
  if (rows_per_block > 0) k.Apply({OptOp::kThread, t->rows, rows_per_block});
  if (k.axes()[t->rows].type == AxisType::kGlobal) k.Apply({OptOp::kSwap, t->rows, t->columns});
  if (per_group > 1) k.Apply({OptOp::kThread, 0, per_group});
  int reduce = 0;
  while (k.axes()[reduce].type != AxisType::kReduce) ++reduce;
  k.Apply({OptOp::kBlock, reduce, block});
  // The block loop lands outermost in the group; the row blocks go outside it.
  if (rows_per_block > 0) k.Apply({OptOp::kSwap, 1, 2});
  return true;
}

}  // namespace tg::compiler
