// The value types of a conversation with an LLM, common to every provider: messages, sampling
// parameters, the reply with its token usage, and why a call failed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace kforge::llm {

struct Message {
  std::string role;  ///< "system", "user" or "assistant"
  std::string content;
};

/// Sampling and reasoning options; unset ones (negative, empty) are not sent.
struct Sampling {
  double temperature = -1;
  double top_p = -1;
  int64_t max_tokens = 8192;
  std::string reasoning_effort;  ///< OpenAI reasoning models: "low", "medium", "high"
  int64_t thinking_budget = 0;   ///< Anthropic extended thinking / Gemini thinking, in tokens
};

/// Tokens as the provider billed them, the same shape for every provider: `input_tokens` counts
/// the whole prompt, of which `cached_input_tokens` were read from the provider's prompt cache
/// (billed at the cached-input price) and `cache_write_tokens` written to it (Anthropic bills
/// a write above the input price).
struct Usage {
  int64_t input_tokens = 0;
  int64_t output_tokens = 0;  ///< including reasoning ("thinking") tokens, which are billed
  int64_t cached_input_tokens = 0;
  int64_t cache_write_tokens = 0;

  Usage& operator+=(const Usage& o) {
    input_tokens += o.input_tokens;
    output_tokens += o.output_tokens;
    cached_input_tokens += o.cached_input_tokens;
    cache_write_tokens += o.cache_write_tokens;
    return *this;
  }
};

struct ChatReply {
  std::string text;
  std::string finish_reason;  ///< as the provider says it ("stop", "end_turn", "length", ...)
  bool truncated = false;     ///< stopped at the token limit
  Usage usage;
};

/// Why a call failed, which decides whether it is tried again.
enum class FailureKind {
  none,
  transient,     ///< network, timeout, 5xx, 429 rate limit, cut stream: retried
  auth,          ///< the key is missing, wrong or lacks permission: never retried
  money,         ///< quota, credit or billing exhausted: never retried
  bad_request,   ///< the provider rejects the request itself: never retried
  garbled,       ///< a 2xx reply that is not the provider's format: retried
  offline_miss,  ///< offline, and the reply is not in the cache
};

const char* to_string(FailureKind kind);
inline bool retryable(FailureKind kind) {
  return kind == FailureKind::transient || kind == FailureKind::garbled;
}

}  // namespace kforge::llm
