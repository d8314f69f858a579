// apps/llm_checkpoint: single and sharded safetensors folders, and every refusal of a bad one, each a
// tg::Error saying what is wrong.
#include "apps/llm_checkpoint.h"

#include <filesystem>
#include <fstream>
#include <map>

#include "frontend/nn/safetensors.h"
#include "frontend/tg.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/apps/app_runner.h"

namespace tg::apps {
namespace {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

// A temporary model folder holding |files| (name -> text).
std::string Folder(const std::string& name, const std::map<std::string, std::string>& files) {
  std::filesystem::path dir = std::filesystem::path(apps_test::TempDir()) / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  for (const auto& [file, text] : files) std::ofstream(dir / file) << text;
  return dir.string();
}

TEST(LlmCheckpoint, LoadsSingleAndShardedFolders) {
  EXPECT_EQ(LoadLlmCheckpoint("tests/apps/data/llm_llama").count("lm_head.weight"), 1u);
  nn::StateDict sharded = LoadLlmCheckpoint("tests/apps/data/llm_qwen2");
  EXPECT_EQ(sharded.count("model.layers.1.self_attn.q_proj.bias"), 1u);
  EXPECT_EQ(sharded.count("lm_head.weight"), 0u);
}

TEST(LlmCheckpoint, BadFoldersAreRefused) {
  EXPECT_THAT([] { LoadLlmCheckpoint(Folder("empty", {})); },
              ThrowsMessage<Error>(HasSubstr("has no model.safetensors nor model.safetensors.index.json")));
  EXPECT_THAT([] { LoadLlmCheckpoint(Folder("bad_index", {{"model.safetensors.index.json", "[1]"}})); },
              ThrowsMessage<Error>(HasSubstr("expected a JSON object with \"weight_map\"")));
  std::string missing = R"({"weight_map": {"a": "model-00001-of-00002.safetensors"}})";
  EXPECT_THAT([&] { LoadLlmCheckpoint(Folder("missing_shard", {{"model.safetensors.index.json", missing}})); },
              ThrowsMessage<Error>(HasSubstr("maps tensors to model-00001-of-00002.safetensors, which is not in")));
  std::string escape = R"({"weight_map": {"a": "../x.safetensors"}})";
  EXPECT_THAT([&] { LoadLlmCheckpoint(Folder("escape", {{"model.safetensors.index.json", escape}})); },
              ThrowsMessage<Error>(HasSubstr("shards must be files of the same folder")));
  std::string dir = Folder("lacking", {{"model.safetensors.index.json", R"({"weight_map": {"b": "s.safetensors"}})"}});
  nn::safe_save({{"a", Tensor::from_vector<float>({1, 2})}}, dir + "/s.safetensors");
  EXPECT_THAT([&] { LoadLlmCheckpoint(dir); }, ThrowsMessage<Error>(HasSubstr("s.safetensors lacks \"b\"")));
}

}  // namespace
}  // namespace tg::apps
