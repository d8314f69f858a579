// Chat prompts for apps/llm.cc: the common templates written out (tokenizer_config.json's Jinja
// templates are not interpreted), detected from the tokenizer's special tokens with "auto", and the
// tokens that end a reply.
#ifndef TG_APPS_LLM_CHAT_H_
#define TG_APPS_LLM_CHAT_H_

#include <string>
#include <string_view>
#include <vector>

#include "apps/llm_config.h"
#include "apps/llm_tokenizer.h"

namespace tg::apps {

enum class ChatFormat { kNone, kChatMl, kLlama3, kLlama2, kMistral };

// "none", "chatml" (Qwen2), "llama3", "llama2", "mistral", or "auto": chatml with <|im_start|>, llama3
// with <|start_header_id|>, mistral with [INST] as a token, llama2 with <s> and </s>, else none.
// tg::Error for any other name.
ChatFormat ParseChatFormat(std::string_view name, const LlmTokenizer& tokenizer);

// One user turn (after an optional system prompt), ready for the assistant's reply. The BOS token is
// the tokenizer's post-processor's to add, not the template's.
std::string ApplyChatTemplate(ChatFormat format, std::string_view system, std::string_view user);

// config.json's eos_token_id(s) and the end-of-turn tokens the tokenizer has (</s>, <|im_end|>,
// <|eot_id|>, <|end_of_text|>, <|endoftext|>).
std::vector<int> StopTokens(const LlmConfig& config, const LlmTokenizer& tokenizer);

}  // namespace tg::apps

#endif  // TG_APPS_LLM_CHAT_H_
