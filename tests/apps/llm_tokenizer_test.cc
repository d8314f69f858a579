// apps/llm_tokenizer: both tokenizer.json layouts give the ids of the reference algorithm
// (tests/apps/make_llm_reference.py), text (non-ASCII included) round-trips, and malformed files are
// tg::Errors naming the fault; the same tokenizers from GGUF metadata (make_llm_gguf_tokenizers.py) encode
// and decode as their tokenizer.json. Also the chat templates' detection and stop tokens.
#include "apps/llm_tokenizer.h"

#include <algorithm>
#include <fstream>
#include <functional>
#include <sstream>

#include "apps/llm_chat.h"
#include "apps/llm_config.h"
#include "apps/llm_pretokenizer.h"
#include "frontend/nn/gguf.h"
#include "ir/error.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace tg::apps {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

std::string Read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

nlohmann::json Reference() { return nlohmann::json::parse(Read("tests/apps/data/llm_reference.json")); }
std::string TokenizerPath(const std::string& name) { return "tests/apps/data/llm_" + name + "/tokenizer.json"; }

class LlmTokenizerTest : public ::testing::TestWithParam<std::string> {};

TEST_P(LlmTokenizerTest, IdsMatchTheReference) {
  LlmTokenizer t = LlmTokenizer::Load(TokenizerPath(GetParam()));
  nlohmann::json ref = Reference()[GetParam()];
  for (const nlohmann::json& c : ref["cases"])
    EXPECT_EQ(t.Encode(c["text"].get<std::string>(), /*add_special=*/false), c["ids"].get<std::vector<int>>()) << c["text"];
  EXPECT_EQ(t.Encode(ref["prompt"].get<std::string>()), ref["ids"].get<std::vector<int>>());
}

TEST_P(LlmTokenizerTest, TextRoundTripsIncludingNonAscii) {
  LlmTokenizer t = LlmTokenizer::Load(TokenizerPath(GetParam()));
  for (std::string text : {"The fox jumps.", "Caf\u00e9 cr\u00e8me \u65e5\u672c\u8a9e \U0001f642", "  two  spaces\n\nand\ttabs ",
                           "x", "\u00fcber 12345 na\u00efve!?"})
    EXPECT_EQ(t.Decode(t.Encode(text)), text);
}

TEST_P(LlmTokenizerTest, GreedyTextOfTheReferenceDecodes) {
  LlmTokenizer t = LlmTokenizer::Load(TokenizerPath(GetParam()));
  nlohmann::json ref = Reference()[GetParam()];
  EXPECT_EQ(t.Decode(ref["greedy"].get<std::vector<int>>()), ref["greedy_text"].get<std::string>());
}

INSTANTIATE_TEST_SUITE_P(Layouts, LlmTokenizerTest, ::testing::Values("llama", "qwen2"));

TEST(LlmTokenizer, SpecialTokensAreSplitOutAndSkippedWhenDecoding) {
  LlmTokenizer qwen = LlmTokenizer::Load(TokenizerPath("qwen2"));
  int start = *qwen.Find("<|im_start|>"), end = *qwen.Find("<|im_end|>");
  std::vector<int> ids = qwen.Encode("<|im_start|>hi<|im_end|>");
  ASSERT_GE(ids.size(), 3u);
  EXPECT_EQ(ids.front(), start);
  EXPECT_EQ(ids.back(), end);
  EXPECT_EQ(qwen.Decode(ids), "hi");
  EXPECT_EQ(qwen.Decode(ids, /*skip_special=*/false), "<|im_start|>hi<|im_end|>");
  LlmTokenizer llama = LlmTokenizer::Load(TokenizerPath("llama"));
  EXPECT_EQ(llama.Encode("hi").front(), *llama.Find("<s>"));  // the post-processor's BOS
  EXPECT_NE(llama.Encode("hi", false).front(), *llama.Find("<s>"));
  EXPECT_THAT([&] { llama.Decode({100000}); }, ThrowsMessage<Error>(HasSubstr("id 100000 is not a token")));
}

// LLaMA 3's tokenizer.json sets ignore_merges: a word that is itself a token is not built from merges.
TEST(LlmTokenizer, IgnoreMergesTakesAWordThatIsATokenWhole) {
  nlohmann::json j = nlohmann::json::parse(Read(TokenizerPath("qwen2")));
  int fresh = 0;  // the first id after every token's
  for (const auto& [token, id] : j["model"]["vocab"].items()) fresh = std::max(fresh, id.get<int>() + 1);
  for (const auto& added : j["added_tokens"]) fresh = std::max(fresh, added["id"].get<int>() + 1);
  j["model"]["vocab"]["\u0120jumps"] = fresh;  // " jumps" in byte symbols, no merge makes it
  LlmTokenizer plain = LlmTokenizer::Parse(j.dump(), "t");
  j["model"]["ignore_merges"] = true;
  LlmTokenizer whole = LlmTokenizer::Parse(j.dump(), "t");
  EXPECT_NE(plain.Encode(" jumps", false), std::vector<int>{fresh});
  EXPECT_EQ(whole.Encode(" jumps", false), std::vector<int>{fresh});
  EXPECT_EQ(whole.Decode({fresh}), " jumps");
  EXPECT_EQ(whole.Encode(" fox", false), plain.Encode(" fox", false));
}

TEST(LlmPreTokenizer, SplitsLikeTheLlama3AndQwen2Regex) {
  auto split = [](std::string_view s, int digits) {
    std::vector<std::string> out;
    for (std::string_view p : SplitLikeLlama3(s, digits)) out.emplace_back(p);
    return out;
  };
  EXPECT_THAT(split("Hello world's 12345!!\n\n  x  ", 3),
              ElementsAre("Hello", " world", "'s", " ", "123", "45", "!!\n\n", " ", " x", "  "));
  EXPECT_THAT(split("12345", 1), ElementsAre("1", "2", "3", "4", "5"));
  EXPECT_THAT(split("(caf\u00e9) \u65e5\u672c", 3), ElementsAre("(caf\u00e9", ")", " \u65e5\u672c"));
  EXPECT_THAT(split("a\n\n b", 3), ElementsAre("a", "\n\n", " b"));
}

// tokenizer.json of the qwen2 test model with |edit| applied.
std::string Edited(const std::function<void(nlohmann::json&)>& edit) {
  nlohmann::json j = nlohmann::json::parse(Read(TokenizerPath("qwen2")));
  edit(j);
  return j.dump();
}

void ExpectRefused(const std::string& text, const std::string& message) {
  EXPECT_THAT([&] { LlmTokenizer::Parse(text, "tok.json"); }, ThrowsMessage<Error>(HasSubstr(message)));
}

TEST(LlmTokenizer, MalformedFilesAreRefused) {
  ExpectRefused("[]", "tok.json: not a Hugging Face tokenizer.json");
  ExpectRefused(Edited([](nlohmann::json& j) { j["model"]["type"] = "WordPiece"; }),
                "model type \"WordPiece\" is not supported (allowed: BPE)");
  ExpectRefused(Edited([](nlohmann::json& j) { j["pre_tokenizer"] = {{"type", "Whitespace"}}; }),
                "pre-tokenizer \"Whitespace\" is not supported");
  ExpectRefused(Edited([](nlohmann::json& j) { j["pre_tokenizer"]["pretokenizers"][0]["pattern"]["Regex"] = "\\w+"; }),
                "Split regex is not LLaMA 3's or Qwen2's");
  ExpectRefused(Edited([](nlohmann::json& j) { j["normalizer"] = {{"type", "Lowercase"}}; }),
                "normalizer \"Lowercase\" is not supported");
  ExpectRefused(Edited([](nlohmann::json& j) { j["model"]["merges"].push_back({"zz", "\u00e9\u00e9"}); }),
                "uses or makes a token outside the vocabulary");
  ExpectRefused(Edited([](nlohmann::json& j) { j["model"]["merges"].push_back(7); }), "expected \"left right\" or [left, right]");
  ExpectRefused(Edited([](nlohmann::json& j) { j["model"]["vocab"].erase("A"); }),
                "the byte-level vocabulary lacks the symbol of byte 65");
  ExpectRefused(Edited([](nlohmann::json& j) { j["added_tokens"][0]["id"] = 5; }), "id 5 is both");
  ExpectRefused(Edited([](nlohmann::json& j) { j["model"]["vocab"]["A"] = -1; }), "has id -1");
  ExpectRefused(Edited([](nlohmann::json& j) { j["added_tokens"][0]["special"] = "yes"; }), "tok.json: unexpected JSON layout");
  ExpectRefused(Edited([](nlohmann::json& j) { j["pre_tokenizer"]["pretokenizers"] = 3; }), "tok.json: unexpected JSON layout");
  nlohmann::json llama = nlohmann::json::parse(Read(TokenizerPath("llama")));
  llama["model"]["vocab"].erase("<0x41>");
  ExpectRefused(llama.dump(), "byte_fallback is on but the vocabulary lacks <0x41>");
  llama = nlohmann::json::parse(Read(TokenizerPath("llama")));
  llama["normalizer"] = nullptr, llama["model"]["byte_fallback"] = false;
  ExpectRefused(llama.dump(), "neither byte-level");
  EXPECT_THAT([] { LlmTokenizer::Load("/nonexistent/tokenizer.json"); }, ThrowsMessage<Error>(HasSubstr("cannot be read")));
}

// A few bytes must not reserve a table sized by one large id: ids are bounded by the number of entries.
TEST(LlmTokenizer, AnIdFarBeyondTheEntriesIsRefusedBeforeAllocating) {
  ExpectRefused(R"({"model": {"type": "BPE", "vocab": {"a": 1073741823}}})",
                "token \"a\" has id 1073741823, expected below 258 (twice the 1 entries plus 256)");
  ExpectRefused(Edited([](nlohmann::json& j) { j["added_tokens"][0]["id"] = 100000000; }), "has id 100000000, expected below");
}

// ---- The tokenizer from GGUF metadata (FromGguf)

nn::GGUFHeader GgufHeader(const std::string& name) { return nn::gguf_read("tests/apps/data/llm_" + name + "_tokenizer.gguf"); }
LlmTokenizer FromGgufFile(const std::string& name) { return LlmTokenizer::FromGguf(GgufHeader(name), name + ".gguf"); }

nn::GGUFValue& Meta(nn::GGUFHeader& h, const std::string& key) { return h.metadata.at("tokenizer.ggml." + key); }
std::vector<nn::GGUFValue>& Items(nn::GGUFHeader& h, const std::string& key) {
  return std::get<std::vector<nn::GGUFValue>>(Meta(h, key).data);
}
nn::GGUFValue StringValue(const std::string& s) {
  nn::GGUFValue v;
  v.type = nn::GGUFValueType::kString;
  v.data = s;
  return v;
}
nn::GGUFValue UintValue(uint64_t u) {
  nn::GGUFValue v;
  v.type = nn::GGUFValueType::kUint32;
  v.data = u;
  return v;
}

class LlmGgufTokenizerTest : public ::testing::TestWithParam<std::string> {};

TEST_P(LlmGgufTokenizerTest, IdsMatchTheReference) {
  LlmTokenizer t = FromGgufFile(GetParam());
  nlohmann::json ref = nlohmann::json::parse(Read("tests/apps/data/llm_gguf_tokenizers.json"))[GetParam()];
  ASSERT_FALSE(ref["cases"].empty());
  for (const nlohmann::json& c : ref["cases"])
    EXPECT_EQ(t.Encode(c["text"].get<std::string>()), c["ids"].get<std::vector<int>>()) << c["text"];
}

TEST_P(LlmGgufTokenizerTest, EncodesAndDecodesLikeItsTokenizerJson) {
  LlmTokenizer gguf = FromGgufFile(GetParam()), json = LlmTokenizer::Load(TokenizerPath(GetParam()));
  EXPECT_EQ(gguf.byte_level(), json.byte_level());
  std::vector<std::string> texts = {"The fox jumps.", "Caf\u00e9 cr\u00e8me \u65e5\u672c\u8a9e \U0001f642", "  two  spaces\n\nand\ttabs ",
                                    "x", "\u00fcber 12345 na\u00efve!?", "\xF0\x9F", "", "<s>hi</s><unk>", "<|im_start|>a<|im_end|>\n"};
  const nlohmann::json ref = Reference()[GetParam()];
  for (const nlohmann::json& c : ref["cases"]) texts.push_back(c["text"].get<std::string>());
  for (const std::string& text : texts) {
    std::vector<int> ids = json.Encode(text);
    EXPECT_EQ(gguf.Encode(text), ids) << text;
    EXPECT_EQ(gguf.Encode(text, false), json.Encode(text, false)) << text;
    EXPECT_EQ(gguf.Decode(ids), json.Decode(ids)) << text;
    EXPECT_EQ(gguf.Decode(ids, /*skip_special=*/false), json.Decode(ids, false)) << text;
  }
  for (std::string text : {"The fox jumps.", "Caf\u00e9 cr\u00e8me \u65e5\u672c\u8a9e \U0001f642", "  two  spaces\n\nand\ttabs ",
                           "\u00fcber 12345 na\u00efve!?", "x\u00e9\u4e2dy"})
    EXPECT_EQ(gguf.Decode(gguf.Encode(text)), text);
  for (int id = 0; id < json.size(); ++id) EXPECT_EQ(gguf.IsSpecial(id), json.IsSpecial(id)) << id;
  EXPECT_EQ(gguf.Decode(ref["greedy"].get<std::vector<int>>()), ref["greedy_text"].get<std::string>());
}

INSTANTIATE_TEST_SUITE_P(Layouts, LlmGgufTokenizerTest, ::testing::Values("llama", "qwen2"));

// tokenizer.ggml.pre picks the split: each as the tokenizer.json with that pre-tokenizer.
TEST(LlmGgufTokenizer, PreSelectsTheSplitOfTheMatchingTokenizerJson) {
  const std::string llama3_regex =
      "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
  struct Variant {
    std::string pre;
    std::function<void(nlohmann::json&)> edit;
  };
  std::vector<Variant> variants = {
      {"llama-bpe",
       [&](nlohmann::json& j) {
         j["pre_tokenizer"]["pretokenizers"][0]["pattern"]["Regex"] = llama3_regex;
         j["model"]["ignore_merges"] = true;
       }},
      {"llama3",
       [&](nlohmann::json& j) {
         j["pre_tokenizer"]["pretokenizers"][0]["pattern"]["Regex"] = llama3_regex;
         j["model"]["ignore_merges"] = true;
       }},
      {"gpt-2", [](nlohmann::json& j) { j["pre_tokenizer"] = {{"type", "ByteLevel"}, {"use_regex", true}}; }},
      {"default", [](nlohmann::json& j) { j["pre_tokenizer"] = {{"type", "ByteLevel"}, {"use_regex", true}}; }},
  };
  for (const Variant& v : variants) {
    nn::GGUFHeader h = GgufHeader("qwen2");
    Meta(h, "pre") = StringValue(v.pre);
    LlmTokenizer gguf = LlmTokenizer::FromGguf(h, "q.gguf"), json = LlmTokenizer::Parse(Edited(v.edit), "t");
    for (std::string text : {"(fox's) den 12345\n\n  x  ", "The quick brown fox", "Caf\u00e9 \u65e5\u672c 2024!"})
      EXPECT_EQ(gguf.Encode(text, false), json.Encode(text, false)) << v.pre << ": " << text;
  }
  nn::GGUFHeader h = GgufHeader("qwen2");
  h.metadata.erase("tokenizer.ggml.pre");
  EXPECT_EQ(LlmTokenizer::FromGguf(h, "q.gguf").Encode("(fox's) den", false),
            LlmTokenizer::Parse(Edited(variants[2].edit), "t").Encode("(fox's) den", false));
  // LLaMA 3's pre puts BOS first unless add_bos_token says otherwise, as llama.cpp.
  h = GgufHeader("qwen2");
  Meta(h, "pre") = StringValue("llama-bpe");
  h.metadata.erase("tokenizer.ggml.add_bos_token");
  EXPECT_EQ(LlmTokenizer::FromGguf(h, "q.gguf").Encode("hi").front(), *LlmTokenizer::FromGguf(GgufHeader("qwen2"), "q.gguf").Find("<|endoftext|>"));
}

// SentencePiece BPE from scores: of two merges competing for one character, the one making the token of
// higher score wins (Hugging Face's converter; llama.cpp's SPM merges by score too).
TEST(LlmGgufTokenizer, MergesRankByTheScoreOfTheTokenTheyMake) {
  auto with_tokens = [](double az, double zy) {
    nn::GGUFHeader h = GgufHeader("llama");
    for (auto [token, score] : {std::pair<std::string, double>{"az", az}, {"zy", zy}}) {
      Items(h, "tokens").push_back(StringValue(token));
      nn::GGUFValue s = Items(h, "scores")[0], type = Items(h, "token_type")[0];
      s.data = score, type.data = int64_t{1};
      Items(h, "scores").push_back(s);
      Items(h, "token_type").push_back(type);
    }
    return LlmTokenizer::FromGguf(h, "m.gguf");
  };
  LlmTokenizer az_first = with_tokens(10, 9), zy_first = with_tokens(9, 10);
  int space = *az_first.Find("\u2581"), l = *az_first.Find("l"), a = *az_first.Find("a"), y = *az_first.Find("y");
  EXPECT_THAT(az_first.Encode("lazy", false), ElementsAre(space, l, *az_first.Find("az"), y));
  EXPECT_THAT(zy_first.Encode("lazy", false), ElementsAre(space, l, a, *zy_first.Find("zy")));
}

void ExpectGgufRefused(const std::string& name, const std::function<void(nn::GGUFHeader&)>& edit, const std::string& message) {
  nn::GGUFHeader h = GgufHeader(name);
  edit(h);
  EXPECT_THAT([&] { LlmTokenizer::FromGguf(h, "m.gguf"); }, ThrowsMessage<Error>(HasSubstr(message))) << message;
}

TEST(LlmGgufTokenizer, MalformedMetadataIsRefused) {
  ExpectGgufRefused("llama", [](nn::GGUFHeader& h) { Meta(h, "model") = StringValue("bert"); },
                    "m.gguf: tokenizer.ggml.model \"bert\" is not supported (allowed: gpt2, llama)");
  ExpectGgufRefused("qwen2", [](nn::GGUFHeader& h) { Meta(h, "pre") = StringValue("falcon"); },
                    "tokenizer.ggml.pre \"falcon\" is not supported (allowed: qwen2, llama-bpe, llama3, gpt-2, default)");
  for (const char* key : {"model", "tokens", "token_type", "merges"})
    ExpectGgufRefused("qwen2", [&](nn::GGUFHeader& h) { h.metadata.erase(std::string("tokenizer.ggml.") + key); },
                      std::string("m.gguf: the GGUF metadata lacks tokenizer.ggml.") + key);
  ExpectGgufRefused("llama", [](nn::GGUFHeader& h) { h.metadata.erase("tokenizer.ggml.scores"); },
                    "the GGUF metadata lacks tokenizer.ggml.scores");
  ExpectGgufRefused("llama", [](nn::GGUFHeader& h) { Items(h, "token_type").pop_back(); },
                    "tokenizer.ggml.token_type has 359 entries for the 360 tokens");
  ExpectGgufRefused("llama", [](nn::GGUFHeader& h) { Items(h, "scores").push_back(Items(h, "scores")[0]); },
                    "tokenizer.ggml.scores has 361 entries for the 360 tokens");
  ExpectGgufRefused("llama", [](nn::GGUFHeader& h) { std::get<double>(Items(h, "scores")[5].data) = std::nan(""); },
                    "tokenizer.ggml.scores[5] is NaN");
  ExpectGgufRefused("qwen2", [](nn::GGUFHeader& h) { Items(h, "merges").push_back(StringValue("zz \u00e9\u00e9")); },
                    "uses or makes a token outside the vocabulary");
  ExpectGgufRefused("qwen2", [](nn::GGUFHeader& h) { Items(h, "merges").push_back(StringValue("nospace")); },
                    "tokenizer.ggml.merges[50] \"nospace\" is not \"left right\"");
  ExpectGgufRefused("qwen2", [](nn::GGUFHeader& h) { Meta(h, "bos_token_id") = UintValue(100000); },
                    "tokenizer.ggml.bos_token_id is 100000, not a token id (the vocabulary has 314)");
  ExpectGgufRefused("llama", [](nn::GGUFHeader& h) { h.metadata.erase("tokenizer.ggml.bos_token_id"); },
                    "tokenizer.ggml.add_bos_token is set but the GGUF metadata lacks tokenizer.ggml.bos_token_id");
  ExpectGgufRefused("llama", [](nn::GGUFHeader& h) { Meta(h, "tokens") = UintValue(3); },
                    "m.gguf: tokenizer.ggml.tokens: ");
  ExpectGgufRefused("llama", [](nn::GGUFHeader& h) { Meta(h, "add_bos_token") = UintValue(1); },
                    "m.gguf: tokenizer.ggml.add_bos_token: ");
  ExpectGgufRefused("llama", [](nn::GGUFHeader& h) { Items(h, "tokens")[3 + 0x41] = StringValue("A?"); },
                    "lacks <0x41>");
  ExpectGgufRefused("qwen2", [](nn::GGUFHeader& h) { Items(h, "tokens")[65] = StringValue("AA"); },
                    "the byte-level vocabulary lacks the symbol of byte 65");
  ExpectGgufRefused("qwen2", [](nn::GGUFHeader& h) { Items(h, "tokens")[66] = StringValue("A"); },
                    "token \"A\" has id 66 but the vocabulary gives it 65");
}

TEST(LlmChat, FormatsAreDetectedAndWrittenOut) {
  LlmTokenizer qwen = LlmTokenizer::Load(TokenizerPath("qwen2")), llama = LlmTokenizer::Load(TokenizerPath("llama"));
  EXPECT_EQ(ParseChatFormat("auto", qwen), ChatFormat::kChatMl);
  EXPECT_EQ(ParseChatFormat("auto", llama), ChatFormat::kLlama2);
  EXPECT_EQ(ParseChatFormat("llama3", llama), ChatFormat::kLlama3);
  EXPECT_THAT([&] { ParseChatFormat("alpaca", qwen); }, ThrowsMessage<Error>(HasSubstr("allowed: none, auto, chatml")));
  EXPECT_EQ(ApplyChatTemplate(ChatFormat::kChatMl, "Be brief.", "Hi"),
            "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n");
  EXPECT_EQ(ApplyChatTemplate(ChatFormat::kLlama3, "", "Hi"),
            "<|start_header_id|>user<|end_header_id|>\n\nHi<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n");
  EXPECT_EQ(ApplyChatTemplate(ChatFormat::kLlama2, "S", "Hi"), "[INST] <<SYS>>\nS\n<</SYS>>\n\nHi [/INST]");
  EXPECT_EQ(ApplyChatTemplate(ChatFormat::kNone, "S", "Hi"), "Hi");
  LlmConfig config = LoadLlmConfig("tests/apps/data/llm_qwen2/config.json");
  EXPECT_THAT(StopTokens(config, qwen), ElementsAre(*qwen.Find("<|endoftext|>"), *qwen.Find("<|im_end|>")));
}

}  // namespace
}  // namespace tg::apps
