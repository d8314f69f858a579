// kit_envelope_test.cc: the plugin kit's program-binary envelope (plugins/kit/binary_envelope.h):
// sealed bytes come back intact, and every damaged, foreign or stale copy is refused with a reason
// before a driver could see it (program_load then answers FAILED_PRECONDITION).
#include <string>
#include <string_view>

#include "gtest/gtest.h"
#include "plugins/kit/binary_envelope.h"
#include "plugins/kit/fnv1a64.h"
#include "tests/plugins/damaged_binaries.h"

namespace {

constexpr tg_kit::BinaryEnvelope kEnvelope("TGKITBIN");

// Stands in for a code object: any bytes, with a NUL and high bytes inside.
std::string Payload() {
  std::string p = "\x7f" "ELF stand-in code object";
  p.push_back('\0');
  for (int i = 0; i < 3000; ++i) p.push_back(static_cast<char>(i * 131));
  return p;
}

TEST(KitEnvelopeTest, Fnv1a64MatchesTheReferenceVectors) {
  EXPECT_EQ(tg_kit::Fnv1a64(""), 0xcbf29ce484222325ull);
  EXPECT_EQ(tg_kit::Fnv1a64("a"), 0xaf63dc4c8601ec8cull);
  EXPECT_EQ(tg_kit::Fnv1a64("foobar"), 0x85944171f73967e8ull);
  EXPECT_EQ(tg_kit::Fnv1a64("bar", tg_kit::Fnv1a64("foo")), tg_kit::Fnv1a64("foobar"));  // chains
}

TEST(KitEnvelopeTest, SealedBytesRoundTripAsAViewInsideTheEnvelope) {
  const std::string payload = Payload();
  const std::string sealed = kEnvelope.Seal(payload);
  EXPECT_EQ(sealed.size(), tg_kit::BinaryEnvelope::kHeaderSize + payload.size());
  std::string_view got, fingerprint = "unset";
  std::string why;
  ASSERT_TRUE(kEnvelope.Unseal(sealed, &got, &why, &fingerprint)) << why;
  EXPECT_EQ(got, payload);
  EXPECT_EQ(got.data(), sealed.data() + sealed.size() - payload.size());  // a view, not a copy
  EXPECT_TRUE(fingerprint.empty());
}

TEST(KitEnvelopeTest, TheFingerprintTravelsWithThePayload) {
  const std::string sealed = kEnvelope.Seal(Payload(), "pocl 5.0 cpu avx2");
  std::string_view got, fingerprint;
  std::string why;
  ASSERT_TRUE(kEnvelope.Unseal(sealed, &got, &why, &fingerprint)) << why;
  EXPECT_EQ(fingerprint, "pocl 5.0 cpu avx2");
  EXPECT_EQ(got, Payload());
  ASSERT_TRUE(kEnvelope.Unseal(sealed, &got, &why));  // a caller may ignore it
}

TEST(KitEnvelopeTest, EmptyPayloadsRoundTrip) {
  std::string_view got = "unset";
  std::string why;
  ASSERT_TRUE(kEnvelope.Unseal(kEnvelope.Seal(""), &got, &why)) << why;
  EXPECT_TRUE(got.empty());
}

TEST(KitEnvelopeTest, DamagedCopiesAreRefusedWithAReason) {
  for (std::string_view fingerprint : {std::string_view(), std::string_view("sm_90 cuda 12.4")}) {
    const std::string sealed = kEnvelope.Seal(Payload(), fingerprint);
    for (const tg::testing::DamagedBinary& d : tg::testing::DamagedBinaries(sealed)) {
      std::string_view got;
      std::string why;
      EXPECT_FALSE(kEnvelope.Unseal(d.bytes, &got, &why)) << d.what;
      EXPECT_FALSE(why.empty()) << d.what;
      if (d.truncated) {
        EXPECT_NE(why.find("truncated"), std::string::npos) << d.what << ": " << why;
      }
    }
  }
}

TEST(KitEnvelopeTest, AnotherPluginsBinaryAndABareImageAreForeign) {
  constexpr tg_kit::BinaryEnvelope kOther("TGOTHBIN");
  std::string_view got;
  std::string why;
  EXPECT_FALSE(kEnvelope.Unseal(kOther.Seal(Payload()), &got, &why));
  EXPECT_NE(why.find("foreign"), std::string::npos) << why;
  EXPECT_NE(why.find("TGKITBIN"), std::string::npos) << why;
  EXPECT_FALSE(kEnvelope.Unseal(Payload(), &got, &why));
  EXPECT_NE(why.find("foreign"), std::string::npos) << why;
}

TEST(KitEnvelopeTest, AnotherEnvelopeVersionIsForeign) {
  std::string sealed = kEnvelope.Seal(Payload());
  sealed[8] = 1;  // version 1: the 28-byte layout without a fingerprint
  std::string_view got;
  std::string why;
  EXPECT_FALSE(kEnvelope.Unseal(sealed, &got, &why));
  EXPECT_NE(why.find("envelope version 1"), std::string::npos) << why;
}

TEST(KitEnvelopeTest, AHugeLengthFieldDoesNotWrapIntoAMatch) {
  std::string sealed = kEnvelope.Seal(Payload(), "fp");
  for (int i = 12; i < 24; ++i) sealed[i] = '\xff';  // fingerprint and payload lengths near 2^64
  std::string_view got;
  std::string why;
  EXPECT_FALSE(kEnvelope.Unseal(sealed, &got, &why));
  EXPECT_NE(why.find("truncated"), std::string::npos) << why;
}

}  // namespace
