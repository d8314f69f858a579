// dialect_targets.cc: conservative made-up devices, one per dialect.
#include "tools/cts_corpus/dialect_targets.h"

namespace tg::cts_corpus {
namespace {

// A CPU plugin's device: the CPU dialects run a group's items as loops, so only vector width and
// cores shape the code. 8 float lanes is AVX; a narrower machine still compiles GCC/LLVM vectors.
runtime::DeviceInfo CpuDevice(const std::string& dialect) {
  runtime::DeviceInfo d;
  d.name = "CTS(" + dialect + ")";
  d.source_dialects = {dialect};
  d.device_type = TG_DEVICE_TYPE_CPU;
  d.preferred_vector_width = 8;
  d.compute_units = 4;
  return d;
}

// A GPU of the dialect's kind, with limits below every GPU's (OpenCL guarantees 32 KiB of local
// memory; CUDA and HIP give 1024 threads a block) so that a group reduce and its local array fit
// anywhere. float16 is declared so half kernels render; the CTS skips them on a device without it.
runtime::DeviceInfo GpuDevice(const std::string& dialect, const std::string& arch) {
  runtime::DeviceInfo d;
  d.name = "CTS(" + dialect + ")";
  d.source_dialects = {dialect};
  d.arch = arch;
  d.device_type = TG_DEVICE_TYPE_GPU;
  d.max_group_threads = 256;
  d.max_group_size = {256, 256, 64};
  d.local_mem_bytes = 16 << 10;
  d.compute_units = 16;
  d.preferred_vector_width = 4;
  d.caps = TG_CAP_FP16;
  return d;
}

}  // namespace

std::vector<DialectTarget> DialectTargets() {
  return {
      {"c", ".c", CpuDevice("c")},
      {"llvm-ir", ".ll", CpuDevice("llvm-ir")},
      {"opencl-c", ".cl", GpuDevice("opencl-c", "")},
      {"cuda-c", ".cu", GpuDevice("cuda-c", "sm_70")},
      {"hip-c", ".hip", GpuDevice("hip-c", "gfx90a")},
      // PTX names its ISA: sm_70 is JIT-compiled by the driver for every later GPU.
      {"ptx", ".ptx", GpuDevice("ptx", "sm_70")},
      // The first execution tier's dialect (docs/tiers.md): a plugin that runs kernels without compiling.
      {"tg-uops", ".uops", CpuDevice("tg-uops")},
  };
}

}  // namespace tg::cts_corpus
