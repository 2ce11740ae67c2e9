#include "common/json.hpp"

#include <simdjson.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

namespace kforge::json {
namespace {

const Value kNull;
const std::string kEmptyString;
const Array kEmptyArray;
const Object kEmptyObject;

// A key given twice in one object: which value counts would be the reader's guess, so the
// document is refused. The conversion stops at the first one and says where it is: the key, and
// the path to its object ("budget", "tasks[2]"), built on the way out.
struct Duplicate {
  bool found = false;
  std::string key, path;

  void inside(const std::string& step) {
    path = step + (path.empty() || path[0] == '[' ? "" : ".") + path;
  }
};

Value from_simdjson(simdjson::dom::element e, Duplicate& duplicate) {
  switch (e.type()) {
    case simdjson::dom::element_type::ARRAY: {
      Array a;
      for (auto child : e.get_array()) {
        a.push_back(from_simdjson(child, duplicate));
        if (duplicate.found) {
          duplicate.inside("[" + std::to_string(a.size() - 1) + "]");
          return {};
        }
      }
      return Value(std::move(a));
    }
    case simdjson::dom::element_type::OBJECT: {
      Object o;
      std::set<std::string_view> seen;
      for (auto field : e.get_object()) {
        if (!seen.insert(field.key).second) {
          duplicate = {true, std::string(field.key), ""};
          return {};
        }
        o.emplace_back(std::string(field.key), from_simdjson(field.value, duplicate));
        if (duplicate.found) {
          duplicate.inside(std::string(field.key));
          return {};
        }
      }
      return Value(std::move(o));
    }
    case simdjson::dom::element_type::INT64:
      return Value(int64_t(e));
    case simdjson::dom::element_type::UINT64:
      return Value(uint64_t(e));
    case simdjson::dom::element_type::DOUBLE:
      return Value(double(e));
    case simdjson::dom::element_type::STRING:
      return Value(std::string_view(e));
    case simdjson::dom::element_type::BOOL:
      return Value(bool(e));
    case simdjson::dom::element_type::NULL_VALUE:
      return Value();
  }
  return Value();
}

void append_number(std::string& out, double v) {
  if (!std::isfinite(v)) {
    out += "null";  // JSON has no inf/nan; readers treat null numbers as missing
    return;
  }
  if (v == std::floor(v) && std::fabs(v) < 1e15) {
    out += std::to_string(static_cast<int64_t>(v));
    return;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  out += buf;
}

void dump_into(const Value& v, std::string& out) {
  if (v.is_null()) {
    out += "null";
  } else if (v.is_bool()) {
    out += v.as_bool() ? "true" : "false";
  } else if (v.is_integer()) {
    // A negative one is an int64_t; the others read exactly as unsigned.
    const int64_t i = v.as_int(0);
    out += i < 0 ? std::to_string(i) : std::to_string(v.as_uint(0));
  } else if (v.is_number()) {
    append_number(out, v.as_number());
  } else if (v.is_string()) {
    append_quoted(out, v.as_string());
  } else if (v.is_array()) {
    out += '[';
    bool first = true;
    for (const auto& e : v.as_array()) {
      if (!first) out += ',';
      first = false;
      dump_into(e, out);
    }
    out += ']';
  } else {
    out += '{';
    bool first = true;
    for (const auto& [k, e] : v.as_object()) {
      if (!first) out += ',';
      first = false;
      append_quoted(out, k);
      out += ':';
      dump_into(e, out);
    }
    out += '}';
  }
}

}  // namespace

bool Value::as_bool(bool fallback) const {
  auto p = std::get_if<bool>(&data_);
  return p ? *p : fallback;
}
double Value::as_number(double fallback) const {
  if (auto p = std::get_if<double>(&data_)) return *p;
  if (auto p = std::get_if<int64_t>(&data_)) return static_cast<double>(*p);
  if (auto p = std::get_if<uint64_t>(&data_)) return static_cast<double>(*p);
  return fallback;
}
int64_t Value::as_int(int64_t fallback) const {
  if (auto p = std::get_if<int64_t>(&data_)) return *p;
  if (auto p = std::get_if<uint64_t>(&data_))
    return *p <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max())
               ? static_cast<int64_t>(*p)
               : fallback;
  if (auto p = std::get_if<double>(&data_))
    return std::isfinite(*p) && std::fabs(*p) < 9.2e18 ? static_cast<int64_t>(std::llround(*p))
                                                       : fallback;
  return fallback;
}
uint64_t Value::as_uint(uint64_t fallback) const {
  if (auto p = std::get_if<uint64_t>(&data_)) return *p;
  if (auto p = std::get_if<int64_t>(&data_)) return *p >= 0 ? static_cast<uint64_t>(*p) : fallback;
  if (auto p = std::get_if<double>(&data_))
    return std::isfinite(*p) && *p >= 0 && *p < 1.8e19 ? static_cast<uint64_t>(std::llround(*p))
                                                       : fallback;
  return fallback;
}
const std::string& Value::as_string() const {
  auto p = std::get_if<std::string>(&data_);
  return p ? *p : kEmptyString;
}
std::string Value::as_string(std::string fallback) const {
  auto p = std::get_if<std::string>(&data_);
  return p ? *p : fallback;
}
const Array& Value::as_array() const {
  auto p = std::get_if<std::shared_ptr<Array>>(&data_);
  return p ? **p : kEmptyArray;
}
const Object& Value::as_object() const {
  auto p = std::get_if<std::shared_ptr<Object>>(&data_);
  return p ? **p : kEmptyObject;
}
const Value& Value::operator[](std::string_view key) const {
  for (const auto& [k, v] : as_object())
    if (k == key) return v;
  return kNull;
}
const Value& Value::operator[](size_t index) const {
  const auto& a = as_array();
  return index < a.size() ? a[index] : kNull;
}
bool Value::contains(std::string_view key) const {
  for (const auto& [k, v] : as_object())
    if (k == key) return true;
  return false;
}
// Copies share their array or object until one of them is changed: the one changed takes its own
// copy first (its members are shared in turn, and copied when they are changed).
Array& Value::array() {
  if (!is_array()) data_ = std::make_shared<Array>();
  auto& shared = std::get<std::shared_ptr<Array>>(data_);
  if (shared.use_count() > 1) shared = std::make_shared<Array>(*shared);
  return *shared;
}
Object& Value::object() {
  if (!is_object()) data_ = std::make_shared<Object>();
  auto& shared = std::get<std::shared_ptr<Object>>(data_);
  if (shared.use_count() > 1) shared = std::make_shared<Object>(*shared);
  return *shared;
}
Value& Value::set(std::string key, Value v) {
  auto& o = object();
  for (auto& [k, e] : o)
    if (k == key) {
      e = std::move(v);
      return *this;
    }
  o.emplace_back(std::move(key), std::move(v));
  return *this;
}
Value& Value::push(Value v) {
  array().push_back(std::move(v));
  return *this;
}
std::string Value::dump() const {
  std::string out;
  dump_into(*this, out);
  return out;
}

void append_quoted(std::string& out, std::string_view s) {
  out += '"';
  for (unsigned char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  out += '"';
}

ParseResult parse(std::string_view text) {
  simdjson::dom::parser parser;
  simdjson::padded_string padded(text);
  simdjson::dom::element root;
  auto error = parser.parse(padded).get(root);
  if (error) return {std::nullopt, simdjson::error_message(error)};
  Duplicate duplicate;
  Value v = from_simdjson(root, duplicate);
  if (duplicate.found)
    return ParseResult::failure(
        "the key \"" + duplicate.key + "\" appears twice in " +
        (duplicate.path.empty() ? std::string("the top-level object") : duplicate.path));
  return {std::move(v), {}};
}

ParseResult parse_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {std::nullopt, "cannot open " + path};
  std::stringstream ss;
  ss << in.rdbuf();
  auto result = parse(ss.str());
  if (!result.value) result.error = path + ": " + result.error;
  return result;
}

}  // namespace kforge::json
