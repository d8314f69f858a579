// NCCL's loader on its own, no mpirun: a library that is absent or lacks a symbol is
// "unavailable" with a reason naming it, never a crash; tests/dist's stub loads. Paths come from BUILD's
// env: NCCL_STUB (complete) and NCCL_STUB_WITHOUT_BROADCAST.
#include "frontend/dist/nccl_library.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "frontend/dist/dist.h"
#include "ir/error.h"

namespace tg::dist::internal {
namespace {

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? v : "";
}

TEST(NcclLibrary, AbsentLibraryIsUnavailableWithDlopensReason) {
  NcclLibrary lib = NcclLibrary::Load("/nonexistent/libnccl.so.2");
  EXPECT_FALSE(lib.available());
  EXPECT_NE(lib.reason().find("/nonexistent/libnccl.so.2"), std::string::npos) << lib.reason();
  EXPECT_NE(lib.reason().find("No such file"), std::string::npos) << lib.reason();
}

TEST(NcclLibrary, StubWithoutASymbolIsUnavailableNamingTheSymbol) {
  ASSERT_FALSE(Env("NCCL_STUB_WITHOUT_BROADCAST").empty());
  NcclLibrary lib = NcclLibrary::Load(Env("NCCL_STUB_WITHOUT_BROADCAST"));
  EXPECT_FALSE(lib.available());
  EXPECT_NE(lib.reason().find("ncclBroadcast"), std::string::npos) << lib.reason();
  EXPECT_EQ(lib.reason().find("ncclAllReduce"), std::string::npos) << "only the missing symbol: " << lib.reason();
}

TEST(NcclLibrary, StubLoadsWithItsVersion) {
  ASSERT_FALSE(Env("NCCL_STUB").empty());
  NcclLibrary lib = NcclLibrary::Load(Env("NCCL_STUB"));
  ASSERT_TRUE(lib.available()) << lib.reason();
  EXPECT_EQ(lib.reason(), "");
  EXPECT_EQ(lib.version(), 22106);
  EXPECT_EQ(lib.version_string(), "2.21.6");
  EXPECT_TRUE(lib.has_avg());
  EXPECT_NE(lib.api().comm_abort, nullptr);
  EXPECT_NE(lib.ErrorString(2).find("system error"), std::string::npos) << lib.ErrorString(2);
}

TEST(NcclLibrary, DefaultPathAndOverride) {
  unsetenv("TG_NCCL_LIBRARY");
  EXPECT_EQ(NcclLibrary::ConfiguredPath(), "libnccl.so.2");
  setenv("TG_NCCL_LIBRARY", "/opt/nccl/libnccl.so.2", 1);
  EXPECT_EQ(NcclLibrary::ConfiguredPath(), "/opt/nccl/libnccl.so.2");
  unsetenv("TG_NCCL_LIBRARY");
}

TEST(DistBackend, AnUnknownBackendIsAnErrorListingTheAllowedOnes) {
  setenv("TG_DIST_BACKEND", "gloo", 1);
  try {
    tg::dist::init();
    ADD_FAILURE() << "TG_DIST_BACKEND=gloo: no tg::Error";
  } catch (const Error& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("gloo"), std::string::npos) << m;
    EXPECT_NE(m.find("auto (default), mpi, nccl"), std::string::npos) << m;
  }
  unsetenv("TG_DIST_BACKEND");
  EXPECT_EQ(tg::dist::init().backend, "none");  // one rank: nothing to choose
}

}  // namespace
}  // namespace tg::dist::internal
