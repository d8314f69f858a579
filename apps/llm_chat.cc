// apps/llm_chat.h: the templates as the models' tokenizer_config.json render one system + user turn.
#include "apps/llm_chat.h"

#include <algorithm>

#include "ir/error.h"

namespace tg::apps {

ChatFormat ParseChatFormat(std::string_view name, const LlmTokenizer& tokenizer) {
  if (name == "none") return ChatFormat::kNone;
  if (name == "chatml") return ChatFormat::kChatMl;
  if (name == "llama3") return ChatFormat::kLlama3;
  if (name == "llama2") return ChatFormat::kLlama2;
  if (name == "mistral") return ChatFormat::kMistral;
  if (name != "auto")
    throw Error("--chat=" + std::string(name) + " is not a chat format (allowed: none, auto, chatml, llama3, llama2, mistral)");
  if (tokenizer.Find("<|im_start|>")) return ChatFormat::kChatMl;
  if (tokenizer.Find("<|start_header_id|>")) return ChatFormat::kLlama3;
  if (tokenizer.Find("[INST]")) return ChatFormat::kMistral;
  if (tokenizer.Find("<s>") && tokenizer.Find("</s>")) return ChatFormat::kLlama2;
  return ChatFormat::kNone;
}

std::string ApplyChatTemplate(ChatFormat format, std::string_view system, std::string_view user) {
  const std::string s(system), u(user);
  switch (format) {
    case ChatFormat::kNone:
      return u;
    case ChatFormat::kChatMl:
      return (s.empty() ? "" : "<|im_start|>system\n" + s + "<|im_end|>\n") + "<|im_start|>user\n" + u +
             "<|im_end|>\n<|im_start|>assistant\n";
    case ChatFormat::kLlama3:
      return (s.empty() ? "" : "<|start_header_id|>system<|end_header_id|>\n\n" + s + "<|eot_id|>") +
             "<|start_header_id|>user<|end_header_id|>\n\n" + u +
             "<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n";
    case ChatFormat::kLlama2:
      return "[INST] " + (s.empty() ? "" : "<<SYS>>\n" + s + "\n<</SYS>>\n\n") + u + " [/INST]";
    case ChatFormat::kMistral:
      return "[INST] " + (s.empty() ? "" : s + "\n\n") + u + " [/INST]";
  }
  return u;
}

std::vector<int> StopTokens(const LlmConfig& config, const LlmTokenizer& tokenizer) {
  std::vector<int> stops = config.eos_token_ids;
  for (const char* name : {"</s>", "<|im_end|>", "<|eot_id|>", "<|end_of_text|>", "<|endoftext|>"})
    if (std::optional<int> id = tokenizer.Find(name); id && tokenizer.IsSpecial(*id)) stops.push_back(*id);
  std::sort(stops.begin(), stops.end());
  stops.erase(std::unique(stops.begin(), stops.end()), stops.end());
  return stops;
}

}  // namespace tg::apps
