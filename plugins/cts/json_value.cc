// json_value.cc: a recursive-descent JSON parser (RFC 8259), errors by line and column.
#include "plugins/cts/json_value.h"

#include <cstdlib>
#include <string_view>

namespace tg_cts {

class JsonParser {
 public:
  explicit JsonParser(const std::string& text) : s_(text) {}

  bool Run(JsonValue* out) {
    if (!Value(out, 0)) return false;
    SkipSpace();
    return pos_ == s_.size() || Error("unexpected text after the JSON value");
  }
  const std::string& error() const { return error_; }

 private:
  // Deeper nesting than any manifest has; it keeps a hostile file from overflowing the stack.
  static constexpr int kMaxDepth = 64;

  bool Error(const std::string& what) {
    size_t line = 1, column = 1;
    for (size_t i = 0; i < pos_ && i < s_.size(); ++i) {
      if (s_[i] == '\n') ++line, column = 1;
      else ++column;
    }
    error_ = "line " + std::to_string(line) + ", column " + std::to_string(column) + ": " + what;
    return false;
  }
  void SkipSpace() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r')) ++pos_;
  }
  bool Literal(std::string_view word) {
    if (s_.compare(pos_, word.size(), word) != 0) return false;
    pos_ += word.size();
    return true;
  }

  bool Value(JsonValue* out, int depth) {
    if (depth > kMaxDepth) return Error("nested deeper than " + std::to_string(kMaxDepth) + " levels");
    SkipSpace();
    if (pos_ >= s_.size()) return Error("unexpected end of the text, expected a value");
    char c = s_[pos_];
    if (c == '{') return Object(out, depth);
    if (c == '[') return Array(out, depth);
    if (c == '"') {
      out->type_ = JsonValue::Type::kString;
      return String(&out->string_);
    }
    if (Literal("true")) return out->type_ = JsonValue::Type::kBool, out->boolean_ = true, true;
    if (Literal("false")) return out->type_ = JsonValue::Type::kBool, out->boolean_ = false, true;
    if (Literal("null")) return out->type_ = JsonValue::Type::kNull, true;
    if (c == '-' || (c >= '0' && c <= '9')) return Number(out);
    return Error(std::string("unexpected character '") + c + "', expected a value");
  }

  bool Number(JsonValue* out) {
    const char* start = s_.c_str() + pos_;
    char* end = nullptr;
    double v = std::strtod(start, &end);
    // strtod also reads hex, inf and nan, which JSON does not have: only its digits, sign, '.', 'e'.
    for (const char* p = start; p < end; ++p) {
      if (!((*p >= '0' && *p <= '9') || *p == '-' || *p == '+' || *p == '.' || *p == 'e' || *p == 'E'))
        return Error("malformed number");
    }
    if (end == start) return Error("malformed number");
    pos_ += static_cast<size_t>(end - start);
    out->type_ = JsonValue::Type::kNumber;
    out->number_ = v;
    return true;
  }

  static void AppendUtf8(unsigned cp, std::string* out) {
    if (cp < 0x80) {
      *out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      *out += static_cast<char>(0xC0 | (cp >> 6));
      *out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      *out += static_cast<char>(0xE0 | (cp >> 12));
      *out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      *out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      *out += static_cast<char>(0xF0 | (cp >> 18));
      *out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      *out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      *out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }

  bool Hex4(unsigned* out) {
    if (pos_ + 4 > s_.size()) return Error("truncated \\u escape");
    *out = 0;
    for (int i = 0; i < 4; ++i) {
      char h = s_[pos_++];
      unsigned d = h >= '0' && h <= '9' ? h - '0' : h >= 'a' && h <= 'f' ? h - 'a' + 10 : h >= 'A' && h <= 'F' ? h - 'A' + 10 : 16;
      if (d == 16) return Error("bad hex digit in a \\u escape");
      *out = *out * 16 + d;
    }
    return true;
  }

  bool String(std::string* out) {
    ++pos_;  // the opening quote
    while (pos_ < s_.size()) {
      char c = s_[pos_++];
      if (c == '"') return true;
      if (static_cast<unsigned char>(c) < 0x20) return Error("control character inside a string");
      if (c != '\\') {
        *out += c;
        continue;
      }
      if (pos_ >= s_.size()) break;
      char e = s_[pos_++];
      switch (e) {
        case '"': case '\\': case '/': *out += e; break;
        case 'b': *out += '\b'; break;
        case 'f': *out += '\f'; break;
        case 'n': *out += '\n'; break;
        case 'r': *out += '\r'; break;
        case 't': *out += '\t'; break;
        case 'u': {
          unsigned cp = 0;
          if (!Hex4(&cp)) return false;
          if (cp >= 0xD800 && cp < 0xDC00 && s_.compare(pos_, 2, "\\u") == 0) {  // a surrogate pair
            pos_ += 2;
            unsigned lo = 0;
            if (!Hex4(&lo)) return false;
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          }
          AppendUtf8(cp, out);
          break;
        }
        default: return Error(std::string("unknown escape '\\") + e + "'");
      }
    }
    return Error("unterminated string");
  }

  bool Array(JsonValue* out, int depth) {
    ++pos_;
    out->type_ = JsonValue::Type::kArray;
    SkipSpace();
    if (pos_ < s_.size() && s_[pos_] == ']') return ++pos_, true;
    for (;;) {
      out->array_.emplace_back();
      if (!Value(&out->array_.back(), depth + 1)) return false;
      SkipSpace();
      if (pos_ < s_.size() && s_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (pos_ < s_.size() && s_[pos_] == ']') return ++pos_, true;
      return Error("expected ',' or ']' after an array element");
    }
  }

  bool Object(JsonValue* out, int depth) {
    ++pos_;
    out->type_ = JsonValue::Type::kObject;
    SkipSpace();
    if (pos_ < s_.size() && s_[pos_] == '}') return ++pos_, true;
    for (;;) {
      SkipSpace();
      if (pos_ >= s_.size() || s_[pos_] != '"') return Error("expected a member name in quotes");
      std::string key;
      if (!String(&key)) return false;
      SkipSpace();
      if (pos_ >= s_.size() || s_[pos_] != ':') return Error("expected ':' after member name \"" + key + "\"");
      ++pos_;
      JsonValue v;
      if (!Value(&v, depth + 1)) return false;
      if (!out->object_.emplace(key, std::move(v)).second) return Error("member \"" + key + "\" appears twice");
      SkipSpace();
      if (pos_ < s_.size() && s_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (pos_ < s_.size() && s_[pos_] == '}') return ++pos_, true;
      return Error("expected ',' or '}' after an object member");
    }
  }

  const std::string& s_;
  size_t pos_ = 0;
  std::string error_;
};

JsonValue JsonValue::Parse(const std::string& text, std::string* error) {
  JsonParser parser(text);
  JsonValue v;
  if (parser.Run(&v)) return v;
  *error = parser.error();
  return JsonValue();
}

const JsonValue* JsonValue::Find(const std::string& key) const {
  if (type_ != Type::kObject) return nullptr;
  auto it = object_.find(key);
  return it == object_.end() ? nullptr : &it->second;
}

const char* JsonValue::TypeName(Type t) {
  switch (t) {
    case Type::kNull: return "null";
    case Type::kBool: return "a boolean";
    case Type::kNumber: return "a number";
    case Type::kString: return "a string";
    case Type::kArray: return "an array";
    case Type::kObject: return "an object";
  }
  return "?";
}

}  // namespace tg_cts
