#include "generator/emit.hpp"

#include <algorithm>
#include <cctype>
#include <set>

#include "generator/expr_text.hpp"
#include "generator/named_values.hpp"

namespace kforge::generator {

std::string kernel_parameters(const Program& p, const Kernel& k) {
  std::string out;
  for (int b : k.loads)
    out += std::string(out.empty() ? "" : ", ") + "const " +
           c_type(p.buffers[static_cast<size_t>(b)].dtype) + "* __restrict__ b" + std::to_string(b);
  for (int b : k.stores)
    out += std::string(out.empty() ? "" : ", ") + c_type(p.buffers[static_cast<size_t>(b)].dtype) +
           "* __restrict__ b" + std::to_string(b);
  return out;
}

std::string kernel_arguments(const Kernel& k) {
  std::string out;
  for (int b : k.loads) out += (out.empty() ? "b" : ", b") + std::to_string(b);
  for (int b : k.stores) out += (out.empty() ? "b" : ", b") + std::to_string(b);
  return out;
}

std::string kernel_expr_text(const Kernel& k, const ExprPtr& e) {
  return expr_text(e, [&k](const Expr& l, const std::string& added) {
    if (std::count(k.local.begin(), k.local.end(), l.buffer))
      return "acc" + std::to_string(l.buffer);
    return "b" + std::to_string(l.buffer) + "[" + l.index->text + added + "]";
  });
}

std::string library_call_text(const Program& p, const Kernel& k) {
  const Buffer& b = p.buffers[static_cast<size_t>(k.library)];
  const std::string id = std::to_string(b.id);
  return "  t" + id + " = " + b.call + ".contiguous();\n  b" + id + " = t" + id + ".data_ptr<" +
         c_type(b.dtype) + ">();\n";
}

namespace {

bool identifier_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

/// `token` as a name the generator numbers by buffer (b12, acc12): its prefix and number.
std::optional<std::pair<std::string, int>> buffer_numbered(const std::string& token) {
  static const std::set<std::string> prefixes = {"b", "s", "acc", "best", "kf_st", "kf_sv"};
  size_t digits = token.size();
  while (digits > 0 && std::isdigit(static_cast<unsigned char>(token[digits - 1]))) --digits;
  if (digits == token.size() || digits == 0 || token.size() - digits > 9 ||
      (token[digits] == '0' && digits + 1 < token.size()))
    return std::nullopt;
  std::string prefix = token.substr(0, digits);
  if (!prefixes.count(prefix)) return std::nullopt;
  return std::make_pair(std::move(prefix), std::stoi(token.substr(digits)));
}

/// `token` with kernel `name` (or its twin `name_...`) replaced by `to`.
std::string renamed_kernel(const std::string& token, const std::string& name,
                           const std::string& to) {
  if (token == name) return to;
  if (token.size() > name.size() && token.compare(0, name.size(), name) == 0 &&
      token[name.size()] == '_')
    return to + token.substr(name.size());
  return token;
}

/// `text`'s identifiers through `rename`: in code (`literals`: strings and character literals
/// untouched) and in its comments (where quotes are words' apostrophes).
template <class F>
std::string map_identifiers(const std::string& text, F rename, bool literals = true) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const char c = text[i];
    if (literals && c == '/' && i + 1 < text.size() && (text[i + 1] == '/' || text[i + 1] == '*')) {
      const bool line = text[i + 1] == '/';  // a comment, to its line's end or its */
      size_t j = text.find(line ? "\n" : "*/", i + 2);
      j = j == std::string::npos ? text.size() : j + (line ? 0 : 2);
      out += map_identifiers(text.substr(i, j - i), rename, false);
      i = j;
    } else if (literals && (c == '"' || c == '\'')) {  // a literal, escapes and all
      size_t j = i + 1;
      while (j < text.size() && text[j] != c) j += text[j] == '\\' ? 2 : 1;
      j = std::min(j + 1, text.size());
      out.append(text, i, j - i);
      i = j;
    } else if (identifier_char(c)) {  // a name, or a number with its suffix (1.5e-3f, 0x1F)
      size_t j = i;
      while (j < text.size() &&
             (identifier_char(text[j]) ||
              (std::isdigit(static_cast<unsigned char>(c)) &&
               (text[j] == '.' || ((text[j] == '-' || text[j] == '+') &&
                                   (text[j - 1] == 'e' || text[j - 1] == 'E'))))))
        ++j;
      const std::string token = text.substr(i, j - i);
      out += std::isdigit(static_cast<unsigned char>(c)) ? token : rename(token);
      i = j;
    } else {
      out += c;
      ++i;
    }
  }
  return out;
}

}  // namespace

std::string renamed_buffers(const std::string& text,
                            const std::function<std::string(int)>& rename) {
  return map_identifiers(text, [&](const std::string& token) {
    const auto numbered = buffer_numbered(token);
    if (!numbered || numbered->first != "b") return token;
    std::string to = rename(numbered->second);
    return to.empty() ? token : to;
  });
}

std::string kernel_shape(const Kernel& k, const std::string& name, const std::string& functions) {
  std::map<int, int> place;  // buffer id -> its place among the parameters, then the others
  for (int b : k.loads) place.emplace(b, static_cast<int>(place.size()));
  for (int b : k.stores) place.emplace(b, static_cast<int>(place.size()));
  const std::map<int, int> parameters = place;
  return map_identifiers(functions, [&](const std::string& token) {
    const std::string kernel = renamed_kernel(token, name, "#k");
    if (kernel != token) return kernel;
    const auto numbered = buffer_numbered(token);
    if (!numbered) return token;
    const auto& [prefix, id] = *numbered;
    if (prefix == "b" && !parameters.count(id)) return token;  // not this kernel's buffer
    const auto at = place.emplace(id, static_cast<int>(place.size())).first;
    return prefix + "#" + std::to_string(at->second);
  });
}

void add_kernel(EmittedKernels& e, const Kernel& k, const std::string& name,
                const std::string& functions, const std::string& calls) {
  const auto [at, added] = e.written.emplace(kernel_shape(k, name, functions), name);
  if (added) {
    e.functions += name_repeated_values(functions);
    e.calls += calls;
  } else {
    const std::string& earlier = at->second;
    e.calls += map_identifiers(
        calls, [&](const std::string& token) { return renamed_kernel(token, name, earlier); });
  }
  e.step_ends.push_back(e.calls.size());
}

}  // namespace kforge::generator
