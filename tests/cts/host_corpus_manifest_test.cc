// The host corpus that //tools/cts_corpus renders at build time: it covers every dialect the host
// emits, each GPU dialect that spells local memory has a group reduce through it (a local array and a
// barrier in the source), and the GPU dialects launch a grid wider than 65535 groups.
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace {

constexpr char kDir[] = "tools/cts_corpus/host_corpus/";

nlohmann::json Manifest() {
  std::ifstream in(std::string(kDir) + "manifest.json");
  EXPECT_TRUE(in) << "no manifest in the runfiles";
  return nlohmann::json::parse(in);
}

std::string Source(const nlohmann::json& kernel) {
  std::ifstream in(kDir + kernel["file"].get<std::string>());
  EXPECT_TRUE(in) << kernel["file"];
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(HostCorpus, CoversEveryDialectTheHostEmits) {
  std::set<std::string> dialects;
  const nlohmann::json m = Manifest();  // named: a range-for over a temporary's member would dangle
  for (const auto& k : m["kernels"]) dialects.insert(k["dialect"].get<std::string>());
  EXPECT_EQ(dialects, (std::set<std::string>{"c", "llvm-ir", "opencl-c", "cuda-c", "hip-c", "ptx", "tg-uops"}));
}

// Each dialect has the five kernels, except what the manifest says its renderer refuses (and why):
// nothing today, since the ptx renderer spells float16 and local memory.
TEST(HostCorpus, EveryDialectHasEveryKernelOrSaysWhyNot) {
  const nlohmann::json m = Manifest();
  std::set<std::string> have, gaps;
  for (const auto& k : m["kernels"]) have.insert(k["dialect"].get<std::string>() + "/" + k["name"].get<std::string>());
  for (const auto& g : m["not_rendered"]) {
    gaps.insert(g["dialect"].get<std::string>() + "/" + g["name"].get<std::string>());
    EXPECT_FALSE(g["reason"].get<std::string>().empty());
  }
  for (const char* d : {"c", "llvm-ir", "opencl-c", "cuda-c", "hip-c", "ptx", "tg-uops"})
    for (const char* n : {"elementwise", "group_reduce", "half", "large_grid", "variable"}) {
      std::string key = std::string(d) + "/" + n;
      EXPECT_TRUE(have.count(key) + gaps.count(key) == 1) << key;
    }
  EXPECT_EQ(gaps, (std::set<std::string>{}));
}

struct LocalSpelling {
  const char* local;
  const char* barrier;
};

TEST(HostCorpus, GpuDialectsReduceThroughLocalMemoryAndABarrier) {
  const std::pair<std::string, LocalSpelling> kSpellings[] = {
      {"opencl-c", {"__local ", "barrier(CLK_LOCAL_MEM_FENCE)"}},
      {"cuda-c", {"__shared__ ", "__syncthreads()"}},
      {"hip-c", {"__shared__ ", "__syncthreads()"}},
      {"ptx", {".shared ", "bar.sync 0;"}},
  };
  const nlohmann::json m = Manifest();
  for (const auto& [dialect, spelling] : kSpellings) {
    int found = 0;
    for (const auto& k : m["kernels"]) {
      if (k["dialect"] != dialect) continue;
      std::string src = Source(k);
      found += src.find(spelling.local) != std::string::npos && src.find(spelling.barrier) != std::string::npos;
    }
    EXPECT_GE(found, 1) << dialect << ": no kernel with local memory and a barrier";
  }
}

// ptx's half kernel keeps float16 in .b16 registers: loaded and stored as 16 bits, computed in f16.
TEST(HostCorpus, PtxHalfIsFloat16) {
  const nlohmann::json m = Manifest();
  int found = 0;
  for (const auto& k : m["kernels"]) {
    if (k["dialect"] != "ptx" || k["name"] != "half") continue;
    std::string src = Source(k);
    EXPECT_NE(src.find("ld.global.b16"), std::string::npos) << src;
    EXPECT_NE(src.find("st.global.b16"), std::string::npos) << src;
    EXPECT_NE(src.find(".f16 "), std::string::npos) << src;
    ++found;
  }
  EXPECT_EQ(found, 1);
}

TEST(HostCorpus, GpuDialectsLaunchMoreThan65535GroupsInDimension0) {
  std::set<std::string> large;
  const nlohmann::json m = Manifest();
  for (const auto& k : m["kernels"])
    if (k["num_groups"][0].get<uint64_t>() > 65535) large.insert(k["dialect"].get<std::string>());
  for (const char* d : {"opencl-c", "cuda-c", "hip-c", "ptx"}) EXPECT_TRUE(large.count(d)) << d;
}

// A tg::Variable arrives as a trailing int argument in every dialect.
TEST(HostCorpus, EveryDialectHasAScalarIntArgument) {
  std::set<std::string> with;
  const nlohmann::json m = Manifest();
  for (const auto& k : m["kernels"])
    if (k["args"].back()["kind"] == "i32") with.insert(k["dialect"].get<std::string>());
  EXPECT_EQ(with.size(), 7u);
}

}  // namespace
