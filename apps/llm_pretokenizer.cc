// apps/llm_pretokenizer.h: the regex's alternatives tried in order at each position, on code points.
#include "apps/llm_pretokenizer.h"

#include <cstddef>

namespace tg::apps {
namespace {

// A code point's class; its bytes are [begin, end) of the text.
enum class Kind { kLetter, kDigit, kNewline, kSpace, kOther };
struct Char {
  size_t begin, end;
  Kind kind;
  char ascii;  // the byte for ASCII, 0 otherwise
};

std::vector<Char> Classify(std::string_view text) {
  std::vector<Char> out;
  for (size_t i = 0; i < text.size();) {
    unsigned char b = static_cast<unsigned char>(text[i]);
    size_t len = b < 0x80 ? 1 : (b >> 5) == 6 ? 2 : (b >> 4) == 14 ? 3 : (b >> 3) == 30 ? 4 : 1;
    bool valid = i + len <= text.size();
    for (size_t k = 1; valid && k < len; ++k) valid = (static_cast<unsigned char>(text[i + k]) & 0xC0) == 0x80;
    if (!valid) len = 1;
    Kind kind = Kind::kLetter;
    char c = b < 0x80 ? static_cast<char>(b) : 0;
    if (b < 0x80) {
      if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) kind = Kind::kLetter;
      else if (c >= '0' && c <= '9') kind = Kind::kDigit;
      else if (c == '\n' || c == '\r') kind = Kind::kNewline;
      else if (c == ' ' || c == '\t' || c == '\v' || c == '\f') kind = Kind::kSpace;
      else kind = Kind::kOther;
    }
    out.push_back({i, i + len, kind, c});
    i += len;
  }
  return out;
}

bool IsSpace(Kind k) { return k == Kind::kSpace || k == Kind::kNewline; }

// The length (in code points) of the match at |i|.
size_t MatchAt(const std::vector<Char>& s, size_t i, int max_digits) {
  const size_t n = s.size();
  auto lower = [&](size_t k) { return k < n && s[k].ascii >= 'A' && s[k].ascii <= 'Z' ? s[k].ascii + 32 : k < n ? s[k].ascii : 0; };
  auto run = [&](size_t k, auto pred) {
    while (k < n && pred(s[k].kind)) ++k;
    return k;
  };
  if (s[i].ascii == '\'') {  // (?i:'s|'t|'re|'ve|'m|'ll|'d)
    char a = static_cast<char>(lower(i + 1)), b = static_cast<char>(lower(i + 2));
    if (a == 's' || a == 't' || a == 'm' || a == 'd') return 2;
    if ((a == 'r' && b == 'e') || (a == 'v' && b == 'e') || (a == 'l' && b == 'l')) return 3;
  }
  auto letter = [](Kind k) { return k == Kind::kLetter; };
  if (s[i].kind == Kind::kLetter) return run(i, letter) - i;  // [^\r\n\p{L}\p{N}]?\p{L}+
  if (s[i].kind != Kind::kNewline && s[i].kind != Kind::kDigit && i + 1 < n && s[i + 1].kind == Kind::kLetter)
    return run(i + 1, letter) - i;
  if (s[i].kind == Kind::kDigit) {  // \p{N}{1,D}
    size_t end = run(i, [](Kind k) { return k == Kind::kDigit; });
    return end - i < static_cast<size_t>(max_digits) ? end - i : static_cast<size_t>(max_digits);
  }
  auto other = [](Kind k) { return k == Kind::kOther; };
  size_t start = s[i].ascii == ' ' && i + 1 < n && s[i + 1].kind == Kind::kOther ? i + 1 : i;
  if (s[start].kind == Kind::kOther)  //  ?[^\s\p{L}\p{N}]+[\r\n]*
    return run(run(start, other), [](Kind k) { return k == Kind::kNewline; }) - i;
  size_t end = run(i, IsSpace);  // the whitespace run
  for (size_t k = end; k > i; --k)
    if (s[k - 1].kind == Kind::kNewline) return k - i;  // \s*[\r\n]+
  if (end == n || end - i == 1) return end - i;          // \s+(?!\S) to the end, or \s+
  return end - i - 1;                                    // \s+(?!\S): leave one space to the next word
}

}  // namespace

std::vector<std::string_view> SplitLikeLlama3(std::string_view text, int max_digits) {
  std::vector<Char> s = Classify(text);
  std::vector<std::string_view> out;
  for (size_t i = 0; i < s.size();) {
    size_t len = MatchAt(s, i, max_digits);
    out.push_back(text.substr(s[i].begin, s[i + len - 1].end - s[i].begin));
    i += len;
  }
  return out;
}

}  // namespace tg::apps
