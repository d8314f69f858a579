// test_kernels.h: hand-written "c" dialect kernels shared by the runtime and plugin tests.
// They declare the calling-convention structs themselves, as a generated kernel would.
#ifndef TG_TESTS_RUNTIME_TEST_KERNELS_H_
#define TG_TESTS_RUNTIME_TEST_KERNELS_H_

namespace tg::testing {

inline constexpr char kCPrelude[] = R"C(
#include <stdint.h>
typedef struct { uint64_t struct_size; uint32_t num_groups[3]; uint32_t group_size[3];
                 uint32_t num_buffers; uint32_t num_scalars; void* const* buffers;
                 const int64_t* scalars; } tg_c_dispatch_state;
typedef struct { uint64_t struct_size; uint32_t group_id[3]; uint32_t worker_id; } tg_c_workgroup_state;
)C";

// out[i] = a[i] + b[i] for i < n; buffers (out, a, b), scalar n; group_size[0] items per group.
inline constexpr char kVectorAdd[] = R"C(
int32_t vadd(const tg_c_dispatch_state* d, const tg_c_workgroup_state* w) {
  float* out = (float*)d->buffers[0];
  const float* a = (const float*)d->buffers[1];
  const float* b = (const float*)d->buffers[2];
  int64_t n = d->scalars[0];
  for (uint32_t l = 0; l < d->group_size[0]; ++l) {
    int64_t i = (int64_t)w->group_id[0] * d->group_size[0] + l;
    if (i < n) out[i] = a[i] + b[i];
  }
  return 0;
}
)C";

// Returns 7 from group 3 only: a kernel-side failure that must surface at the wait.
inline constexpr char kFailing[] = R"C(
int32_t fails(const tg_c_dispatch_state* d, const tg_c_workgroup_state* w) {
  (void)d;
  return w->group_id[0] == 3 ? 7 : 0;
}
)C";

// Not C at all: the compiler's log must come back in the error.
inline constexpr char kSyntaxError[] = R"C(
int32_t broken(const tg_c_dispatch_state* d, const tg_c_workgroup_state* w) {
  this is not C;
}
)C";

// kVectorAdd in the "llvm-ir" dialect: the same parameters and result.
inline constexpr char kLlvmVectorAdd[] = R"LL(
define i32 @vadd(ptr %d, ptr %w) {
entry:
  %gsp = getelementptr inbounds i8, ptr %d, i64 20
  %gs = load i32, ptr %gsp, align 4
  %bufsp = getelementptr inbounds i8, ptr %d, i64 40
  %bufs = load ptr, ptr %bufsp, align 8
  %scp = getelementptr inbounds i8, ptr %d, i64 48
  %sc = load ptr, ptr %scp, align 8
  %n = load i64, ptr %sc, align 8
  %op = load ptr, ptr %bufs, align 8
  %ap.p = getelementptr inbounds ptr, ptr %bufs, i64 1
  %ap = load ptr, ptr %ap.p, align 8
  %bp.p = getelementptr inbounds ptr, ptr %bufs, i64 2
  %bp = load ptr, ptr %bp.p, align 8
  %gidp = getelementptr inbounds i8, ptr %w, i64 8
  %gid = load i32, ptr %gidp, align 4
  %gid64 = zext i32 %gid to i64
  %gs64 = zext i32 %gs to i64
  %base = mul i64 %gid64, %gs64
  br label %loop
loop:
  %l = phi i64 [0, %entry], [%l.next, %next]
  %done = icmp uge i64 %l, %gs64
  br i1 %done, label %exit, label %body
body:
  %i = add i64 %base, %l
  %in = icmp slt i64 %i, %n
  br i1 %in, label %store, label %next
store:
  %pa = getelementptr inbounds float, ptr %ap, i64 %i
  %va = load float, ptr %pa, align 4
  %pb = getelementptr inbounds float, ptr %bp, i64 %i
  %vb = load float, ptr %pb, align 4
  %s = fadd float %va, %vb
  %po = getelementptr inbounds float, ptr %op, i64 %i
  store float %s, ptr %po, align 4
  br label %next
next:
  %l.next = add i64 %l, 1
  br label %loop
exit:
  ret i32 0
}
)LL";

}  // namespace tg::testing

#endif  // TG_TESTS_RUNTIME_TEST_KERNELS_H_
