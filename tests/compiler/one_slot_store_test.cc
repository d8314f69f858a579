// One-slot stores: x.assign(where(r == e, v, x)) writes x behind the gate r == e; with e free of r the
// kernel stores at r = e without looping over r. Each case checks the loops the kernel keeps and the
// buffer after the update, positions outside the axis (which write nothing) included.
#include <algorithm>
#include <vector>

#include "compiler/codegen/codegen.h"
#include "compiler/schedule/schedule.h"
#include "compiler/target.h"
#include "frontend/tg.h"
#include "gtest/gtest.h"
#include "runtime/device_registry.h"

namespace tg::compiler {
namespace {

constexpr int kSlots = 6, kWidth = 4;

// The extents of the loops of the kernels that compute |t|, once codegen has started on them.
std::vector<int64_t> LoopExtents(const Tensor& t) {
  Schedule s = CreateSchedule({t.uop()}, {t.device()});
  const runtime::Device* device = runtime::DeviceRegistry::Global().GetDevice(t.device()).value();
  std::vector<int64_t> extents;
  for (const ScheduleItem& item : s.items) {
    if (item.kind != ScheduleItem::Kind::kKernel) continue;
    for (const UOpRef& u : StartKernel(item.ast, TargetOf(*device)).ast()->toposort())
      if (u->op() == Ops::kRange) extents.push_back(u->src(0)->const_int());
  }
  std::sort(extents.begin(), extents.end());
  return extents;
}

std::vector<float> Cache() {
  std::vector<float> v(kSlots * kWidth);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i);
  return v;
}

std::vector<float> Row() { return {-1.0f, -2.0f, -3.0f, -4.0f}; }

// The cache with row |slot| replaced by Row(), when slot is one of its rows.
std::vector<float> HostUpdate(int slot) {
  std::vector<float> want = Cache();
  if (slot >= 0 && slot < kSlots) std::copy_n(Row().begin(), kWidth, want.begin() + slot * kWidth);
  return want;
}

Tensor Slots() { return Tensor::arange(0, kSlots, 1, dtypes::int32).reshape({kSlots, 1}); }
Tensor Position(int slot) { return Tensor::from_vector(std::vector<int32_t>{slot}, Shape{1}); }
Tensor NewRow() { return Tensor::from_vector(Row(), Shape{1, kWidth}); }

TEST(OneSlotStore, AnEqualityGateStoresWithoutTheLoop) {
  for (int slot : {0, 3, kSlots - 1, -1, kSlots}) {
    Tensor cache = Tensor::from_vector(Cache(), Shape{kSlots, kWidth});
    Tensor updated = Tensor(cache).assign(Slots().eq(Position(slot).reshape({1, 1})).where(NewRow(), cache));
    EXPECT_EQ(LoopExtents(updated), std::vector<int64_t>{kWidth}) << "slot " << slot;
    EXPECT_EQ(cache.to_vector<float>(), HostUpdate(slot)) << "slot " << slot;
  }
}

// A decoder writes the slots first <= r <= last of a step's positions; with one position both ends are
// the same value.
TEST(OneSlotStore, AnIntervalOfOneSlotStoresWithoutTheLoop) {
  for (int slot : {2, -1, kSlots}) {
    Tensor cache = Tensor::from_vector(Cache(), Shape{kSlots, kWidth});
    Tensor p = Position(slot).reshape({1, 1});
    Tensor written = (Slots() >= p) & (Slots() <= p);
    Tensor updated = Tensor(cache).assign(written.where(NewRow(), cache));
    EXPECT_EQ(LoopExtents(updated), std::vector<int64_t>{kWidth}) << "slot " << slot;
    EXPECT_EQ(cache.to_vector<float>(), HostUpdate(slot)) << "slot " << slot;
  }
}

// From a position on: many slots, so the loop stays.
TEST(OneSlotStore, AGateOfManySlotsKeepsTheLoop) {
  Tensor cache = Tensor::from_vector(Cache(), Shape{kSlots, kWidth});
  Tensor updated = Tensor(cache).assign((Slots() >= Position(4).reshape({1, 1})).where(NewRow(), cache));
  EXPECT_EQ(LoopExtents(updated), (std::vector<int64_t>{kWidth, kSlots}));
  std::vector<float> want = HostUpdate(4);
  std::copy_n(Row().begin(), kWidth, want.begin() + 5 * kWidth);
  EXPECT_EQ(cache.to_vector<float>(), want);
}

// The selected value may depend on the slot: it is read at the slot the gate picks.
TEST(OneSlotStore, AValueOfTheSlotIsReadAtIt) {
  Tensor cache = Tensor::from_vector(Cache(), Shape{kSlots, kWidth});
  Tensor scale = Tensor::arange(0, kSlots, 1, dtypes::float32).reshape({kSlots, 1});
  Tensor updated = Tensor(cache).assign(Slots().eq(Position(3).reshape({1, 1})).where(NewRow() * scale, cache));
  EXPECT_EQ(LoopExtents(updated), std::vector<int64_t>{kWidth});
  std::vector<float> want = Cache();
  for (int64_t c = 0; c < kWidth; ++c) want[3 * kWidth + c] = 3.0f * Row()[c];
  EXPECT_EQ(cache.to_vector<float>(), want);
}

}  // namespace
}  // namespace tg::compiler
