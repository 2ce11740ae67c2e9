// A small JSON value for kforge's documents (task exports, worker messages, results):
// parsed by simdjson, built and printed here. Objects keep their insertion order. Integers stay
// integers (64-bit, signed or not: seeds and ids are exact), other numbers are doubles.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "common/result.hpp"

namespace kforge::json {

class Value;
using Array = std::vector<Value>;
using Object = std::vector<std::pair<std::string, Value>>;

/// One JSON value. Lookups of missing keys or wrong types return a null value rather than throw,
/// so readers check with the typed accessors' fallbacks (`as_number(fallback)`). A copy is a value
/// of its own: copies share their contents until one of them is changed (copy on write), so a
/// callee that changes the document it was given never changes its caller's.
class Value {
 public:
  Value() = default;
  Value(std::nullptr_t) {}
  Value(bool b) : data_(b) {}
  Value(int v) : data_(static_cast<int64_t>(v)) {}
  Value(int64_t v) : data_(v) {}
  Value(uint64_t v) : data_(v) {}
  Value(double v) : data_(v) {}
  Value(const char* s) : data_(std::string(s)) {}
  Value(std::string s) : data_(std::move(s)) {}
  Value(std::string_view s) : data_(std::string(s)) {}
  Value(Array a) : data_(std::make_shared<Array>(std::move(a))) {}
  Value(Object o) : data_(std::make_shared<Object>(std::move(o))) {}

  bool is_null() const { return std::holds_alternative<std::monostate>(data_); }
  bool is_bool() const { return std::holds_alternative<bool>(data_); }
  bool is_number() const {
    return std::holds_alternative<double>(data_) || std::holds_alternative<int64_t>(data_) ||
           std::holds_alternative<uint64_t>(data_);
  }
  /// A number written without a fraction or exponent (or built from an integer): exact.
  bool is_integer() const {
    return std::holds_alternative<int64_t>(data_) || std::holds_alternative<uint64_t>(data_);
  }
  bool is_string() const { return std::holds_alternative<std::string>(data_); }
  bool is_array() const { return std::holds_alternative<std::shared_ptr<Array>>(data_); }
  bool is_object() const { return std::holds_alternative<std::shared_ptr<Object>>(data_); }

  bool as_bool(bool fallback = false) const;
  double as_number(double fallback = 0) const;
  /// The integer (a double rounded; fallback when not a number or out of range).
  int64_t as_int(int64_t fallback = 0) const;
  /// The same for unsigned 64-bit values (seeds): every one of them exact.
  uint64_t as_uint(uint64_t fallback = 0) const;
  const std::string& as_string() const;  ///< empty string when not a string
  std::string as_string(std::string fallback) const;
  const Array& as_array() const;    ///< empty array when not an array
  const Object& as_object() const;  ///< empty object when not an object

  /// Member of an object (null value when absent) and element of an array (null when out of range).
  const Value& operator[](std::string_view key) const;
  const Value& operator[](size_t index) const;
  bool contains(std::string_view key) const;

  /// Builders: set replaces an existing key; push appends to an array.
  Value& set(std::string key, Value v);
  Value& push(Value v);
  Array& array();    ///< turns a null value into an empty array
  Object& object();  ///< turns a null value into an empty object

  std::string dump() const;  ///< compact, one line, no trailing newline

 private:
  std::variant<std::monostate, bool, double, int64_t, uint64_t, std::string, std::shared_ptr<Array>,
               std::shared_ptr<Object>>
      data_;
};

/// Parses a document; the error says where and why when the text is not JSON or an object gives
/// a key twice.
using ParseResult = Result<Value>;
ParseResult parse(std::string_view text);
ParseResult parse_file(const std::string& path);

/// Appends `s` to `out` as a quoted JSON string.
void append_quoted(std::string& out, std::string_view s);

}  // namespace kforge::json
