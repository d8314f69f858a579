#include "compiler/target.h"

#include <algorithm>
#include <memory>
#include <mutex>

#include <unistd.h>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_join.h"
#include "compiler/render/renderer.h"
#include "ir/error.h"
#include "plugins/abi/tg_plugin.h"
#include "plugins/abi/tg_uops.h"

namespace tg::compiler {
namespace {

// The renderer of the first dialect in the device's list (its preference) that this compiler renders.
const Renderer* PickRenderer(const runtime::DeviceInfo& device) {
  for (const std::string& dialect : device.source_dialects)
    if (const Renderer* r = RendererForDialect(dialect, device.arch)) return r;
  return nullptr;
}

// The host's per-core data cache of |level| (1 or 2), or |fallback| where sysconf cannot say (a
// libc without cache queries, or a virtual machine that reports 0).
int64_t HostCacheBytes(int level, int64_t fallback) {
#if defined(_SC_LEVEL1_DCACHE_SIZE) && defined(_SC_LEVEL2_CACHE_SIZE)
  long bytes = sysconf(level == 1 ? _SC_LEVEL1_DCACHE_SIZE : _SC_LEVEL2_CACHE_SIZE);
  if (bytes > 0) return bytes;
#endif
  return fallback;
}

}  // namespace

const Renderer& Target::renderer() const {
  if (renderer_ == nullptr) throw Error(no_renderer_);
  return *renderer_;
}

std::string_view Target::dialect() const { return renderer().dialect(); }

bool Target::VectorAlu(Ops op, DType operand, DType result) const {
  return renderer().VectorAlu(op, operand, result);
}

bool Target::Computes(DType dtype) const {
  if (dtype.base() == dtypes::float16) return fp16;
  if (dtype.base() == dtypes::float64) return fp64;
  return true;
}

Target Target::For(const runtime::DeviceInfo& device) {
  Target t;
  t.device = device.name;
  t.description = device.description;
  t.arch = device.arch;
  t.renderer_ = PickRenderer(device);
  if (t.renderer_ == nullptr)
    t.no_renderer_ = "device " + device.name + " accepts dialects [" + absl::StrJoin(device.source_dialects, ", ") +
                     "], none of which this compiler renders (it renders: c, llvm-ir, opencl-c, cuda-c, hip-c, ptx, wgsl, tg-uops)";
  t.gpu = t.renderer_ == nullptr || t.renderer_->has_local();
  t.launch_dims = t.gpu ? 3 : 1;
  t.vectors = t.renderer_ != nullptr && t.renderer_->has_vectors();
  t.masked_vectors = t.vectors && t.renderer_->has_masked_vectors();
  t.vector_bytes = static_cast<int>(std::max<uint32_t>(device.preferred_vector_width, 1) * 4);
  t.cores = static_cast<int>(std::max<uint32_t>(device.compute_units, 1));
  t.max_group_threads = static_cast<int>(std::max<uint32_t>(device.max_group_threads, 1));
  t.max_group_size = device.max_group_size;
  t.local_mem_bytes = device.local_mem_bytes;
  t.shared_memory = t.gpu && t.renderer_ != nullptr && t.renderer_->has_shared_memory();
  t.parallel_group_items = t.gpu && device.device_type != TG_DEVICE_TYPE_CPU;
  t.vector_memory = t.gpu && t.renderer_ != nullptr && t.renderer_->has_vector_memory();
  if (t.renderer_ != nullptr) t.tensor_cores = TensorCoresFor(t.renderer_->dialect(), device.arch);
  if (!t.gpu) {
    t.l1_bytes = HostCacheBytes(1, int64_t{32} << 10);
    t.l2_bytes = HostCacheBytes(2, int64_t{256} << 10);
  }
  // The CPU dialects compile _Float16 and double themselves, whatever the plugin's caps say.
  t.fp16 = !t.gpu || device.has_fp16();
  t.fp64 = !t.gpu || device.has_fp64();
  t.renders_half = t.renderer_ == nullptr || !t.renderer_->half_needs_extension() || device.has_fp16();
  // The first tier: the same device and launch model, scalar code for the interpreter.
  if (!t.gpu && device.SupportsDialect(TG_UOPS_DIALECT)) {
    auto first = std::make_shared<Target>(t);
    first->renderer_ = RendererForDialect(TG_UOPS_DIALECT);
    first->vectors = first->masked_vectors = false;
    first->tensor_cores.clear();
    t.first_tier_ = std::move(first);
  }
  return t;
}

const Target& TargetOf(const runtime::Device& device) {
  static std::mutex mu;  // not absl::Mutex, which TSan cannot see (ir/uop.cc)
  static auto* targets = new absl::flat_hash_map<const runtime::Device*, std::unique_ptr<Target>>();
  std::lock_guard<std::mutex> lock(mu);
  std::unique_ptr<Target>& t = (*targets)[&device];
  if (t == nullptr) t = std::make_unique<Target>(Target::For(device.info()));
  return *t;
}

}  // namespace tg::compiler
