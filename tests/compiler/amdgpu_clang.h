// hip-c kernels assembled by a plain clang's AMDGPU backend, for architectures the machine's hiprtc
// predates (Debian 12's hiprtc 5.2 knows neither gfx94x nor gfx11, whose matrix instructions the
// tensor-core opt emits). What hiprtc declares built in (__global__, blockIdx, __syncthreads, __half)
// is given to clang by a small prelude, so the source compiled is exactly what the HIP renderer wrote.
#pragma once

#include <string>

namespace tg::testing {

struct AmdgpuAssembly {
  std::string skip_reason;  // non-empty: no clang with an AMDGPU backend that knows the architecture
  std::string compiled_for;  // the architecture clang compiled for (see AssembleHip)
  std::string assembly;      // the ISA text when compiled, else empty
  std::string errors;        // clang's messages when it refused the source
};

// Compiles |source| for |arch| with `clang -x hip --cuda-device-only -nogpulib -nogpuinc -S`. A clang too
// old for |arch| is asked for the oldest member of the architecture's family that has the same matrix
// instructions (gfx942 -> gfx940); `compiled_for` says which. The clang is $TG_TEST_AMDGPU_CLANG, else the
// newest /usr/lib/llvm-N/bin/clang, else `clang` on PATH.
AmdgpuAssembly AssembleHip(const std::string& source, const std::string& arch);

}  // namespace tg::testing
