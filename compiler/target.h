// Target: what the compiler may assume about one device, decided once from the device's properties
// (runtime::DeviceInfo) and the renderer of the first dialect it accepts that this compiler renders.
// Codegen, the heuristic, BEAM, the vectorizer and the front end ask it; none of them reads dialect
// names or ABI capability bits themselves.
#ifndef TG_COMPILER_TARGET_H_
#define TG_COMPILER_TARGET_H_

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/tensor_core.h"
#include "ir/dtype.h"
#include "ir/ops.h"
#include "runtime/device.h"
#include "runtime/device_info.h"

namespace tg::compiler {

class Renderer;

struct Target {
  std::string device;                // canonical device name, for messages
  std::string description;           // the hardware, for messages
  std::string arch;                  // the device's instruction set ("sm_90", "gfx90a"); "" where unknown

  // Launch model. gpu: work items run in groups of threads (launch ids gidx and lidx, 3 dimensions);
  // otherwise (the CPU dialects) a group's items are loops of one thread and only group ids launch.
  bool gpu = false;
  int launch_dims = 1;

  // SIMD vectors (the CPU dialects' vector types): whether codegen makes them, and how wide a register is.
  bool vectors = false;
  int vector_bytes = 64;             // preferred_vector_width float32 lanes * 4
  bool masked_vectors = false;       // a vector access under a lane mask is one operation

  // What the heuristic and BEAM may use: parallel groups, group and local-memory limits, matrix units.
  int cores = 1;                     // workgroups run on this many threads at once
  int max_group_threads = 1;         // work items per group, at most
  std::array<uint32_t, 3> max_group_size{1, 1, 1};
  uint64_t local_mem_bytes = 0;
  bool shared_memory = false;        // the renderer spells local arrays and barriers (GROUP reduces)
  bool parallel_group_items = false; // a group's work items run side by side (not on a CPU's OpenCL)
  bool vector_memory = false;        // aligned 16-byte loads and stores of scalar lanes (GPU dialects)
  std::vector<TensorCore> tensor_cores;  // the matrix instructions the TC opt may use (tensor_core.h)

  // Data caches of one core, for blocking a kernel's loops so what an inner sweep re-reads stays
  // cached. CPU targets run their kernels on this host, so these are the host's; 0 where unknown
  // (GPU targets: their local memory is the blocking resource there).
  int64_t l1_bytes = 0, l2_bytes = 0;

  // Numerics. Whether the device computes in float16 / float64 at all (the CPU dialects always do;
  // elsewhere the device's capability bits say), and whether a float16 kernel renders (OpenCL C needs
  // cl_khr_fp16 for half arithmetic; other dialects spell it themselves).
  bool fp16 = false, fp64 = false;
  bool renders_half = true;

  // The renderer (it lives forever); throws tg::Error, naming the dialects the device accepts, when
  // this compiler renders none of them.
  const Renderer& renderer() const;
  std::string_view dialect() const;
  // Whether the dialect computes |op| on vectors whole (else the vectorizer runs it lane by lane).
  bool VectorAlu(Ops op, DType operand, DType result) const;
  // Whether the device computes in |dtype| (float16 and float64 depend on it; every other dtype works).
  bool Computes(DType dtype) const;

  // The device's first execution tier (docs/tiers.md): this target with a renderer whose programs the
  // device starts without compiling them (it lists the "tg-uops" dialect), scalar code only. Null
  // where the device has none (every GPU plugin today).
  const Target* first_tier() const { return first_tier_.get(); }

  // Never throws: a device the compiler cannot render for still answers Computes() (renderer() throws).
  static Target For(const runtime::DeviceInfo& device);

 private:
  const Renderer* renderer_ = nullptr;
  std::shared_ptr<const Target> first_tier_;
  std::string no_renderer_;          // the error renderer() throws when renderer_ is null
};

// |device|'s Target, built on first use and kept for the process (devices live as long).
const Target& TargetOf(const runtime::Device& device);

}  // namespace tg::compiler

#endif  // TG_COMPILER_TARGET_H_
