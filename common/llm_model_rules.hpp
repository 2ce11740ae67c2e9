// What each LLM service documents that it refuses, by model family: the parameters a request may
// carry (OpenAI's reasoning models take max_completion_tokens and only the default sampling;
// Anthropic's extended thinking takes a budget of at least 1024 tokens below max_tokens and no
// sampling parameters). The client builds requests from it and an experiment's configuration is
// checked against it when loaded, so that a setting the service would refuse with a 400 on every
// call is named before anything runs.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kforge::llm_rules {

/// OpenAI's reasoning models: the o-series (o1, o3, o4-mini, ...) and GPT-5 and its variants,
/// except the non-reasoning gpt-5-chat models.
bool openai_reasoning_model(std::string_view model);

/// The smallest extended-thinking budget Anthropic accepts.
inline constexpr int64_t kAnthropicMinThinkingBudget = 1024;

/// A model's settings as a configuration gives them (unset: negative or empty or 0).
struct ModelSettings {
  std::string provider;  ///< "openai", "anthropic", "gemini"
  std::string model;
  double temperature = -1;
  double top_p = -1;
  int64_t max_tokens = -1;  ///< -1: default_max_tokens
  std::string reasoning_effort;
  int64_t thinking_budget = 0;
};

struct RefusedSetting {
  std::string setting;  ///< the configuration's name for it
  std::string why;      ///< what the service says, and what to do instead
};

/// Whether the model may send nothing for minutes while it reasons: OpenAI's reasoning models
/// (Chat Completions streams no bytes while they think) and Gemini's thinking models (2.5 and
/// later think by default and stream nothing of it unless asked for thoughts).
bool reasons_in_silence(const ModelSettings& s);

/// Seconds of silence after which an attempt is cut, where the configuration sets none: the
/// whole attempt's limit for a model that reasons in silence (80 s and more of silence is
/// normal there), else 120 s.
double default_idle_seconds(const ModelSettings& s, double attempt_timeout_seconds);

/// The output limit where the configuration sets none. A reasoning model's hidden reasoning counts
/// within it (OpenAI's max_completion_tokens, Gemini's maxOutputTokens, Anthropic's max_tokens
/// with thinking), so one that reasons gets room for it: 32768 tokens for OpenAI's reasoning
/// models (OpenAI's reasoning guide: reserve at least 25,000 tokens for reasoning and output) and
/// Gemini's thinking models (a 2.5 Pro thinks up to 32768 tokens by default), the thinking budget
/// plus 8192 for Anthropic with thinking; 8192 otherwise. The limit is a ceiling, not a charge:
/// only the tokens written are billed.
int64_t default_max_tokens(const ModelSettings& s);

/// The settings the service would refuse for this model, each with the reason.
std::vector<RefusedSetting> refused_settings(const ModelSettings& s);

}  // namespace kforge::llm_rules
