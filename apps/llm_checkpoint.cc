// apps/llm_checkpoint.h.
#include "apps/llm_checkpoint.h"

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "frontend/nn/safetensors.h"
#include "ir/error.h"
#include "nlohmann/json.hpp"

namespace tg::apps {
namespace {

nn::StateDict LoadSharded(const std::filesystem::path& index_path) {
  const std::string where = index_path.string();
  std::ifstream in(index_path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  nlohmann::json index = nlohmann::json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  if (index.is_discarded() || !index.is_object() || !index.contains("weight_map") || !index["weight_map"].is_object())
    throw Error(where + ": expected a JSON object with \"weight_map\": {tensor name: shard file}");
  std::map<std::string, std::set<std::string>> names_of_file;
  for (const auto& [name, file] : index["weight_map"].items()) {
    if (!file.is_string()) throw Error(where + ": weight_map[\"" + name + "\"] is " + file.dump() + ", expected a file name");
    std::string f = file.get<std::string>();
    if (f.empty() || f.find('/') != std::string::npos || f == "..")
      throw Error(where + ": weight_map[\"" + name + "\"] is \"" + f + "\"; shards must be files of the same folder");
    names_of_file[f].insert(name);
  }
  nn::StateDict all;
  for (const auto& [file, names] : names_of_file) {
    std::filesystem::path shard = index_path.parent_path() / file;
    if (!std::filesystem::is_regular_file(shard))
      throw Error(where + " maps tensors to " + file + ", which is not in " + index_path.parent_path().string());
    nn::StateDict part = nn::safe_load(shard.string(), "CPU");
    for (const std::string& name : names) {
      auto it = part.find(name);
      if (it == part.end()) throw Error(shard.string() + " lacks \"" + name + "\", which " + where + " maps to it");
      all.emplace(name, it->second);
    }
  }
  return all;
}

}  // namespace

nn::StateDict LoadLlmCheckpoint(const std::string& folder) {
  std::filesystem::path dir(folder);
  if (std::filesystem::is_regular_file(dir / "model.safetensors")) return nn::safe_load((dir / "model.safetensors").string(), "CPU");
  if (std::filesystem::is_regular_file(dir / "model.safetensors.index.json"))
    return LoadSharded(dir / "model.safetensors.index.json");
  throw Error(folder + " has no model.safetensors nor model.safetensors.index.json (Hugging Face safetensors weights)");
}

}  // namespace tg::apps
