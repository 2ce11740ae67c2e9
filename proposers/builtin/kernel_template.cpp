#include "proposers/builtin/kernel_template.hpp"

#include "proposers/builtin/param_rule.hpp"

#include <algorithm>
#include <optional>
#include <regex>
#include <sstream>

namespace kforge::builtin {

// Generated from proposers/builtin/templates/ by cmake/EmbedTextFiles.cmake.
const std::vector<std::pair<std::string, std::string>>& embedded_templates();

namespace {

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

const std::regex& param_line() {
  // constexpr int kName = 123;  // kforge:param name 1 2 3
  static const std::regex re(
      R"(^(\s*constexpr\s+[\w:]+\s+\w+\s*=\s*)(-?\d+)(\s*;\s*//\s*kforge:param\s+(\w+)\s+([-\d ]+))\s*$)");
  return re;
}

const std::regex& trait_line() {
  // #define KFORGE_NAME 1  // kforge:trait name 0 1
  static const std::regex re(
      R"(^(\s*#define\s+\w+\s+)(-?\d+)(\s*//\s*kforge:trait\s+(\w+)\s+([-\d ]+))\s*$)");
  return re;
}

const std::regex& conditional_line() {
  // code  // kforge:if name
  static const std::regex re(R"(^(.*?)\s*//\s*kforge:if\s+(\w+)\s*$)");
  return re;
}

// A param or trait line's allowed values and default; an error when the default is not allowed.
Result<TemplateParam> read_values(const std::smatch& m, const std::string& where) {
  TemplateParam p;
  p.name = m[4];
  std::istringstream values(m[5].str());
  for (int64_t v; values >> v;) p.values.push_back(v);
  const int64_t current = std::stoll(m[2]);
  auto at = std::find(p.values.begin(), p.values.end(), current);
  if (at == p.values.end())
    return Result<TemplateParam>::failure(where + ": the default " + m[2].str() + " of `" + p.name +
                                          "` is not among its values");
  p.default_index = static_cast<size_t>(at - p.values.begin());
  return {std::move(p), {}};
}

}  // namespace

Result<KernelTemplate> KernelTemplate::parse(const std::string& file_name, std::string text) {
  using Parsed = Result<KernelTemplate>;
  KernelTemplate t;
  t.text_ = std::move(text);
  auto lines = split_lines(t.text_);
  static const std::regex meta(R"(^//\s*kforge:(template|family|backend)\s+(\S+)\s*$)");
  static const std::regex formerly(R"(^//\s*kforge:formerly\s+(\S+)\s*$)");
  static const std::regex rule(R"(^\s*//\s*kforge:require\s+(.+?)\s*$)");
  std::vector<std::string> former;
  std::vector<size_t> rule_lines;
  for (size_t i = 0; i < lines.size(); ++i) {
    std::smatch m;
    if (std::regex_match(lines[i], m, meta)) {
      (m[1] == "template" ? t.name_ : m[1] == "family" ? t.family_ : t.backend_) = m[2];
    } else if (std::regex_match(lines[i], m, formerly)) {
      former.push_back(m[1]);
    } else if (std::regex_match(lines[i], m, rule)) {
      t.rules_.push_back(m[1]);
      rule_lines.push_back(i);
    } else if (std::regex_match(lines[i], m, param_line())) {
      auto p = read_values(m, file_name + ":" + std::to_string(i + 1));
      if (!p) return Parsed::failure(p.error);
      t.params_.push_back(*p);
      t.param_lines_.push_back(i);
    } else if (std::regex_match(lines[i], m, trait_line())) {
      auto p = read_values(m, file_name + ":" + std::to_string(i + 1));
      if (!p) return Parsed::failure(p.error);
      t.traits_.push_back(*p);
      t.trait_lines_.push_back(i);
    } else if (lines[i].find("kforge:param") != std::string::npos) {
      return Parsed::failure(
          file_name + ":" + std::to_string(i + 1) +
          ": a kforge:param line must read `constexpr TYPE kName = VALUE;  // kforge:param "
          "name v1 v2 ...`");
    } else if (lines[i].find("kforge:trait") != std::string::npos) {
      return Parsed::failure(
          file_name + ":" + std::to_string(i + 1) +
          ": a kforge:trait line must read `#define KFORGE_NAME VALUE  // kforge:trait name v1 "
          "v2 ...`");
    }
  }
  if (t.name_.empty() || t.family_.empty() || t.backend_.empty()) {
    return Parsed::failure(file_name +
                           ": needs kforge:template, kforge:family and kforge:backend lines");
  }
  for (size_t i = 0; i < lines.size(); ++i) {
    std::smatch m;
    if (std::regex_match(lines[i], m, conditional_line()) &&
        std::none_of(t.traits_.begin(), t.traits_.end(),
                     [&](const TemplateParam& p) { return p.name == m[2]; })) {
      return Parsed::failure(file_name + ":" + std::to_string(i + 1) + ": kforge:if names `" +
                             m[2].str() + "`, which no kforge:trait line declares");
    }
  }
  if (t.backend_ != "cpu" && t.backend_ != "cuda") {
    return Parsed::failure(file_name + ": backend must be cpu or cuda");
  }
  t.names_ = {t.name_};
  t.names_.insert(t.names_.end(), former.begin(), former.end());
  // Every rule must read, name only parameters, and hold for the defaults the source is written
  // with (the template compiles and passes as it stands).
  const auto defaults = t.defaults();
  for (size_t r = 0; r < t.rules_.size(); ++r) {
    auto holds = rule_holds(t.rules_[r], defaults);
    if (!holds || !*holds) {
      return Parsed::failure(
          file_name + ":" + std::to_string(rule_lines[r] + 1) + ": " +
          (holds ? "the defaults break the rule `" + t.rules_[r] + "`" : holds.error));
    }
  }
  return {std::move(t), {}};
}

ParamValues KernelTemplate::defaults() const {
  ParamValues v;
  for (const auto& p : params_) v[p.name] = p.values[p.default_index];
  return v;
}

bool KernelTemplate::valid(const ParamValues& values) const {
  if (values.size() != params_.size()) return false;
  for (const auto& p : params_) {
    auto it = values.find(p.name);
    if (it == values.end() ||
        std::find(p.values.begin(), p.values.end(), it->second) == p.values.end())
      return false;
  }
  for (const auto& rule : rules_) {
    auto holds = rule_holds(rule, values);
    if (!holds || !*holds) return false;
  }
  return true;
}

bool KernelTemplate::supports(const ParamValues& traits) const {
  for (const auto& [name, value] : traits) {
    auto it = std::find_if(traits_.begin(), traits_.end(),
                           [&](const TemplateParam& t) { return t.name == name; });
    if (it == traits_.end() ||
        std::find(it->values.begin(), it->values.end(), value) == it->values.end())
      return false;
  }
  return true;
}

std::string KernelTemplate::render(const ParamValues& values, const ParamValues& traits) const {
  auto lines = split_lines(text_);
  for (size_t i = 0; i < params_.size(); ++i) {
    std::string& line = lines[param_lines_[i]];
    std::smatch m;
    std::regex_match(line, m, param_line());
    line = m[1].str() + std::to_string(values.at(params_[i].name)) + m[3].str();
  }
  ParamValues set;  // every trait: the value given, else its default
  std::string set_traits;
  for (size_t i = 0; i < traits_.size(); ++i) {
    const auto& trait = traits_[i];
    auto given = traits.find(trait.name);
    const int64_t value = given != traits.end() ? given->second : trait.values[trait.default_index];
    set[trait.name] = value;
    std::string& line = lines[trait_lines_[i]];
    std::smatch m;
    std::regex_match(line, m, trait_line());
    line = m[1].str() + std::to_string(value) + m[3].str();
    set_traits += (set_traits.empty() ? " (" : ", ") + trait.name + "=" + std::to_string(value);
  }
  if (!set_traits.empty()) set_traits += ")";
  std::string out = "// Built-in proposer: " + key(values) + set_traits + "\n";
  // `code  // kforge:if name`: the code is kept where the trait is non-zero, else left out.
  for (const auto& l : lines) {
    std::smatch m;
    if (!std::regex_match(l, m, conditional_line()))
      out += l + "\n";
    else if (set.at(m[2]) != 0)  // parse() refused a line naming no declared trait
      out += m[1].str() + "\n";
  }
  return out;
}

std::string KernelTemplate::key(const ParamValues& values) const {
  std::string k = name_ + "{";
  bool first = true;
  for (const auto& p : params_) {
    auto it = values.find(p.name);
    k +=
        (first ? "" : ",") + p.name + "=" + (it == values.end() ? "?" : std::to_string(it->second));
    first = false;
  }
  return k + "}";
}

size_t KernelTemplate::space_size() const {
  size_t n = 1;
  for (const auto& p : params_) n *= p.values.size();
  return n;
}

json::Value KernelTemplate::to_json(const ParamValues& values) {
  json::Value doc;
  doc.object();
  for (const auto& [k, v] : values) doc.set(k, v);
  return doc;
}

bool KernelTemplate::from_json(const json::Value& doc, ParamValues& values) {
  if (!doc.is_object()) return false;
  values.clear();
  for (const auto& [k, v] : doc.as_object()) {
    if (!v.is_number()) return false;
    values[k] = v.as_int();
  }
  return true;
}

const std::vector<KernelTemplate>& builtin_templates() {
  static const std::vector<KernelTemplate> all = [] {
    std::vector<KernelTemplate> out;
    for (const auto& [file, text] : embedded_templates()) {
      auto t = KernelTemplate::parse(file, text);
      // The templates are part of the build, and a test parses every one of them: a malformed
      // template is a build defect, reported where the templates are listed.
      if (t) out.push_back(std::move(*t));
    }
    return out;
  }();
  return all;
}

}  // namespace kforge::builtin
