// apps/bpe_tokenizer: ids match the reference algorithm (tests/apps/make_gpt2_golden.py), text
// round-trips, and malformed vocab/merges files are errors naming the fault.
#include "apps/bpe_tokenizer.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/error.h"
#include "nlohmann/json.hpp"
#include "tests/frontend/scoped_env.h"

namespace tg::apps {
namespace {

using ::testing::HasSubstr;

const char* kData = "tests/apps/data/";

std::string Read(const std::string& name) {
  std::ifstream in(kData + name, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(BpeTokenizer, MatchesTheReferenceIds) {
  BpeTokenizer t = BpeTokenizer::Load(std::string(kData) + "vocab.json", std::string(kData) + "merges.txt");
  EXPECT_EQ(t.vocab_size(), 296u);
  nlohmann::json golden = nlohmann::json::parse(Read("gpt2_golden.json"));
  for (const auto& c : golden["cases"]) {
    std::string text = c["text"];
    EXPECT_EQ(t.Encode(text), c["ids"].get<std::vector<int>>()) << text;
  }
}

TEST(BpeTokenizer, RoundTripsAnyBytes) {
  BpeTokenizer t = BpeTokenizer::Load(std::string(kData) + "vocab.json", std::string(kData) + "merges.txt");
  for (std::string text : std::vector<std::string>{"The fox's den.", "  x\n\n\ty  ", "héllo wörld — ünïcode ✓", std::string("\0\xff\x80 a", 5), ""})
    EXPECT_EQ(t.Decode(t.Encode(text)), text);
  EXPECT_THROW(t.Decode({100000}), Error);
}

TEST(BpeTokenizer, PreTokenizesAsGpt2) {
  using V = std::vector<std::string_view>;
  EXPECT_EQ(BpeTokenizer::PreTokenize("Hello world's  end!!\n"), (V{"Hello", " world", "'s", " ", " end", "!!", "\n"}));
  EXPECT_EQ(BpeTokenizer::PreTokenize("a 12b"), (V{"a", " 12", "b"}));
}

TEST(BpeTokenizer, RejectsMalformedFiles) {
  std::string vocab = Read("vocab.json"), merges = Read("merges.txt");
  auto error = [](std::string_view v, std::string_view m) {
    absl::StatusOr<BpeTokenizer> t = BpeTokenizer::Parse(v, m);
    EXPECT_FALSE(t.ok());
    return t.ok() ? std::string() : std::string(t.status().message());
  };
  EXPECT_TRUE(BpeTokenizer::Parse(vocab, merges).ok());
  EXPECT_THAT(error("{", merges), HasSubstr("not valid JSON"));
  EXPECT_THAT(error("[1, 2]", merges), HasSubstr("JSON object"));
  EXPECT_THAT(error(R"({"a": "x"})", ""), HasSubstr("not an integer"));
  EXPECT_THAT(error(R"({"a": 0, "b": 0})", ""), HasSubstr("id 0"));
  EXPECT_THAT(error(R"({"a": 0})", ""), HasSubstr("byte"));
  EXPECT_THAT(error(vocab, "#version: 0.2\nh e x\n"), HasSubstr("line 2"));
  EXPECT_THAT(error(vocab, "q z\n"), HasSubstr("\"qz\" is not in vocab.json"));
}

// A file past the size budget is refused by name and size before it is read: here a sparse 80 MiB
// "vocab.json" (no disk used), and the real merges.txt against a 100-byte budget.
TEST(BpeTokenizer, FilesPastTheSizeBudgetAreRefusedBeforeReading) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  std::string big = std::string(tmp ? tmp : "/tmp") + "/huge_vocab.json";
  {
    std::ofstream f(big, std::ios::binary);
    f.seekp((std::streamoff{80} << 20) - 1);
    f.put('}');
  }
  try {
    BpeTokenizer::Load(big, std::string(kData) + "merges.txt");
    FAIL() << "an 80 MiB vocab.json loaded";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr(big + " is 83886080 bytes, more than the 67108864-byte limit"));
  }
  try {
    BpeTokenizer::Load(std::string(kData) + "vocab.json", std::string(kData) + "merges.txt", 100);
    FAIL() << "a 3 KB vocab.json passed a 100-byte budget";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("vocab.json is 3152 bytes, more than the 100-byte limit"));
  }
  tg::testing::ScopedEnv env("TG_LOAD_MAX_BYTES", "1000");  // the process-wide load budget, under the 64 MiB
  try {
    BpeTokenizer::Load(std::string(kData) + "vocab.json", std::string(kData) + "merges.txt");
    FAIL() << "a 3 KB vocab.json passed a 1000-byte load budget";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("vocab.json: the file is 3152 bytes, more than the load budget of 1000 bytes"));
  }
}

}  // namespace
}  // namespace tg::apps
