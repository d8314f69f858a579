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

}  // namespace tg::testing

#endif  // TG_TESTS_RUNTIME_TEST_KERNELS_H_
