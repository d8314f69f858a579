// compiler::Target: the facts codegen, the heuristic, BEAM and the front end read about a device,
// decided from its properties and the renderer of the first dialect it accepts that the compiler renders.
#include "compiler/target.h"

#include <string>

#include "compiler/render/renderer.h"
#include "gtest/gtest.h"
#include "ir/error.h"
#include "plugins/abi/tg_plugin.h"

namespace tg::compiler {
namespace {

runtime::DeviceInfo Device(std::vector<std::string> dialects, uint32_t caps = 0) {
  runtime::DeviceInfo d;
  d.name = "TEST";
  d.description = "a test device";
  d.source_dialects = std::move(dialects);
  d.caps = caps;
  d.preferred_vector_width = 8;
  d.compute_units = 6;
  d.max_group_threads = 512;
  d.local_mem_bytes = 1 << 16;
  return d;
}

TEST(Target, CpuDialectsRunItemsAsLoopsAndHaveVectors) {
  for (const char* first : {"c", "llvm-ir"}) {
    Target t = Target::For(Device({first, "c"}));
    EXPECT_EQ(t.dialect(), first);
    EXPECT_FALSE(t.gpu);
    EXPECT_EQ(t.launch_dims, 1);
    EXPECT_TRUE(t.vectors);
    EXPECT_EQ(t.vector_bytes, 32);
    EXPECT_EQ(t.cores, 6);
    EXPECT_TRUE(t.Computes(dtypes::float16));  // whatever the caps say
    EXPECT_TRUE(t.Computes(dtypes::float64));
    EXPECT_TRUE(t.VectorAlu(Ops::kAdd, dtypes::float32, dtypes::float32));
    EXPECT_FALSE(t.VectorAlu(Ops::kCmpLt, dtypes::float64, dtypes::bool_));  // 64-bit lanes have no mask type
    EXPECT_FALSE(t.VectorAlu(Ops::kCast, dtypes::float32, dtypes::float16));
    // the host's caches, first level smaller than the second
    EXPECT_GE(t.l1_bytes, 4096);
    EXPECT_GT(t.l2_bytes, t.l1_bytes);
  }
}

TEST(Target, GpuDialectsLaunchGroupsOfThreadsWithoutVectors) {
  Target t = Target::For(Device({"wgsl"}));
  EXPECT_TRUE(t.gpu);
  EXPECT_EQ(t.launch_dims, 3);
  EXPECT_FALSE(t.vectors);
  EXPECT_EQ(t.max_group_threads, 512);
  EXPECT_EQ(t.local_mem_bytes, 1u << 16);
  EXPECT_TRUE(t.tensor_cores.empty());
  EXPECT_EQ(t.l2_bytes, 0);  // not the host's
  EXPECT_FALSE(t.VectorAlu(Ops::kAdd, dtypes::float32, dtypes::float32));
}

TEST(Target, FirstRenderableDialectWins) {
  EXPECT_EQ(Target::For(Device({"spirv", "opencl-c", "c"})).dialect(), "opencl-c");
}

TEST(Target, HalfAndDoubleFollowTheCapsOnGpus) {
  Target plain = Target::For(Device({"opencl-c"}));
  EXPECT_FALSE(plain.Computes(dtypes::float16));
  EXPECT_FALSE(plain.Computes(dtypes::float64));
  EXPECT_FALSE(plain.renders_half);  // OpenCL C needs cl_khr_fp16
  EXPECT_TRUE(plain.Computes(dtypes::bfloat16));
  Target capable = Target::For(Device({"opencl-c"}, TG_CAP_FP16 | TG_CAP_FP64));
  EXPECT_TRUE(capable.Computes(dtypes::float16));
  EXPECT_TRUE(capable.Computes(dtypes::float64));
  EXPECT_TRUE(capable.renders_half);
  EXPECT_TRUE(Target::For(Device({"cuda-c"})).renders_half);  // CUDA spells half itself
}

TEST(Target, NoRenderableDialectFailsOnlyWhenRendering) {
  Target t = Target::For(Device({"spirv", "metal"}));
  EXPECT_TRUE(t.Computes(dtypes::float32));
  try {
    t.renderer();
    FAIL() << "expected tg::Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("accepts dialects [spirv, metal]"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tg::compiler
