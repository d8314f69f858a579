// Fuzz target: apps/llm_tokenizer.h from a tokenizer.json (LlmTokenizer::Parse) or, when the input starts
// with 'G', from a GGUF file's metadata (gguf_read, then LlmTokenizer::FromGguf). The input is
// "tokenizer.json \xFF text" or "G gguf-bytes \xFF text" (the text after the last \xFF; a fixed sample
// without one). Loading either fails with a tg::Error or gives a tokenizer whose Encode returns ids of its
// vocabulary; Decode of them may refuse with a tg::Error, never crash.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "apps/llm_tokenizer.h"
#include "frontend/nn/gguf.h"
#include "ir/error.h"
#include "tests/fuzzers/input_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 16384) return 0;  // merging is quadratic in a word's length by design (as HF tokenizers)
  static const tg::fuzz::InputFile input("llm_tokenizer", ".gguf");
  std::string_view in(reinterpret_cast<const char*>(data), size);
  const bool gguf = !in.empty() && in[0] == 'G';
  if (gguf) in.remove_prefix(1);
  size_t cut = gguf ? in.rfind('\xFF') : in.find('\xFF');
  std::string text = cut == std::string_view::npos ? "The fox's caf\u00e9 \u65e5\u672c 12345\n<s>hi</s>" : std::string(in.substr(cut + 1));
  std::string_view file = in.substr(0, cut);
  try {
    tg::apps::LlmTokenizer t = [&] {
      if (!gguf) return tg::apps::LlmTokenizer::Parse(file, "fuzz.json");
      const std::string& path = input.Write(reinterpret_cast<const uint8_t*>(file.data()), file.size());
      return tg::apps::LlmTokenizer::FromGguf(tg::nn::gguf_read(path), path);
    }();
    for (bool special : {true, false}) {
      std::vector<int> ids = t.Encode(text, special);
      for (int id : ids)
        if (id < 0 || id >= t.size()) std::abort();  // Encode only makes ids of the vocabulary
      try {
        (void)t.Decode(ids, special);
      } catch (const tg::Error&) {
      }
    }
  } catch (const tg::Error&) {
  }
  return 0;
}
