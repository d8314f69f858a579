// The pre-tokenizer split of byte-level BPE tokenizers after GPT-2: Qwen2's and LLaMA 3's regex
// (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,D}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|
// \s+(?!\S)|\s+ with D = 1 (Qwen2) or 3 (LLaMA 3), matched by hand. Letters are ASCII letters and every
// non-ASCII code point, numbers ASCII digits, whitespace ASCII whitespace (as apps/bpe_tokenizer.h).
// apps/llm_tokenizer.h splits text with it before merging.
#ifndef TG_APPS_LLM_PRETOKENIZER_H_
#define TG_APPS_LLM_PRETOKENIZER_H_

#include <string_view>
#include <vector>

namespace tg::apps {

// The matches of the pattern, in order; together they are |text| (invalid UTF-8 bytes count as letters).
std::vector<std::string_view> SplitLikeLlama3(std::string_view text, int max_digits);

}  // namespace tg::apps

#endif  // TG_APPS_LLM_PRETOKENIZER_H_
