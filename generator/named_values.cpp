#include "generator/named_values.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

namespace kforge::generator {

namespace {

/// The shortest parenthesised text worth a name.
constexpr size_t kShortestNamed = 16;
/// The most names one line takes (a bound on the rounds, each of which names one text).
constexpr int kMostNames = 400;

bool identifier_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

/// Whether `g` (a parenthesised text) is arithmetic of names and literals alone: no load, call,
/// cast, comparison, assignment or increment, and every quotient and remainder by a literal other
/// than 0, so that computing it where the statement's selection would not is harmless.
bool arithmetic_only(std::string_view g) {
  for (size_t i = 0; i < g.size(); ++i) {
    const char c = g[i];
    if (!identifier_char(c) && c != ' ' && c != '+' && c != '-' && c != '*' && c != '/' &&
        c != '%' && c != '(' && c != ')')
      return false;
    if ((c == '+' || c == '-') && i + 1 < g.size() && g[i + 1] == c) return false;
    if (c == '(' && i > 0) {  // a call's arguments: a name before the parenthesis
      size_t j = i;
      while (j > 0 && g[j - 1] == ' ') --j;
      if (j > 0 && identifier_char(g[j - 1])) return false;
    }
    if (c == '/' || c == '%') {
      size_t j = i + 1;
      while (j < g.size() && g[j] == ' ') ++j;
      if (j == g.size() || !std::isdigit(static_cast<unsigned char>(g[j]))) return false;
      bool zero = true;
      for (; j < g.size() && identifier_char(g[j]); ++j)
        if (g[j] != '0') zero = false;
      if (zero) return false;
    }
  }
  return true;
}

/// The parenthesised texts of `text` that may be named, each as its offset and length: not a
/// call's or a cast's arguments (a name, `>` or `]` before the parenthesis), arithmetic_only, at
/// least kShortestNamed characters.
std::vector<std::pair<size_t, size_t>> nameable_groups(std::string_view text) {
  std::vector<std::pair<size_t, size_t>> out;
  std::vector<size_t> open;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '(') {
      open.push_back(i);
    } else if (text[i] == ')' && !open.empty()) {
      const size_t b = open.back();
      open.pop_back();
      const size_t length = i + 1 - b;
      if (length < kShortestNamed) continue;
      if (b > 0 && (identifier_char(text[b - 1]) || text[b - 1] == '>' || text[b - 1] == ']'))
        continue;
      if (arithmetic_only(text.substr(b, length))) out.emplace_back(b, length);
    }
  }
  return out;
}

/// `text` with each nameable group equal to `g` replaced by `name`. Equal balanced groups never
/// overlap, so the replacements are independent.
std::string replaced(const std::string& text, std::string_view g, const std::string& name) {
  std::vector<size_t> at;
  for (const auto& [b, length] : nameable_groups(text))
    if (std::string_view(text).substr(b, length) == g) at.push_back(b);
  std::sort(at.begin(), at.end());
  std::string out;
  size_t from = 0;
  for (size_t b : at) {
    out.append(text, from, b - from);
    out += name;
    from = b + g.size();
  }
  out.append(text, from, std::string::npos);
  return out;
}

bool reads_name(std::string_view text, std::string_view name) {
  for (size_t at = text.find(name); at != std::string_view::npos; at = text.find(name, at + 1)) {
    const bool before = at > 0 && identifier_char(text[at - 1]);
    const size_t end = at + name.size();
    const bool after = end < text.size() && identifier_char(text[end]);
    if (!before && !after) return true;
  }
  return false;
}

/// A line's expression with its repeated arithmetic named: the declarations, in an order in which
/// each reads only names declared before it, and the expression.
struct Named {
  std::vector<std::pair<std::string, std::string>> declarations;  ///< name, value
  std::string text;
};

Named name_repeats(std::string text, int& counter) {
  Named out{{}, std::move(text)};
  for (int round = 0; round < kMostNames; ++round) {
    std::map<std::string_view, int> count;
    auto tally = [&count](std::string_view t) {
      for (const auto& [b, length] : nameable_groups(t)) ++count[t.substr(b, length)];
    };
    tally(out.text);
    for (const auto& d : out.declarations) tally(d.second);
    const std::string name = "kf_ix" + std::to_string(counter);
    std::string_view best;
    long long best_saving = 0;
    for (const auto& [g, n] : count) {
      if (n < 2) continue;
      // the text's repeats, less the declaration and the name where the text was
      const auto length = static_cast<long long>(g.size());
      const auto label = static_cast<long long>(name.size());
      const long long saving = (n - 1) * length - n * label - (label + 20);
      if (saving > best_saving) {
        best_saving = saving;
        best = g;
      }
    }
    if (best.empty()) break;
    const std::string value(best);  // `best` views a text about to change
    out.text = replaced(out.text, value, name);
    size_t place = 0;  // after the last declaration the value reads
    for (size_t i = 0; i < out.declarations.size(); ++i) {
      out.declarations[i].second = replaced(out.declarations[i].second, value, name);
      if (reads_name(value, out.declarations[i].first)) place = i + 1;
    }
    out.declarations.insert(out.declarations.begin() + static_cast<std::ptrdiff_t>(place),
                            {name, value});
    ++counter;
  }
  return out;
}

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

bool starts_with_word(std::string_view s, std::string_view word) {
  return s.substr(0, word.size()) == word &&
         (s.size() == word.size() || !identifier_char(s[word.size()]));
}

/// Whether `line` is one statement that declarations may precede.
bool one_statement(std::string_view line) {
  const std::string_view t = trimmed(line);
  if (t.empty() || t.back() != ';' || t.find(';') != t.size() - 1) return false;
  if (t.find_first_of("{}#") != std::string_view::npos || t.find("//") != std::string_view::npos)
    return false;
  for (const char* keyword : {"for", "if", "while", "do", "else", "case", "default", "switch"})
    if (starts_with_word(t, keyword)) return false;
  return !line.empty() && std::isspace(static_cast<unsigned char>(line.front()));
}

/// The line with its repeats named, where it is a one-return lambda: none otherwise.
std::optional<std::string> named_lambda(const std::string& line, int& counter) {
  const std::string_view t = trimmed(line);
  if (t.substr(0, 4) != "[&](") return std::nullopt;
  const size_t open = line.find("{ return ");
  const size_t close = line.rfind("; }");
  if (open == std::string::npos || close == std::string::npos || close < open) return std::nullopt;
  const size_t from = open + 9;
  const std::string body = line.substr(from, close - from);
  if (body.find_first_of("{};") != std::string::npos) return std::nullopt;
  if (line.find_first_of("{}", close + 3) != std::string::npos) return std::nullopt;
  Named named = name_repeats(body, counter);
  std::string out = line.substr(0, open) + "{ ";
  for (const auto& [name, value] : named.declarations)
    out += "const auto " + name + " = " + value + "; ";
  return out + "return " + named.text + line.substr(close);
}

}  // namespace

std::string name_repeated_values(const std::string& functions) {
  std::string out;
  out.reserve(functions.size());
  int counter = 0;
  std::string_view previous;  // the last line that is not blank, trimmed
  size_t from = 0;
  while (from < functions.size()) {
    size_t end = functions.find('\n', from);
    if (end == std::string::npos) end = functions.size();
    const std::string line = functions.substr(from, end - from);
    const bool newline = end < functions.size();
    from = end + 1;
    std::string written = line;
    if (line.size() >= kNamedValuesLine) {
      if (auto lambda = named_lambda(line, counter)) {
        written = *lambda;
      } else if (one_statement(line) && !previous.empty() &&
                 (previous.back() == ';' || previous.back() == '{' || previous.back() == '}')) {
        const size_t indent = line.find_first_not_of(" \t");
        Named named = name_repeats(line.substr(indent), counter);
        written.clear();
        for (const auto& [name, value] : named.declarations)
          written += line.substr(0, indent) + "const auto " + name + " = " + value + ";\n";
        written += line.substr(0, indent) + named.text;
      }
    }
    out += written;
    if (newline) out += '\n';
    if (!trimmed(line).empty())
      previous = trimmed(std::string_view(functions).substr(end - line.size(), line.size()));
  }
  return out;
}

}  // namespace kforge::generator
