// entry_params.cc: the parameter lists of a PTX module's kernels, and their text in an envelope.
#include "plugins/cuda/entry_params.h"

#include <cctype>

namespace tg_cuda {
namespace {

constexpr std::string_view kPrefix = "params ";

// PTX identifiers ([A-Za-z_$%][A-Za-z0-9_$]*) and the dot of directives: what may not touch a
// directive for it to be one.
bool WordChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '%' || c == '.'; }

// |ptx| with its // and /* */ comments blanked, so a commented-out signature is not read.
std::string WithoutComments(std::string_view ptx) {
  std::string out(ptx);
  for (size_t i = 0; i + 1 < out.size(); ++i) {
    if (out[i] != '/' || (out[i + 1] != '/' && out[i + 1] != '*')) continue;
    bool line = out[i + 1] == '/';
    size_t end = line ? out.find('\n', i) : out.find("*/", i + 2);
    end = end == std::string::npos ? out.size() : end + (line ? 0 : 2);
    for (size_t j = i; j < end; ++j) out[j] = ' ';
    i = end == 0 ? 0 : end - 1;
  }
  return out;
}

// The next |directive| (".entry") at or after |from| that stands alone, or npos.
size_t FindDirective(std::string_view text, std::string_view directive, size_t from) {
  for (size_t at = text.find(directive, from); at != std::string_view::npos; at = text.find(directive, at + 1)) {
    size_t end = at + directive.size();
    if ((at == 0 || !WordChar(text[at - 1])) && (end == text.size() || !WordChar(text[end]))) return at;
  }
  return std::string_view::npos;
}

size_t SkipSpace(std::string_view text, size_t at) {
  while (at < text.size() && std::isspace(static_cast<unsigned char>(text[at]))) ++at;
  return at;
}

uint32_t CountDirectives(std::string_view text, std::string_view directive) {
  uint32_t n = 0;
  for (size_t at = FindDirective(text, directive, 0); at != std::string_view::npos;
       at = FindDirective(text, directive, at + 1)) {
    ++n;
  }
  return n;
}

}  // namespace

EntryParams PtxEntryParams(std::string_view ptx) {
  std::string text = WithoutComments(ptx);
  std::string_view t = text;
  EntryParams out;
  for (size_t at = FindDirective(t, ".entry", 0); at != std::string_view::npos; at = FindDirective(t, ".entry", at)) {
    size_t name_at = SkipSpace(t, at + 6), end = name_at;
    while (end < t.size() && WordChar(t[end]) && t[end] != '.') ++end;
    at = SkipSpace(t, end);
    if (end == name_at) continue;
    uint32_t n = 0;
    if (at < t.size() && t[at] == '(') {
      size_t close = t.find(')', at);
      if (close == std::string_view::npos) break;  // a torn signature: the driver refuses the module
      n = CountDirectives(t.substr(at + 1, close - at - 1), ".param");
      at = close;
    }
    out[std::string(t.substr(name_at, end - name_at))] = n;
  }
  return out;
}

std::string EncodeEntryParams(const EntryParams& params) {
  std::string out(kPrefix);
  for (const auto& [name, n] : params) {
    if (out.size() > kPrefix.size()) out += ',';
    out += name + "=" + std::to_string(n);
  }
  return out;
}

bool DecodeEntryParams(std::string_view text, EntryParams* params) {
  if (text.substr(0, kPrefix.size()) != kPrefix) return false;
  params->clear();
  text.remove_prefix(kPrefix.size());
  while (!text.empty()) {
    size_t comma = text.find(',');
    std::string_view item = text.substr(0, comma);
    size_t eq = item.find('=');
    if (eq == std::string_view::npos || eq == 0 || eq + 1 == item.size()) return false;
    uint64_t n = 0;
    for (char c : item.substr(eq + 1)) {
      if (!std::isdigit(static_cast<unsigned char>(c)) || (n = n * 10 + uint64_t(c - '0')) > UINT32_MAX) return false;
    }
    (*params)[std::string(item.substr(0, eq))] = uint32_t(n);
    text.remove_prefix(comma == std::string_view::npos ? text.size() : comma + 1);
  }
  return true;
}

}  // namespace tg_cuda
