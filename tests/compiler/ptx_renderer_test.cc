// The ptx renderer: every kernel of an end-to-end corpus, rendered as PTX for sm_90, must assemble with
// the CUDA toolkit's ptxas (a separate process: no vendor LLVM enters this one). Skipped, with the
// reason, where /usr/local/cuda/bin/ptxas (or $PTXAS) is absent. Plus text checks that need no toolkit.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "compiler/codegen/codegen.h"
#include "compiler/render/ptx_renderer.h"
#include "compiler/schedule/schedule.h"
#include "frontend/tg.h"
#include "gtest/gtest.h"

namespace tg::compiler {
namespace {

std::string Ptxas() {
  const char* env = getenv("PTXAS");
  std::string path = env ? env : "/usr/local/cuda/bin/ptxas";
  return access(path.c_str(), X_OK) == 0 ? path : "";
}

// Runs ptxas on |ptx|; returns "" on success, else its output.
std::string Assemble(const std::string& ptxas, const std::string& ptx, const std::string& arch, const std::string& name) {
  std::string dir = getenv("TEST_TMPDIR") ? getenv("TEST_TMPDIR") : "/tmp";
  std::string in = dir + "/" + name + ".ptx", out = dir + "/" + name + ".cubin", log = dir + "/" + name + ".log";
  std::ofstream(in) << ptx;
  pid_t pid = fork();
  if (pid == 0) {
    FILE* f = freopen(log.c_str(), "w", stderr);
    (void)f;
    dup2(fileno(stderr), 1);
    execl(ptxas.c_str(), ptxas.c_str(), ("-arch=" + arch).c_str(), in.c_str(), "-o", out.c_str(), nullptr);
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return "";
  std::ifstream l(log);
  std::stringstream s;
  s << l.rdbuf();
  return "ptxas failed: " + s.str();
}

std::vector<Tensor> Corpus() {
  Tensor a = Tensor::rand({16, 32}), b = Tensor::rand({32}), m = Tensor::rand({32, 24});
  Tensor i = Tensor::from_vector<int32_t>({3, -7, 12, 5}), d = Tensor::rand({8}).cast(dtypes::float64);
  Tensor e = (a - a.max({1}, true)).exp();
  Tensor pos = Variable("pos", 0, 31).tensor();  // unbound: these kernels are assembled, never launched
  return {
      ((a * b + 1).relu() - b.sqrt()) / (a * a + 1),
      (a.exp() + a.log() + a.sin()).maximum(a),
      (a > 0.5f).where(a, b * 2),
      a.sum({1}), a.max({0}), a.mean(), e / e.sum({1}, true),
      a.matmul(m), (a.matmul(m) + 1).relu().sum({0}),
      a.pad({{1, 2}, {0, 3}}).flip({0}).shrink({{1, 10}, {2, 30}}).permute({1, 0}),
      (a * pos.cast(dtypes::float32)).sum({1}), (Tensor::arange(32).cast(dtypes::int32) <= pos).where(b, 0.0f).sum(),
      a.shrink_to(1, pos + 1).softmax(1).sum({1}),  // reduces that loop to a symbolic length
      (i * 3 + 1) / 2, i.cast(dtypes::float32) * 0.5f, (i < 4).cast(dtypes::int32).sum(), i % 3, i << 2,
      d * 2.5 + d.sqrt(), d.exp(), i.cast(dtypes::int64) * int64_t{3}, (a > 0.5f).cast(dtypes::bool_),
  };
}

runtime::DeviceInfo PtxDevice(const std::string& arch) {
  runtime::DeviceInfo target;
  target.name = "CUDA(ptx)";
  target.arch = arch;
  target.source_dialects = {"ptx"};
  target.max_group_threads = 1024;
  target.max_group_size = {1024, 1024, 64};
  return target;
}

TEST(Ptx, EveryCorpusKernelAssembles) {
  setenv("TG_DISABLE_PLUGINS", "OPENCL,CUDA,HIP", 1);  // the corpus runs on CPU; no vendor LLVM here
  std::string ptxas = Ptxas();
  if (ptxas.empty()) GTEST_SKIP() << "no ptxas (/usr/local/cuda/bin/ptxas or $PTXAS): the CUDA toolkit is absent";
  int assembled = 0, refused = 0;
  for (const Tensor& t : Corpus()) {
    for (const ScheduleItem& item : CreateSchedule({t.uop()}, {t.device()}).items) {
      if (item.kind != ScheduleItem::Kind::kKernel) continue;
      GeneratedKernel k;
      try {
        k = GenerateKernel(item.ast, PtxDevice("sm_90"));
      } catch (const Error& e) {  // float64 exp2/log2/sin have no PTX instruction: codegen gives them
        ASSERT_NE(std::string(e.what()).find("has no PTX instruction"), std::string::npos) << e.what();  // as polynomials
        ++refused;
        continue;
      }
      std::string err = Assemble(ptxas, k.source.source, "sm_90", k.name + "_" + std::to_string(assembled));
      ASSERT_EQ(err, "") << k.name << "\n" << k.source.source;
      ++assembled;
    }
  }
  EXPECT_GE(assembled, 18);
  EXPECT_EQ(refused, 0);  // d.exp() (float64) assembles as a polynomial
}

TEST(Ptx, TargetComesFromTheDeviceArch) {
  setenv("TG_DISABLE_PLUGINS", "OPENCL,CUDA,HIP", 1);
  Tensor a = Tensor::rand({64});
  Schedule s = CreateSchedule({(a + 1).uop()}, {a.device()});
  GeneratedKernel k80 = GenerateKernel(s.items.back().ast, PtxDevice("sm_80"));
  EXPECT_NE(k80.source.source.find(".target sm_80"), std::string::npos) << k80.source.source;
  EXPECT_NE(k80.source.source.find(".version 7.0"), std::string::npos);
  EXPECT_NE(k80.source.source.find(".visible .entry " + k80.name + "("), std::string::npos);
  EXPECT_NE(k80.source.source.find(".param .u64 " + k80.name + "_param_1"), std::string::npos);
  EXPECT_NE(k80.source.source.find("%tid.x"), std::string::npos);  // 64 items: one group of 64
  EXPECT_EQ(PtxRenderer("").arch(), "sm_90");  // the default
  // A variable is a 32-bit parameter after the buffers, loaded once.
  Tensor pos = Variable("pos", 0, 63).tensor();
  Schedule sv = CreateSchedule({(a * pos.cast(dtypes::float32)).uop()}, {a.device()});
  GeneratedKernel kv = GenerateKernel(sv.items.back().ast, PtxDevice("sm_80"));
  EXPECT_NE(kv.source.source.find(".param .s32 " + kv.name + "_param_2"), std::string::npos) << kv.source.source;
  EXPECT_NE(kv.source.source.find("ld.param.s32"), std::string::npos);
  EXPECT_EQ(PtxRenderer("gfx90a").arch(), "sm_90");
}

}  // namespace
}  // namespace tg::compiler
