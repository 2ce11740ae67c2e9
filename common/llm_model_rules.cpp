#include "common/llm_model_rules.hpp"

namespace kforge::llm_rules {
namespace {

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

}  // namespace

bool openai_reasoning_model(std::string_view model) {
  // Names as the API takes them, with or without a date suffix ("o3-2025-04-16").
  if (model.size() >= 2 && model[0] == 'o' && model[1] >= '1' && model[1] <= '9') return true;
  return starts_with(model, "gpt-5") && !starts_with(model, "gpt-5-chat");
}

bool reasons_in_silence(const ModelSettings& s) {
  if (s.provider == "openai") return openai_reasoning_model(s.model) || !s.reasoning_effort.empty();
  if (s.provider == "gemini")
    return s.thinking_budget > 0 || starts_with(s.model, "gemini-2.5") ||
           starts_with(s.model, "gemini-3");
  return false;
}

double default_idle_seconds(const ModelSettings& s, double attempt_timeout_seconds) {
  return reasons_in_silence(s) ? attempt_timeout_seconds : 120;
}

int64_t default_max_tokens(const ModelSettings& s) {
  constexpr int64_t kPlain = 8192, kReasoning = 32768;
  if (s.provider == "anthropic" && s.thinking_budget > 0) return s.thinking_budget + kPlain;
  return reasons_in_silence(s) ? kReasoning : kPlain;
}

std::vector<RefusedSetting> refused_settings(const ModelSettings& s) {
  std::vector<RefusedSetting> out;
  const int64_t max_tokens = s.max_tokens > 0 ? s.max_tokens : default_max_tokens(s);
  if (s.provider == "openai") {
    if (openai_reasoning_model(s.model)) {
      // OpenAI: 400 unsupported_value, "Only the default (1) value is supported."
      if (s.temperature >= 0 && s.temperature != 1)
        out.push_back({"temperature", "OpenAI's reasoning models (" + s.model +
                                          ") accept only the default temperature, 1: leave it out"});
      if (s.top_p >= 0 && s.top_p != 1)
        out.push_back({"top_p", "OpenAI's reasoning models (" + s.model +
                                    ") accept only the default top_p, 1: leave it out"});
    } else if (!s.reasoning_effort.empty()) {
      out.push_back({"reasoning_effort", "only OpenAI's reasoning models (o1, o3, o4-mini, gpt-5) "
                                         "take it; " +
                                             s.model + " refuses it"});
    }
  }
  if (s.provider == "anthropic") {
    if (s.thinking_budget > 0) {
      if (s.thinking_budget < kAnthropicMinThinkingBudget)
        out.push_back({"thinking_budget", "Anthropic's extended thinking takes at least " +
                                              std::to_string(kAnthropicMinThinkingBudget) +
                                              " tokens"});
      if (s.thinking_budget >= max_tokens)
        out.push_back({"thinking_budget", "Anthropic counts thinking within max_tokens: the "
                                          "budget must be below max_tokens (" +
                                              std::to_string(max_tokens) + ")"});
      if (s.temperature >= 0 && s.temperature != 1)
        out.push_back({"temperature", "Anthropic takes no temperature but 1 with extended "
                                      "thinking: leave it out"});
      if (s.top_p >= 0 && s.top_p < 0.95)
        out.push_back({"top_p", "Anthropic takes top_p only between 0.95 and 1 with extended "
                                "thinking"});
    } else if (s.temperature >= 0 && s.top_p >= 0) {
      out.push_back({"top_p", "Anthropic's current models take temperature or top_p, not both"});
    }
  }
  return out;
}

}  // namespace kforge::llm_rules
