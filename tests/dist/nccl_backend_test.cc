// TG_DIST_BACKEND's choice on 2 ranks. Each suite runs under its own environment
// (BUILD's env and --gtest_filter):
//   ForcedWithoutNccl  TG_DIST_BACKEND=nccl, TG_NCCL_LIBRARY=/nonexistent/libnccl.so.2
//   AutoWithoutNccl    TG_DIST_BACKEND=auto, TG_NCCL_LIBRARY=/nonexistent/libnccl.so.2
//   AutoWithStub       TG_DIST_BACKEND=auto, TG_NCCL_LIBRARY=<stub>: CPU tensors still go over MPI
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "frontend/dist/dist.h"
#include "frontend/tg.h"

namespace tg {
namespace {

std::string Library() {
  const char* path = std::getenv("TG_NCCL_LIBRARY");
  return path != nullptr ? path : "";
}

void ExpectContains(const std::string& text, const std::string& part) {
  EXPECT_NE(text.find(part), std::string::npos) << "\"" << part << "\" is missing from: " << text;
}

// Allreduce of CPU tensors gives the right sum whatever the backend.
void ExpectAllreduceWorks() {
  Tensor t = Tensor::full({3}, static_cast<float>(dist::rank() + 1));
  dist::allreduce({t});
  int n = dist::world_size();
  EXPECT_EQ(t.to_vector<float>(), std::vector<float>(3, n * (n + 1) / 2.0f));
}

TEST(ForcedWithoutNccl, InitFailsOnEveryRankSayingHowToFix) {
  try {
    dist::init();
    ADD_FAILURE() << "TG_DIST_BACKEND=nccl without NCCL: no tg::Error";
  } catch (const Error& e) {
    std::string m = e.what();
    ExpectContains(m, "TG_DIST_BACKEND=nccl");
    ExpectContains(m, Library());            // names the library
    ExpectContains(m, "rank(s) 0, 1");       // and where it is missing
    ExpectContains(m, "cannot open shared object file");  // dlerror's reason
    ExpectContains(m, "libnccl2");           // the ways out
    ExpectContains(m, "TG_NCCL_LIBRARY");
    ExpectContains(m, "TG_DIST_BACKEND=mpi");
  }
}

TEST(AutoWithoutNccl, ChoosesMpiNamingTheLibrary) {
  const dist::WorldInfo& world = dist::init();
  EXPECT_EQ(world.backend, "MPI");
  ExpectContains(world.backend_reason, "auto");
  ExpectContains(world.backend_reason, Library());
  ExpectContains(world.backend_reason, "unavailable");
  ExpectAllreduceWorks();
}

TEST(AutoWithStub, CpuTensorsGoOverMpi) {
  const dist::WorldInfo& world = dist::init();
  EXPECT_EQ(world.backend, "NCCL/MPI") << world.backend_reason;
  ExpectContains(world.backend_reason, "CUDA");
  void* stub = dlopen(Library().c_str(), RTLD_NOW | RTLD_NOLOAD);
  ASSERT_NE(stub, nullptr) << "auto mode did not load " << Library();
  auto calls = reinterpret_cast<int (*)(const char*)>(dlsym(stub, "tg_nccl_stub_calls"));
  ASSERT_NE(calls, nullptr);
  ExpectAllreduceWorks();
  Tensor w = Tensor::full({2}, static_cast<float>(dist::rank()));
  dist::broadcast({w});
  EXPECT_EQ(w.to_vector<float>(), std::vector<float>(2, 0.0f));
  // CPU memory is "host", not "cuda": auto keeps NCCL out, no communicator is even created.
  EXPECT_EQ(calls("ncclAllReduce"), 0);
  EXPECT_EQ(calls("ncclBroadcast"), 0);
  EXPECT_EQ(calls("ncclCommInitRank"), 0);
  EXPECT_EQ(calls("ncclGetVersion"), 1);
}

}  // namespace
}  // namespace tg
