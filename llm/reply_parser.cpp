#include "llm/reply_parser.hpp"

#include <algorithm>
#include <cctype>
#include <sstream>

#include "common/json.hpp"

namespace kforge::llm {
namespace {

struct CodeBlock {
  std::string language;
  std::string text;
  bool closed = false;
};

std::string trim(std::string s) {
  auto not_space = [](unsigned char c) { return !std::isspace(c); };
  s.erase(s.begin(), std::find_if(s.begin(), s.end(), not_space));
  s.erase(std::find_if(s.rbegin(), s.rend(), not_space).base(), s.end());
  return s;
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

/// Fenced blocks (``` or ~~~, three or more) in order; an unclosed one runs to the end.
std::vector<CodeBlock> code_blocks(const std::string& text) {
  std::vector<CodeBlock> blocks;
  std::istringstream in(text);
  std::string line, fence;
  bool inside = false;
  while (std::getline(in, line)) {
    std::string t = trim(line);
    auto fence_of = [](const std::string& s) {
      size_t n = 0;
      char c = s.empty() ? 0 : s[0];
      if (c != '`' && c != '~') return std::string();
      while (n < s.size() && s[n] == c) ++n;
      return n >= 3 ? s.substr(0, n) : std::string();
    };
    if (!inside) {
      auto f = fence_of(t);
      if (f.empty()) continue;
      inside = true;
      fence = f;
      blocks.push_back({lower(trim(t.substr(f.size()))), "", false});
    } else if (t.rfind(fence, 0) == 0 && trim(t.substr(fence.size())).empty()) {
      inside = false;
      blocks.back().closed = true;
    } else {
      blocks.back().text += line + "\n";
    }
  }
  return blocks;
}

/// The value after "Label:" on a line of its own (markdown emphasis around the label allowed).
std::string field(const std::string& text, const std::string& label) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::string t = trim(line);
    t.erase(std::remove(t.begin(), t.end(), '*'), t.end());
    if (t.size() > label.size() && lower(t.substr(0, label.size())) == label &&
        t[label.size()] == ':')
      return trim(t.substr(label.size() + 1));
  }
  return {};
}

std::string sanitised_name(const std::string& raw) {
  std::string out;
  for (char c : raw) {
    unsigned char u = static_cast<unsigned char>(c);
    if (std::isalnum(u))
      out += static_cast<char>(std::tolower(u));
    else if ((c == '_' || c == '-' || c == ' ' || c == '.') && !out.empty() && out.back() != '_')
      out += '_';
    if (out.size() >= 64) break;
  }
  while (!out.empty() && out.back() == '_') out.pop_back();
  return out;
}

/// Why a reply cut at the token limit gave nothing usable. A reasoning model's hidden reasoning
/// counts within the limit: a reply with no text at all spent it there.
std::string stopped_at_limit(const ChatReply& reply, const std::string& before_what) {
  const std::string tokens = std::to_string(reply.usage.output_tokens) + " tokens";
  if (trim(reply.text).empty())
    return "the model spent its whole output limit (" + tokens +
           ", reasoning included) before writing anything: raise max_tokens";
  return "the reply stopped at the token limit (" + tokens + ") before " + before_what;
}

}  // namespace

KernelReply parse_kernel_reply(const ChatReply& reply, const std::string& entry) {
  KernelReply out;
  if (trim(reply.text).empty()) {
    out.reason = reply.truncated ? stopped_at_limit(reply, "any kernel") : "the reply is empty";
    return out;
  }
  auto blocks = code_blocks(reply.text);
  const CodeBlock* chosen = nullptr;
  for (const auto& b : blocks)
    if (b.text.find("PYBIND11_MODULE") != std::string::npos) chosen = &b;  // the last one wins
  if (!chosen) {
    if (reply.truncated)
      out.reason = stopped_at_limit(reply, "any kernel");
    else if (blocks.empty())
      out.reason = "the reply has no code block";
    else
      out.reason = "no code block of the reply registers a module with PYBIND11_MODULE";
    return out;
  }
  if (!chosen->closed) {
    out.reason = reply.truncated ? "the reply stopped at the token limit inside the kernel"
                                 : "the kernel's code block is not closed (the reply was cut)";
    return out;
  }
  if (chosen->text.find("\"" + entry + "\"") == std::string::npos) {
    out.reason = "the kernel does not register \"" + entry + "\" with m.def";
    return out;
  }
  out.ok = true;
  out.source = chosen->text;
  out.name = sanitised_name(field(reply.text, "name"));
  out.rationale = field(reply.text, "rationale").substr(0, 400);
  return out;
}

VerifierReply parse_verifier_reply(const ChatReply& reply) {
  VerifierReply out;
  std::vector<std::string> candidates;
  for (const auto& b : code_blocks(reply.text)) candidates.push_back(b.text);
  auto open = reply.text.find('{');
  auto close = reply.text.rfind('}');
  if (open != std::string::npos && close != std::string::npos && close > open)
    candidates.push_back(reply.text.substr(open, close - open + 1));
  for (const auto& text : candidates) {
    auto doc = json::parse(text);
    if (!doc.value || !(*doc.value)["verdict"].is_string()) continue;
    auto verdict = lower((*doc.value)["verdict"].as_string());
    if (verdict != "accept" && verdict != "reject" && verdict != "pass" && verdict != "fail")
      continue;
    out.decided = true;
    out.accept = verdict == "accept" || verdict == "pass";
    const auto& reasons = (*doc.value)["reasons"];
    if (reasons.is_string()) out.reasons.push_back(reasons.as_string());
    for (const auto& r : reasons.as_array())
      if (r.is_string()) out.reasons.push_back(r.as_string());
    return out;
  }
  // Plain text: "VERDICT: accept" on a line of its own.
  auto verdict = lower(field(reply.text, "verdict"));
  if (verdict.rfind("accept", 0) == 0 || verdict.rfind("reject", 0) == 0) {
    out.decided = true;
    out.accept = verdict.rfind("accept", 0) == 0;
    return out;
  }
  out.reason = reply.truncated ? stopped_at_limit(reply, "a verdict")
                               : "the verifier's reply has no verdict";
  return out;
}

StrategiesReply parse_strategies_reply(const ChatReply& reply, int count) {
  constexpr size_t kMaxLength = 400;
  StrategiesReply out;
  std::istringstream in(reply.text);
  std::string line;
  // A line cut at the token limit is not a strategy: the last one of a truncated reply is dropped.
  std::vector<std::string> lines;
  while (std::getline(in, line)) lines.push_back(line);
  if (reply.truncated && !lines.empty()) lines.pop_back();
  for (const auto& raw : lines) {
    std::string t = trim(raw);
    size_t skip = 0;
    if (t.rfind("- ", 0) == 0 || t.rfind("* ", 0) == 0) {
      skip = 2;
    } else {
      while (skip < t.size() && std::isdigit(static_cast<unsigned char>(t[skip]))) ++skip;
      if (skip == 0 || skip + 1 >= t.size() || (t[skip] != '.' && t[skip] != ')')) continue;
      ++skip;
    }
    std::string text = trim(t.substr(skip));
    // Markdown emphasis around the whole item says nothing.
    while (text.size() > 4 && text.rfind("**", 0) == 0 && text.find("**", 2) == text.size() - 2)
      text = trim(text.substr(2, text.size() - 4));
    if (text.empty() || text.size() > kMaxLength) continue;
    if (std::find(out.strategies.begin(), out.strategies.end(), text) != out.strategies.end())
      continue;
    out.strategies.push_back(text);
    if (static_cast<int>(out.strategies.size()) >= count) break;
  }
  out.ok = !out.strategies.empty();
  if (!out.ok)
    out.reason = reply.truncated ? stopped_at_limit(reply, "any strategy")
                                 : "the reply lists no strategy (lines starting with \"- \")";
  return out;
}

}  // namespace kforge::llm
