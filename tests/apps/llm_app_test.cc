// //apps:llm end to end, as a user runs it: greedy generation prints the reference continuation
// (tests/apps/make_llm_reference.py) and the tokens/s line, a chat template runs, and bad folders, GGUF
// files or flags exit 1 with a message saying what is wrong.
#include <filesystem>
#include <functional>
#include <fstream>
#include <sstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/apps/app_runner.h"

namespace tg::apps_test {
namespace {

using ::testing::HasSubstr;

const std::string kData = "tests/apps/data/";

nlohmann::json Reference() {
  std::ifstream in(kData + "llm_reference.json");
  std::ostringstream s;
  s << in.rdbuf();
  return nlohmann::json::parse(s.str());
}

TEST(LlmApp, GreedyGenerationPrintsTheReferenceContinuation) {
  for (const std::string name : {"llama", "qwen2"}) {
    nlohmann::json ref = Reference()[name];
    std::string prompt = ref["prompt"].get<std::string>();
    AppRun run = RunApp("llm", {"--model=" + kData + "llm_" + name, "--prompt=" + prompt,
                                "--tokens=" + std::to_string(ref["greedy"].size())});
    ASSERT_EQ(run.exit_code, 0) << run.output;
    EXPECT_THAT(run.output, HasSubstr(prompt + ref["greedy_text"].get<std::string>() + "\n")) << name;
    EXPECT_THAT(run.output, HasSubstr("prompt: " + std::to_string(ref["ids"].size()) + " tokens in "));
    EXPECT_GT(FirstNumber(run.output, R"(device memory: peak ([0-9.]+) MB)").value_or(0), 0) << run.output;
    EXPECT_TRUE(FirstNumber(run.output, R"(generation: 10 tokens in [0-9.]+ s \(([0-9.]+) tokens/s\))").has_value())
        << run.output;
  }
}

// The GGUF files that carry a tokenizer (tests/apps/make_llm_gguf_reference.py): Q8_0 weights, the
// tokenizer from tokenizer.ggml.*, the continuation PyTorch computed on the file's own weights.
TEST(LlmApp, GgufGreedyGenerationPrintsTheReferenceContinuation) {
  nlohmann::json all = nlohmann::json::parse(std::ifstream(kData + "llm_gguf/reference.json"));
  for (const std::string name : {"llama_q8_0", "qwen2_q8_0"}) {
    const nlohmann::json& ref = all[name];
    std::string prompt = ref["prompt"].get<std::string>();
    AppRun run = RunApp("llm", {"--model=" + kData + "llm_gguf/" + name + ".gguf", "--prompt=" + prompt,
                                "--tokens=" + std::to_string(ref["greedy"].size())});
    ASSERT_EQ(run.exit_code, 0) << run.output;
    EXPECT_THAT(run.output, HasSubstr(prompt + ref["greedy_text"].get<std::string>() + "\n")) << name;
    EXPECT_THAT(run.output, HasSubstr("prompt: " + std::to_string(ref["ids"].size()) + " tokens in ")) << name;
  }
}

TEST(LlmApp, ChatAndSamplingRun) {
  AppRun run = RunApp("llm", {"--model=" + kData + "llm_qwen2", "--chat=auto", "--system=Be brief.", "--prompt=hi",
                              "--tokens=5", "--temperature=0.8", "--top_k=20", "--top_p=0.9",
                              "--repetition_penalty=1.2", "--seed=3"});
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_THAT(run.output, HasSubstr("tokens/s"));
}

// A copy of the llama test folder with |config| changed by |edit|, or a file removed.
std::string Changed(const std::string& name, const std::function<void(nlohmann::json&)>& edit,
                    const std::string& remove = "") {
  std::filesystem::path dir = std::filesystem::path(TempDir()) / name;
  std::filesystem::remove_all(dir);
  std::filesystem::copy(kData + "llm_llama", dir);
  nlohmann::json config = nlohmann::json::parse(std::ifstream(dir / "config.json"));
  edit(config);
  std::ofstream(dir / "config.json") << config.dump();
  if (!remove.empty()) std::filesystem::remove(dir / remove);
  return dir.string();
}

void ExpectFails(const std::vector<std::string>& args, const std::string& message) {
  AppRun run = RunApp("llm", args);
  EXPECT_EQ(run.exit_code, 1) << run.output;
  EXPECT_THAT(run.output, HasSubstr(message));
}

TEST(LlmApp, BadFoldersAndFlagsAreErrors) {
  ExpectFails({}, "llm: --model is required");
  ExpectFails({"--model=/nonexistent/model"}, "llm: --model=/nonexistent/model is not a folder");
  ExpectFails({"--model=/nonexistent/model.gguf"}, "llm: --model=/nonexistent/model.gguf is not a file");
  ExpectFails({"--model=" + kData + "llm_gguf/bad_architecture.gguf"}, "general.architecture \"gptneox\" is not supported");
  auto same = [](nlohmann::json&) {};
  ExpectFails({"--model=" + Changed("no_config", same, "config.json")}, "config.json: cannot be read");
  ExpectFails({"--model=" + Changed("no_tokenizer", same, "tokenizer.json")}, "tokenizer.json: cannot be read");
  ExpectFails({"--model=" + Changed("no_weights", same, "model.safetensors")}, "has no model.safetensors");
  ExpectFails({"--model=" + Changed("bad_config", [](nlohmann::json& c) { c["model_type"] = "bert"; })},
              "model_type \"bert\" is not supported");
  ExpectFails({"--model=" + Changed("small_vocab", [](nlohmann::json& c) { c["vocab_size"] = 100; })},
              "the tokenizer does not belong to this model");
  ExpectFails({"--model=" + Changed("wider", [](nlohmann::json& c) { c["hidden_size"] = 64; })},
              "\"model.embed_tokens.weight\" is (360, 32), expected (360, 64)");
  ExpectFails({"--model=" + Changed("untied", [](nlohmann::json& c) { c["num_hidden_layers"] = 3; })},
              "missing tensor \"model.layers.2.input_layernorm.weight\"");
  const std::string llama = "--model=" + kData + "llm_llama";
  ExpectFails({llama, "--chat=alpaca"}, "--chat=alpaca is not a chat format");
  ExpectFails({llama, "--top_p=2"}, "--top_p must be in (0, 1]");
  ExpectFails({llama, "--context=4", "--prompt=The quick brown fox"}, "fill the context of 4");
}

}  // namespace
}  // namespace tg::apps_test
