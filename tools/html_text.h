// html_text.h: text that goes into the generated HTML pages of tg's tools (tg bench --html, tg profile
// --html): escaped for element text and attribute values, and JSON made safe inside a <script> element.
#ifndef TG_TOOLS_HTML_TEXT_H_
#define TG_TOOLS_HTML_TEXT_H_

#include <string>
#include <string_view>

namespace tg::tools {

// Safe as element text and inside a double-quoted attribute.
inline std::string HtmlEscaped(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

// JSON inside <script>: "</" could end the element early, and "<\/" means the same to JSON.
inline std::string ScriptSafeJson(std::string_view json) {
  std::string out;
  for (size_t i = 0; i < json.size(); ++i) {
    out += json[i];
    if (json[i] == '<' && i + 1 < json.size() && json[i + 1] == '/') out += '\\';
  }
  return out;
}

}  // namespace tg::tools

#endif  // TG_TOOLS_HTML_TEXT_H_
