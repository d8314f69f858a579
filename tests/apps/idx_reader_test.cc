// apps/idx_reader: a good file parses (plain and gzip), and every malformed one is a named error.
#include "apps/idx_reader.h"

#include <zlib.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "apps/fashion_mnist_data.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/error.h"
#include "tests/frontend/scoped_env.h"

namespace tg::apps {
namespace {

using ::testing::HasSubstr;

// A (2, 3) uint8 IDX image, as MNIST's files lay it out.
std::string GoodIdx() {
  std::string s = {0, 0, 0x08, 2, 0, 0, 0, 2, 0, 0, 0, 3};
  for (char c = 1; c <= 6; ++c) s += c;
  return s;
}

std::string TempPath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir ? dir : "/tmp") + "/" + name;
}

void WriteGzip(const std::string& path, const std::string& bytes) {
  gzFile f = gzopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(gzwrite(f, bytes.data(), static_cast<unsigned>(bytes.size())), static_cast<int>(bytes.size()));
  gzclose(f);
}

std::string ParseError(const std::string& bytes) {
  absl::StatusOr<IdxArray> a = ParseIdx(bytes);
  EXPECT_FALSE(a.ok());
  return a.ok() ? "" : std::string(a.status().message());
}

TEST(IdxReader, ParsesAGoodFile) {
  absl::StatusOr<IdxArray> a = ParseIdx(GoodIdx());
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->type, IdxType::kUint8);
  EXPECT_EQ(a->dims, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(a->data, (std::vector<unsigned char>{1, 2, 3, 4, 5, 6}));
}

TEST(IdxReader, ConvertsBigEndianElements) {
  std::string s = {0, 0, 0x0C, 1, 0, 0, 0, 1, 0x01, 0x02, 0x03, 0x04};  // one int32
  absl::StatusOr<IdxArray> a = ParseIdx(s);
  ASSERT_TRUE(a.ok()) << a.status();
  int32_t v;
  std::memcpy(&v, a->data.data(), 4);
  EXPECT_EQ(v, 0x01020304);
}

TEST(IdxReader, RejectsMalformedFiles) {
  std::string good = GoodIdx();
  EXPECT_THAT(ParseError(good.substr(0, good.size() - 1)), HasSubstr("truncated"));
  EXPECT_THAT(ParseError(good + "x"), HasSubstr("trailing"));
  EXPECT_THAT(ParseError(good.substr(0, 6)), HasSubstr("truncated header"));
  EXPECT_THAT(ParseError("\x01" + good.substr(1)), HasSubstr("magic"));
  EXPECT_THAT(ParseError(std::string("\0\0\x07\x01", 4)), HasSubstr("type code 7"));
  EXPECT_THAT(ParseError(std::string("\0\0\x08\x00", 4)), HasSubstr("0 dimensions"));
  EXPECT_THAT(ParseError(std::string("\0\0\x08\x09", 4)), HasSubstr("9 dimensions"));
  EXPECT_THAT(ParseError("ab"), HasSubstr("shorter"));
  // 2^32-1 cubed float64s overflow size_t: an error, not a huge allocation.
  std::string huge = {0, 0, 0x0E, 3};
  for (int i = 0; i < 12; ++i) huge += '\xff';
  EXPECT_THAT(ParseError(huge), HasSubstr("overflow"));
}

TEST(IdxReader, ReadsGzipAndPlainFiles) {
  std::string gz = TempPath("good.idx.gz");
  WriteGzip(gz, GoodIdx());
  EXPECT_EQ(LoadIdx(gz).dims, (std::vector<int64_t>{2, 3}));
  std::string plain = TempPath("good.idx");
  FILE* f = std::fopen(plain.c_str(), "wb");
  std::fwrite(GoodIdx().data(), 1, GoodIdx().size(), f);
  std::fclose(f);
  EXPECT_EQ(LoadIdx(plain).data.size(), 6u);
}

TEST(IdxReader, TruncatedGzipAndMissingFilesAreErrors) {
  std::string gz = TempPath("cut.idx.gz");
  WriteGzip(gz, GoodIdx() + std::string(4000, '\x11'));
  FILE* f = std::fopen(gz.c_str(), "rb");
  std::string bytes(8192, '\0');
  bytes.resize(std::fread(bytes.data(), 1, bytes.size(), f));
  std::fclose(f);
  f = std::fopen(gz.c_str(), "wb");
  std::fwrite(bytes.data(), 1, bytes.size() / 2, f);
  std::fclose(f);
  EXPECT_FALSE(ReadMaybeGzip(gz).ok());
  try {
    LoadIdx(TempPath("absent.gz"));
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("absent.gz"));
  }
}

// The load budget (TG_LOAD_MAX_BYTES): a plain file past it is refused by its size before it is read, a
// gzip file as soon as it inflates past it.
TEST(IdxReader, FilesPastTheLoadBudgetAreRefused) {
  std::string plain = TempPath("budget.idx"), gz = TempPath("budget.idx.gz");
  { std::ofstream(plain, std::ios::binary) << GoodIdx(); }
  WriteGzip(gz, std::string{0, 0, 0x08, 1, 0, 0, 0x0f, (char)0xa0} + std::string(4000, '\x11'));
  tg::testing::ScopedEnv env("TG_LOAD_MAX_BYTES", "1000");
  EXPECT_EQ(LoadIdx(plain).data.size(), 6u);
  try {
    LoadIdx(gz);
    FAIL() << "a 4008-byte inflated file passed a 1000-byte budget";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("budget.idx.gz inflates past 1000 bytes"));
  }
  tg::testing::ScopedEnv tighter("TG_LOAD_MAX_BYTES", "10");
  try {
    LoadIdx(plain);
    FAIL() << "an 18-byte file passed a 10-byte budget";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("budget.idx: the file is 18 bytes, more than the load budget of 10 bytes"));
  }
}

TEST(FashionMnist, MissingDatasetNamesThePackage) {
  try {
    LoadFashionMnist(TempPath("no-such-dir"));
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("dataset-fashion-mnist"));
    EXPECT_THAT(e.what(), HasSubstr("train-images-idx3-ubyte.gz"));
  }
}

}  // namespace
}  // namespace tg::apps
