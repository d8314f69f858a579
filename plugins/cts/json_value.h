// json_value.h: a small JSON reader, for the host corpus's manifest.json (host_corpus.h).
// The CTS links //plugins/abi and //plugins/kit only, so that a vendor's workspace builds it without
// our third-party libraries; this is the little of JSON the manifest needs, and all of its syntax.
#ifndef TG_PLUGINS_CTS_JSON_VALUE_H_
#define TG_PLUGINS_CTS_JSON_VALUE_H_

#include <map>
#include <string>
#include <vector>

namespace tg_cts {

class JsonValue {
 public:
  enum class Type { kNull, kBool, kNumber, kString, kArray, kObject };

  // Parses all of |text|. On a syntax error returns null and sets |error| to where and what:
  // "line 3, column 14: expected ',' or '}' after an object member".
  static JsonValue Parse(const std::string& text, std::string* error);

  Type type() const { return type_; }
  bool is_number() const { return type_ == Type::kNumber; }
  bool is_string() const { return type_ == Type::kString; }
  bool is_array() const { return type_ == Type::kArray; }
  bool is_object() const { return type_ == Type::kObject; }
  double number() const { return number_; }
  const std::string& string() const { return string_; }
  const std::vector<JsonValue>& array() const { return array_; }
  // The member |key| of an object, or nullptr (also for a value that is not an object).
  const JsonValue* Find(const std::string& key) const;

  static const char* TypeName(Type t);  // "null", "a boolean", "a number", ...

 private:
  friend class JsonParser;
  Type type_ = Type::kNull;
  bool boolean_ = false;
  double number_ = 0;
  std::string string_;
  std::vector<JsonValue> array_;
  std::map<std::string, JsonValue> object_;
};

}  // namespace tg_cts

#endif  // TG_PLUGINS_CTS_JSON_VALUE_H_
