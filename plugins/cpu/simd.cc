// simd.cc: Highway dynamic dispatch (compiled once per target via foreach_target.h; the Bazel
// build defines HWY_WANT_AVX3_DL and never passes -march=native, see plugins/cpu/BUILD.bazel).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "plugins/cpu/simd.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

#include <string.h>

#include <cctype>

#include "plugins/cpu/simd.h"

HWY_BEFORE_NAMESPACE();
namespace tg_cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

void CopyBytesImpl(uint8_t* HWY_RESTRICT dst, const uint8_t* HWY_RESTRICT src, size_t n) {
  const hn::ScalableTag<uint8_t> d;
  const size_t N = hn::Lanes(d);
  size_t i = 0;
  for (; i + 4 * N <= n; i += 4 * N) {  // four vectors in flight hide load latency
    const auto v0 = hn::LoadU(d, src + i), v1 = hn::LoadU(d, src + i + N);
    const auto v2 = hn::LoadU(d, src + i + 2 * N), v3 = hn::LoadU(d, src + i + 3 * N);
    hn::StoreU(v0, d, dst + i);
    hn::StoreU(v1, d, dst + i + N);
    hn::StoreU(v2, d, dst + i + 2 * N);
    hn::StoreU(v3, d, dst + i + 3 * N);
  }
  for (; i + N <= n; i += N) hn::StoreU(hn::LoadU(d, src + i), d, dst + i);
  if (i < n) memcpy(dst + i, src + i, n - i);
}

void FillBytesImpl(uint8_t* HWY_RESTRICT dst, uint8_t value, size_t n) {
  const hn::ScalableTag<uint8_t> d;
  const size_t N = hn::Lanes(d);
  const auto v = hn::Set(d, value);
  size_t i = 0;
  for (; i + N <= n; i += N) hn::StoreU(v, d, dst + i);
  if (i < n) memset(dst + i, value, n - i);
}

const char* TargetNameImpl() { return hwy::TargetName(HWY_TARGET); }
uint32_t FloatLanesImpl() { return static_cast<uint32_t>(hn::Lanes(hn::ScalableTag<float>())); }

}  // namespace HWY_NAMESPACE
}  // namespace tg_cpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tg_cpu {
HWY_EXPORT(CopyBytesImpl);
HWY_EXPORT(FillBytesImpl);
HWY_EXPORT(TargetNameImpl);
HWY_EXPORT(FloatLanesImpl);

// Below this size the dispatch and loop setup cost more than libc's memcpy/memset.
constexpr size_t kSimdMinBytes = 256;

void CopyBytes(void* dst, const void* src, size_t n) {
  if (n < kSimdMinBytes) {
    memcpy(dst, src, n);
    return;
  }
  HWY_DYNAMIC_DISPATCH(CopyBytesImpl)(static_cast<uint8_t*>(dst), static_cast<const uint8_t*>(src), n);
}

void FillBytes(void* dst, uint8_t value, size_t n) {
  if (n < kSimdMinBytes) {
    memset(dst, value, n);
    return;
  }
  HWY_DYNAMIC_DISPATCH(FillBytesImpl)(static_cast<uint8_t*>(dst), value, n);
}

const SimdTarget& BestSimdTarget() {
  static const SimdTarget* target = [] {
    auto* t = new SimdTarget;
    t->name = HWY_DYNAMIC_DISPATCH(TargetNameImpl)();
    for (char& c : t->name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    t->float_lanes = HWY_DYNAMIC_DISPATCH(FloatLanesImpl)();
    return t;
  }();
  return *target;
}

}  // namespace tg_cpu
#endif  // HWY_ONCE
