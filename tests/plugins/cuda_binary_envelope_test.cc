// cuda_binary_envelope_test.cc: the CUDA plugin's program binary envelope ("cubin", "ptx") on its
// own, as no CUDA device is needed for it: program_load answers FAILED_PRECONDITION exactly when
// UnsealBinary refuses, before the driver sees a byte.
#include <string>
#include <string_view>

#include "gtest/gtest.h"
#include "plugins/cuda/binary_envelope.h"
#include "tests/plugins/damaged_binaries.h"

namespace {

// Stands in for a code object: any bytes, with a NUL and high bytes inside.
std::string Payload() {
  std::string p = "\x7f" "ELF stand-in code object";
  for (int i = 0; i < 3000; ++i) p.push_back(static_cast<char>(i * 131));
  return p;
}

TEST(CudaBinaryEnvelopeTest, Fnv1a64MatchesTheReferenceVectors) {
  EXPECT_EQ(tg_cuda::Fnv1a64(""), 0xcbf29ce484222325ull);
  EXPECT_EQ(tg_cuda::Fnv1a64("a"), 0xaf63dc4c8601ec8cull);
  EXPECT_EQ(tg_cuda::Fnv1a64("foobar"), 0x85944171f73967e8ull);
}

TEST(CudaBinaryEnvelopeTest, SealedBytesRoundTrip) {
  const std::string payload = Payload();
  const std::string sealed = tg_cuda::SealBinary(payload);
  std::string_view got;
  std::string why;
  ASSERT_TRUE(tg_cuda::UnsealBinary(sealed, &got, &why)) << why;
  EXPECT_EQ(got, payload);
  EXPECT_EQ(got.data(), sealed.data() + sealed.size() - payload.size());  // a view, not a copy
}

// Regression (like the CTS's corrupt_binary on CPU and OpenCL): truncated and bit-flipped copies.
TEST(CudaBinaryEnvelopeTest, DamagedCopiesAreRefused) {
  const std::string sealed = tg_cuda::SealBinary(Payload());
  for (const tg::testing::DamagedBinary& d : tg::testing::DamagedBinaries(sealed)) {
    std::string_view got;
    std::string why;
    EXPECT_FALSE(tg_cuda::UnsealBinary(d.bytes, &got, &why)) << d.what;
    EXPECT_FALSE(why.empty()) << d.what;
    if (d.truncated) {
      EXPECT_NE(why.find("truncated"), std::string::npos) << d.what << ": " << why;
    }
  }
}

// A bare image (a cache from before the envelope, or another tool's file) is foreign.
TEST(CudaBinaryEnvelopeTest, BareImagesAreForeign) {
  std::string_view got;
  std::string why;
  EXPECT_FALSE(tg_cuda::UnsealBinary(Payload(), &got, &why));
  EXPECT_NE(why.find("foreign"), std::string::npos) << why;
}

}  // namespace
