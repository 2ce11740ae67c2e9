#include "search/novelty.hpp"

#include <cctype>

#include "common/sha256.hpp"

namespace kforge::search {
namespace {

bool word_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

}  // namespace

std::string normalised_source(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  bool gap = false;  // whitespace or a comment was skipped since the last character kept
  auto keep = [&](char c) {
    // A gap matters only between two characters that would otherwise run together.
    if (gap && !out.empty() && word_char(out.back()) && word_char(c)) out += ' ';
    gap = false;
    out += c;
  };
  for (size_t i = 0; i < s.size();) {
    const char c = s[i];
    if (c == '/' && i + 1 < s.size() && s[i + 1] == '/') {
      while (i < s.size() && s[i] != '\n') ++i;
      gap = true;
    } else if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') {
      const auto end = s.find("*/", i + 2);
      i = end == std::string_view::npos ? s.size() : end + 2;
      gap = true;
    } else if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      gap = true;
    } else if (c == '"' || c == '\'') {
      keep(c);
      for (++i; i < s.size(); ++i) {
        out += s[i];
        if (s[i] == '\\' && i + 1 < s.size()) {
          out += s[++i];
        } else if (s[i] == c || s[i] == '\n') {
          ++i;
          break;
        }
      }
    } else {
      keep(c);
      ++i;
    }
  }
  return out;
}

std::string source_digest(std::string_view source) {
  return sha256_hex(normalised_source(source));
}

}  // namespace kforge::search
