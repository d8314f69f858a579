// lane_ops.cc: the interpreter's kernels, compiled once per SIMD target (foreach_target.h, as
// simd.cc). float32 and int32 arithmetic, comparisons, selects and conversions are Highway vector
// code; every other op and dtype is a plain loop over lane_semantics-inl.h's scalar rules, which the
// compiler vectorizes for the target where it can (a full block is a loop of constant length into a
// local array, so even -O2's cheap vectorizer takes it).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "plugins/cpu/lane_ops.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

#include <string.h>

#include "plugins/cpu/lane_ops.h"
#include "plugins/cpu/lane_semantics-inl.h"

#ifndef TG_PLUGINS_CPU_LANE_OPS_TABLE_
#define TG_PLUGINS_CPU_LANE_OPS_TABLE_
namespace tg_cpu::uops {
// One target's kernels, indexed by op and dtype (source dtypes where they differ from the result's).
struct KernelTable {
  AluFn alu[kNumOps][kNumDTypes];
  AluFn compare[3][kNumDTypes];             // CMPLT CMPNE CMPEQ by source dtype
  AluFn cast[kNumDTypes][kNumDTypes];       // [from][to]
  AluFn shift[2][kNumDTypes][kNumDTypes];   // [SHL/SHR][value][count]
  AluFn by_size[2][4];                      // [WHERE/BITCAST][1,2,4,8 bytes]
  GatherFn gather[4][2];                    // [1,2,4,8 bytes][i32/i64]
  ScatterFn scatter[4][2];
};
}  // namespace tg_cpu::uops
#endif

HWY_BEFORE_NAMESPACE();
namespace tg_cpu::uops::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// out[i] = f(i) for i < n; a full block goes through a local array, so |out| may be a source.
template <class T, class F>
HWY_INLINE void EachLane(void* out, size_t n, F f) {
  if (n == kLanes) {
    T r[kLanes];
    for (size_t i = 0; i < kLanes; ++i) r[i] = f(i);
    memcpy(out, r, sizeof r);
    return;
  }
  for (size_t i = 0; i < n; ++i) static_cast<T*>(out)[i] = f(i);
}

template <DType D> using T_ = typename Lane<D>::T;
template <class T> const T* In(const void* p) { return static_cast<const T*>(p); }

template <DType D, class O>
void Unary(void* d, const void* a, const void*, const void*, size_t n) {
  using L = Lane<D>;
  EachLane<T_<D>>(d, n, [x = In<T_<D>>(a)](size_t i) { return L::Down(O::template Do<D>(L::Up(x[i]))); });
}

template <DType D, class O>
void Binary(void* d, const void* a, const void* b, const void*, size_t n) {
  using L = Lane<D>;
  EachLane<T_<D>>(d, n, [x = In<T_<D>>(a), y = In<T_<D>>(b)](size_t i) {
    return L::Down(O::Do(L::Up(x[i]), L::Up(y[i])));
  });
}

template <DType D, class O>
void Compare(void* d, const void* a, const void* b, const void*, size_t n) {
  using L = Lane<D>;
  EachLane<uint8_t>(d, n, [x = In<T_<D>>(a), y = In<T_<D>>(b)](size_t i) {
    return static_cast<uint8_t>(O::Do(L::Up(x[i]), L::Up(y[i])));
  });
}

// a * b rounded to the dtype, then + c rounded again (no fused multiply-add).
template <DType D>
void MulAcc(void* d, const void* a, const void* b, const void* c, size_t n) {
  using L = Lane<D>;
  EachLane<T_<D>>(d, n, [x = In<T_<D>>(a), y = In<T_<D>>(b), z = In<T_<D>>(c)](size_t i) {
    return L::Down(AddOp::Do(L::Up(L::Down(MulOp::Do(L::Up(x[i]), L::Up(y[i])))), L::Up(z[i])));
  });
}

template <DType D, DType N, class O>
void Shift(void* d, const void* a, const void* b, const void*, size_t n) {
  using L = Lane<D>;
  EachLane<T_<D>>(d, n, [x = In<T_<D>>(a), y = In<T_<N>>(b)](size_t i) {
    return L::Down(O::Do(L::Up(x[i]), Lane<N>::Up(y[i])));
  });
}

template <DType From, DType To>
void Cast(void* d, const void* a, const void*, const void*, size_t n) {
  EachLane<T_<To>>(d, n, [x = In<T_<From>>(a)](size_t i) { return CastLane<From, To>(x[i]); });
}

template <class T>
void Where(void* d, const void* c, const void* a, const void* b, size_t n) {
  EachLane<T>(d, n, [m = In<uint8_t>(c), x = In<T>(a), y = In<T>(b)](size_t i) { return m[i] ? x[i] : y[i]; });
}

void Bitcast(void* d, const void* a, size_t bytes) { memmove(d, a, bytes); }
template <size_t kBytes>
void BitcastN(void* d, const void* a, const void*, const void*, size_t n) { Bitcast(d, a, n * kBytes); }

// ---- Highway: float32 and int32, the hot paths.
// Whole vectors, then the rest one lane at a time with |scalar|: both load before they store, so
// |d| may be a source.
template <class T, class VecOp, class ScalarOp>
HWY_INLINE void Vectors(T* out, const T* x, const T* y, const T* z, size_t n, VecOp vec, ScalarOp scalar) {
  const hn::ScalableTag<T> t;
  const size_t N = hn::Lanes(t);
  size_t i = 0;
  for (; i + N <= n; i += N) {
    auto vz = z != nullptr ? hn::LoadU(t, z + i) : hn::Zero(t);
    hn::StoreU(vec(t, hn::LoadU(t, x + i), hn::LoadU(t, y + i), vz), t, out + i);
  }
  for (; i < n; ++i) out[i] = scalar(x[i], y[i], z != nullptr ? z[i] : T());
}

#define TG_HWY_BINARY(Name, T, Scalar, expr)                                                           \
  void Name(void* d, const void* a, const void* b, const void* c, size_t n) {                         \
    Vectors(static_cast<T*>(d), In<T>(a), In<T>(b), static_cast<const T*>(c), n,                      \
            [](auto t, auto x, auto y, auto z) { (void)t, (void)z; return expr; }, Scalar);          \
  }
TG_HWY_BINARY(AddF32, float, [](float x, float y, float) { return x + y; }, hn::Add(x, y))
TG_HWY_BINARY(MulF32, float, [](float x, float y, float) { return x * y; }, hn::Mul(x, y))
TG_HWY_BINARY(DivF32, float, [](float x, float y, float) { return x / y; }, hn::Div(x, y))
TG_HWY_BINARY(MaxF32, float, [](float x, float y, float) { return x < y ? y : x; }, hn::IfThenElse(hn::Lt(x, y), y, x))
TG_HWY_BINARY(MulAccF32, float, [](float x, float y, float z) { return x * y + z; }, hn::Add(hn::Mul(x, y), z))
TG_HWY_BINARY(AddI32, int32_t, [](int32_t x, int32_t y, int32_t) { return AddOp::Do(x, y); }, hn::Add(x, y))
TG_HWY_BINARY(MulI32, int32_t, [](int32_t x, int32_t y, int32_t) { return MulOp::Do(x, y); }, hn::Mul(x, y))
TG_HWY_BINARY(MaxI32, int32_t, [](int32_t x, int32_t y, int32_t) { return x < y ? y : x; }, hn::IfThenElse(hn::Lt(x, y), y, x))
TG_HWY_BINARY(MulAccI32, int32_t, [](int32_t x, int32_t y, int32_t z) { return AddOp::Do(MulOp::Do(x, y), z); },
              hn::Add(hn::Mul(x, y), z))
#undef TG_HWY_BINARY

// Comparisons of float32 / int32 give one byte per lane.
template <class T, class Cmp, class O>
void CompareVec(void* d, const void* a, const void* b, const void*, size_t n) {
  const hn::ScalableTag<T> t;
  const hn::RebindToSigned<decltype(t)> ti;
  const hn::Rebind<uint8_t, decltype(t)> t8;
  const size_t N = hn::Lanes(t);
  auto* out = static_cast<uint8_t*>(d);
  const T *x = In<T>(a), *y = In<T>(b);
  size_t i = 0;
  for (; i + N <= n; i += N) {
    auto m = hn::RebindMask(ti, Cmp()(hn::LoadU(t, x + i), hn::LoadU(t, y + i)));
    hn::StoreU(hn::DemoteTo(t8, hn::IfThenElseZero(m, hn::Set(ti, 1))), t8, out + i);
  }
  for (; i < n; ++i) out[i] = O::Do(x[i], y[i]);
}
struct VecLt { template <class V> auto operator()(V a, V b) const { return hn::Lt(a, b); } };
// C's != is true for a NaN (unordered), Highway's Ne is ordered: not-equal is the inverse of Eq.
struct VecNe { template <class V> auto operator()(V a, V b) const { return hn::Not(hn::Eq(a, b)); } };
struct VecEq { template <class V> auto operator()(V a, V b) const { return hn::Eq(a, b); } };

void Where4(void* d, const void* c, const void* a, const void* b, size_t n) {
  const hn::ScalableTag<uint32_t> t;
  const hn::Rebind<uint8_t, decltype(t)> t8;
  const size_t N = hn::Lanes(t);
  auto* out = static_cast<uint32_t*>(d);
  const uint8_t* m = In<uint8_t>(c);
  const uint32_t *x = In<uint32_t>(a), *y = In<uint32_t>(b);
  size_t i = 0;
  for (; i + N <= n; i += N) {
    auto on = hn::Ne(hn::PromoteTo(t, hn::LoadU(t8, m + i)), hn::Zero(t));
    hn::StoreU(hn::IfThenElse(on, hn::LoadU(t, x + i), hn::LoadU(t, y + i)), t, out + i);
  }
  for (; i < n; ++i) out[i] = m[i] ? x[i] : y[i];
}

// float32 -> int32 as cvttss2si: INT_MIN where the value is out of range or NaN.
void CastF32I32(void* d, const void* a, const void*, const void*, size_t n) {
  const hn::ScalableTag<float> tf;
  const hn::RebindToSigned<decltype(tf)> ti;
  const size_t N = hn::Lanes(tf);
  auto* out = static_cast<int32_t*>(d);
  const float* x = In<float>(a);
  size_t i = 0;
  for (; i + N <= n; i += N) {
    auto v = hn::LoadU(tf, x + i);
    auto in_range = hn::RebindMask(ti, hn::Lt(hn::Abs(v), hn::Set(tf, 2147483648.0f)));
    hn::StoreU(hn::IfThenElse(in_range, hn::ConvertTo(ti, v), hn::Set(ti, INT32_MIN)), ti, out + i);
  }
  for (; i < n; ++i) out[i] = TruncToInt<int32_t>(x[i]);
}

void CastI32F32(void* d, const void* a, const void*, const void*, size_t n) {
  const hn::ScalableTag<float> tf;
  const hn::RebindToSigned<decltype(tf)> ti;
  const size_t N = hn::Lanes(tf);
  auto* out = static_cast<float*>(d);
  const int32_t* x = In<int32_t>(a);
  size_t i = 0;
  for (; i + N <= n; i += N) hn::StoreU(hn::ConvertTo(tf, hn::LoadU(ti, x + i)), tf, out + i);
  for (; i < n; ++i) out[i] = static_cast<float>(x[i]);
}

// ---- Memory: unaligned element access (a buffer may start at any byte offset).
template <class E> E Read(const void* base, int64_t i) {
  E e;
  memcpy(&e, static_cast<const char*>(base) + i * int64_t{sizeof(E)}, sizeof(E));
  return e;
}

template <class E, class I>
void Gather(void* dst, const void* base, const void* idx, const uint8_t* gate, size_t n) {
  const I* ix = In<I>(idx);
  if (gate == nullptr) EachLane<E>(dst, n, [&](size_t i) { return Read<E>(base, ix[i]); });
  else EachLane<E>(dst, n, [&](size_t i) { return gate[i] ? Read<E>(base, ix[i]) : E{0}; });
}

template <class E, class I>
void Scatter(void* base, const void* idx, const void* src, const uint8_t* gate, size_t n) {
  const I* ix = In<I>(idx);
  const E* v = In<E>(src);
  for (size_t i = 0; i < n; ++i)
    if (gate == nullptr || gate[i]) memcpy(static_cast<char*>(base) + ix[i] * int64_t{sizeof(E)}, &v[i], sizeof(E));
}

void CopyLanesImpl(void* dst, const void* src, size_t bytes) {
  const hn::ScalableTag<uint8_t> t;
  const size_t N = hn::Lanes(t);
  auto* out = static_cast<uint8_t*>(dst);
  const auto* in = static_cast<const uint8_t*>(src);
  size_t i = 0;
  for (; i + N <= bytes; i += N) hn::StoreU(hn::LoadU(t, in + i), t, out + i);
  if (i < bytes) memcpy(out + i, in + i, bytes - i);
}

bool AllOnImpl(const uint8_t* gate, size_t n) {
  uint8_t all = 1;
  for (size_t i = 0; i < n; ++i) all &= gate[i];
  return all != 0;
}

// ---- The table.
constexpr DType kAll[] = {DType::kbool, DType::ki8, DType::ki16, DType::ki32, DType::ki64, DType::ku8, DType::ku16,
                          DType::ku32, DType::ku64, DType::kf16, DType::kbf16, DType::kf32, DType::kf64};

template <size_t... I> using Seq = std::index_sequence<I...>;
using AllSeq = std::make_index_sequence<std::size(kAll)>;

template <class O, bool kUnary, size_t... I>
void FillRow(AluFn* row, Seq<I...>) {
  auto one = [&](auto d) {
    constexpr DType D = decltype(d)::value;
    if constexpr (O::template Allows<D>()) {
      if constexpr (kUnary) row[static_cast<int>(D)] = &Unary<D, O>;
      else row[static_cast<int>(D)] = &Binary<D, O>;
    }
  };
  (one(std::integral_constant<DType, kAll[I]>()), ...);
}

template <size_t... I>
void FillDTypeRows(KernelTable* t, Seq<I...>) {
  auto one = [&](auto d) {
    constexpr DType D = decltype(d)::value;
    const int k = static_cast<int>(D);
    if constexpr (D != DType::kbf16) {
      t->compare[0][k] = &Compare<D, CmpLtOp>;
      t->compare[1][k] = &Compare<D, CmpNeOp>;
      t->compare[2][k] = &Compare<D, CmpEqOp>;
      if constexpr (D != DType::kbool) t->alu[static_cast<int>(Op::kMULACC)][k] = &MulAcc<D>;
    }
    auto cast_to = [&](auto to) {
      constexpr DType To = decltype(to)::value;
      t->cast[k][static_cast<int>(To)] = &Cast<D, To>;
      if constexpr (kIsInt<D> && kIsInt<To>) {
        t->shift[0][k][static_cast<int>(To)] = &Shift<D, To, ShlOp>;
        t->shift[1][k][static_cast<int>(To)] = &Shift<D, To, ShrOp>;
      }
    };
    (cast_to(std::integral_constant<DType, kAll[I]>()), ...);
  };
  (one(std::integral_constant<DType, kAll[I]>()), ...);
}

KernelTable* BuildTable() {
  auto* t = new KernelTable{};
  auto row = [t](Op op) { return t->alu[static_cast<int>(op)]; };
  FillRow<AddOp, false>(row(Op::kADD), AllSeq());
  FillRow<MulOp, false>(row(Op::kMUL), AllSeq());
  FillRow<MaxOp, false>(row(Op::kMAX), AllSeq());
  FillRow<FdivOp, false>(row(Op::kFDIV), AllSeq());
  FillRow<IdivOp, false>(row(Op::kIDIV), AllSeq());
  FillRow<ModOp, false>(row(Op::kMOD), AllSeq());
  FillRow<XorOp, false>(row(Op::kXOR), AllSeq());
  FillRow<OrOp, false>(row(Op::kOR), AllSeq());
  FillRow<AndOp, false>(row(Op::kAND), AllSeq());
  FillRow<NegOp, true>(row(Op::kNEG), AllSeq());
  FillRow<Exp2Op, true>(row(Op::kEXP2), AllSeq());
  FillRow<Log2Op, true>(row(Op::kLOG2), AllSeq());
  FillRow<SinOp, true>(row(Op::kSIN), AllSeq());
  FillRow<SqrtOp, true>(row(Op::kSQRT), AllSeq());
  FillRow<TruncOp, true>(row(Op::kTRUNC), AllSeq());
  FillRow<ReciprocalOp, true>(row(Op::kRECIPROCAL), AllSeq());
  FillDTypeRows(t, AllSeq());
  const int f32 = static_cast<int>(DType::kf32), i32 = static_cast<int>(DType::ki32);
  row(Op::kADD)[f32] = &AddF32, row(Op::kMUL)[f32] = &MulF32, row(Op::kFDIV)[f32] = &DivF32;
  row(Op::kMAX)[f32] = &MaxF32, row(Op::kMULACC)[f32] = &MulAccF32;
  row(Op::kADD)[i32] = &AddI32, row(Op::kMUL)[i32] = &MulI32, row(Op::kMAX)[i32] = &MaxI32;
  row(Op::kMULACC)[i32] = &MulAccI32;
  t->compare[0][f32] = &CompareVec<float, VecLt, CmpLtOp>, t->compare[0][i32] = &CompareVec<int32_t, VecLt, CmpLtOp>;
  t->compare[1][f32] = &CompareVec<float, VecNe, CmpNeOp>, t->compare[1][i32] = &CompareVec<int32_t, VecNe, CmpNeOp>;
  t->compare[2][f32] = &CompareVec<float, VecEq, CmpEqOp>, t->compare[2][i32] = &CompareVec<int32_t, VecEq, CmpEqOp>;
  t->cast[f32][i32] = &CastF32I32, t->cast[i32][f32] = &CastI32F32;
  t->by_size[0][0] = &Where<uint8_t>, t->by_size[0][1] = &Where<uint16_t>;
  t->by_size[0][2] = &Where4, t->by_size[0][3] = &Where<uint64_t>;
  t->by_size[1][0] = &BitcastN<1>, t->by_size[1][1] = &BitcastN<2>;
  t->by_size[1][2] = &BitcastN<4>, t->by_size[1][3] = &BitcastN<8>;
  t->gather[0][0] = &Gather<uint8_t, int32_t>, t->gather[0][1] = &Gather<uint8_t, int64_t>;
  t->gather[1][0] = &Gather<uint16_t, int32_t>, t->gather[1][1] = &Gather<uint16_t, int64_t>;
  t->gather[2][0] = &Gather<uint32_t, int32_t>, t->gather[2][1] = &Gather<uint32_t, int64_t>;
  t->gather[3][0] = &Gather<uint64_t, int32_t>, t->gather[3][1] = &Gather<uint64_t, int64_t>;
  t->scatter[0][0] = &Scatter<uint8_t, int32_t>, t->scatter[0][1] = &Scatter<uint8_t, int64_t>;
  t->scatter[1][0] = &Scatter<uint16_t, int32_t>, t->scatter[1][1] = &Scatter<uint16_t, int64_t>;
  t->scatter[2][0] = &Scatter<uint32_t, int32_t>, t->scatter[2][1] = &Scatter<uint32_t, int64_t>;
  t->scatter[3][0] = &Scatter<uint64_t, int32_t>, t->scatter[3][1] = &Scatter<uint64_t, int64_t>;
  return t;
}

const KernelTable* TableImpl() {
  static const KernelTable* table = BuildTable();
  return table;
}

}  // namespace tg_cpu::uops::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tg_cpu::uops {
HWY_EXPORT(TableImpl);
HWY_EXPORT(CopyLanesImpl);
HWY_EXPORT(AllOnImpl);

namespace {
const KernelTable& Table() {
  static const KernelTable* table = HWY_DYNAMIC_DISPATCH(TableImpl)();
  return *table;
}
int SizeIndex(size_t bytes) { return bytes == 1 ? 0 : bytes == 2 ? 1 : bytes == 4 ? 2 : 3; }
}  // namespace

AluFn FindAluKernel(Op op, DType dtype, DType src0, DType src1) {
  const KernelTable& t = Table();
  const int d = static_cast<int>(dtype), s0 = static_cast<int>(src0);
  switch (op) {
    case Op::kCMPLT: return t.compare[0][s0];
    case Op::kCMPNE: return t.compare[1][s0];
    case Op::kCMPEQ: return t.compare[2][s0];
    case Op::kCAST: return t.cast[s0][d];
    case Op::kSHL: return t.shift[0][d][static_cast<int>(src1)];
    case Op::kSHR: return t.shift[1][d][static_cast<int>(src1)];
    case Op::kWHERE: return t.by_size[0][SizeIndex(DTypeBytes(dtype))];
    case Op::kBITCAST: return t.by_size[1][SizeIndex(DTypeBytes(dtype))];
    default: return t.alu[static_cast<int>(op)][d];
  }
}

GatherFn FindGather(size_t elem_bytes, DType idx) { return Table().gather[SizeIndex(elem_bytes)][idx == DType::ki64]; }
ScatterFn FindScatter(size_t elem_bytes, DType idx) { return Table().scatter[SizeIndex(elem_bytes)][idx == DType::ki64]; }

void CopyLanes(void* dst, const void* src, size_t bytes) {
  HWY_DYNAMIC_DISPATCH(CopyLanesImpl)(dst, src, bytes);
}

bool AllOn(const uint8_t* gate, size_t n) { return HWY_DYNAMIC_DISPATCH(AllOnImpl)(gate, n); }

namespace {
template <class E>
void Fill(void* dst, const void* src) {
  E v, lanes[kLanes];
  memcpy(&v, src, sizeof v);
  for (size_t i = 0; i < kLanes; ++i) lanes[i] = v;
  memcpy(dst, lanes, sizeof lanes);
}
}  // namespace

void SplatLanes(void* dst, const void* src, size_t elem_bytes) {
  switch (elem_bytes) {  // fixed sizes: a few vector stores, not kLanes calls to memcpy
    case 1: return Fill<uint8_t>(dst, src);
    case 2: return Fill<uint16_t>(dst, src);
    case 4: return Fill<uint32_t>(dst, src);
    default: return Fill<uint64_t>(dst, src);
  }
}

}  // namespace tg_cpu::uops
#endif  // HWY_ONCE
