#include "proposers/builtin/param_rule.hpp"

#include <cctype>
#include <optional>

namespace kforge::builtin {
namespace {

/// A recursive-descent reader that evaluates as it reads. A value is empty once a division by
/// zero made it undefined; the rule is then false.
class RuleReader {
 public:
  RuleReader(const std::string& text, const std::map<std::string, int64_t>& values)
      : text_(text), values_(values) {}

  Result<bool> read() {
    auto v = either();
    skip_space();
    if (error_.empty() && pos_ != text_.size()) fail("unexpected `" + text_.substr(pos_) + "`");
    if (!error_.empty()) return Result<bool>::failure("rule `" + text_ + "`: " + error_);
    return {truth(v), {}};
  }

 private:
  using Value = std::optional<int64_t>;

  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool take(const char* token) {
    skip_space();
    const std::string t(token);
    if (text_.compare(pos_, t.size(), t) != 0) return false;
    // `<` must not take the first half of `<=` (nor `=` of `==`, which no rule spells alone).
    if (t.size() == 1 && pos_ + 1 < text_.size() && text_[pos_ + 1] == '=' &&
        (t == "<" || t == ">"))
      return false;
    pos_ += t.size();
    return true;
  }
  void fail(const std::string& why) {
    if (error_.empty()) error_ = why;
  }
  /// An undefined value (a division by zero) is false.
  static bool truth(Value v) { return v && *v != 0; }
  static Value apply(Value a, Value b, int64_t (*op)(int64_t, int64_t)) {
    return a && b ? Value(op(*a, *b)) : std::nullopt;
  }

  Value either() {
    Value v = both();
    while (error_.empty() && take("||")) {
      Value r = both();
      v = truth(v) || truth(r);
    }
    return v;
  }
  Value both() {
    Value v = comparison();
    while (error_.empty() && take("&&")) {
      Value r = comparison();
      v = truth(v) && truth(r);
    }
    return v;
  }
  Value comparison() {
    Value v = sum();
    static const char* ops[] = {"<=", ">=", "==", "!=", "<", ">"};
    for (const char* op : ops) {
      if (!take(op)) continue;
      Value r = sum();
      if (!v || !r) return std::nullopt;
      const std::string o(op);
      return o == "<="   ? *v <= *r
             : o == ">=" ? *v >= *r
             : o == "==" ? *v == *r
             : o == "!=" ? *v != *r
             : o == "<"  ? *v < *r
                         : *v > *r;
    }
    return v;
  }
  Value sum() {
    Value v = product();
    while (error_.empty()) {
      if (take("+"))
        v = apply(v, product(), [](int64_t a, int64_t b) { return a + b; });
      else if (take("-"))
        v = apply(v, product(), [](int64_t a, int64_t b) { return a - b; });
      else
        break;
    }
    return v;
  }
  Value product() {
    Value v = factor();
    while (error_.empty()) {
      const bool times = take("*");
      const bool divide = !times && take("/");
      const bool modulo = !times && !divide && take("%");
      if (!times && !divide && !modulo) break;
      Value r = factor();
      if (!v || !r || ((divide || modulo) && *r == 0)) {
        v = std::nullopt;
        continue;
      }
      v = times ? *v * *r : divide ? *v / *r : *v % *r;
    }
    return v;
  }
  Value factor() {
    skip_space();
    if (take("(")) {
      Value v = either();
      if (!take(")")) fail("a `(` without its `)`");
      return v;
    }
    const size_t start = pos_;
    if (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
      while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) ++pos_;
      return std::stoll(text_.substr(start, pos_ - start));
    }
    while (pos_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_'))
      ++pos_;
    if (pos_ == start) {
      fail(pos_ < text_.size() ? "unexpected `" + text_.substr(pos_) + "`" : "it ends too soon");
      return std::nullopt;
    }
    const std::string name = text_.substr(start, pos_ - start);
    auto it = values_.find(name);
    if (it == values_.end()) {
      fail("`" + name + "` is no parameter of the template");
      return std::nullopt;
    }
    return it->second;
  }

  const std::string& text_;
  const std::map<std::string, int64_t>& values_;
  size_t pos_ = 0;
  std::string error_;
};

}  // namespace

Result<bool> rule_holds(const std::string& rule, const std::map<std::string, int64_t>& values) {
  return RuleReader(rule, values).read();
}

}  // namespace kforge::builtin
