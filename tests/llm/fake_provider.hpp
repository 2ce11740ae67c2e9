// A real HTTP(S) server on loopback that speaks the providers' wire formats (OpenAI chat
// completions, Anthropic messages, Gemini generateContent; whole and streamed) and plays a
// script: scripted replies and failures first (429 with retry-after, 5xx, malformed JSON,
// streams cut short, slow answers, spent credit), then a responder function for the rest.
// Tests of the LLM clients, of the proposer and verifier actors and of whole experiments use it
// so that no test needs the internet. With TLS it makes its own CA-signed certificate for
// 127.0.0.1 and localhost, and clients trust it through `ca_file()`.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace kforge::test {

/// A request as the fake provider understood it.
struct ProviderRequest {
  std::string kind;  ///< "openai", "anthropic" or "gemini"
  std::string path;
  std::map<std::string, std::string> headers;  ///< lower-case names
  std::string body;
  std::string model;
  bool stream = false;
  std::string system;  ///< the system text
  std::string user;    ///< the last user message
};

/// What the server does with one request.
struct ProviderStep {
  enum class Action { reply, status, malformed, truncated, close };
  Action action = Action::reply;
  std::string text;  ///< reply: the text (empty: ask the responder)
  int status = 200;  ///< status: the code; its body is the provider's error format
  std::string message;
  std::string error_code;  ///< status: OpenAI "code" / Anthropic "type" / Gemini "status"
  std::string raw_body;    ///< status: this body verbatim instead of one made from the above
  std::string raw_reply;   ///< reply: this JSON as the whole reply, or the one streamed event
  std::map<std::string, std::string> headers;
  int delay_ms = 0;             ///< wait before answering (a slow provider)
  std::string finish = "stop";  ///< reply: "stop" or "length"
  /// reply: prompt tokens the service says it read from its prompt cache, in each provider's
  /// documented usage fields (OpenAI prompt_tokens_details.cached_tokens, Anthropic
  /// cache_read_input_tokens, Gemini cachedContentTokenCount)
  int64_t cached_tokens = 0;

  static ProviderStep reply(std::string text) {
    ProviderStep s;
    s.text = std::move(text);
    return s;
  }
  static ProviderStep rate_limited(int retry_after_seconds);
  static ProviderStep server_error(int status = 500);
  static ProviderStep credit_exhausted();
  static ProviderStep malformed_json();
  static ProviderStep truncated_stream();
  static ProviderStep slow(int delay_ms);
  /// Gemini's 429 RESOURCE_EXHAUSTED as Google sends it: the quota's words ("You exceeded your
  /// current quota, please check your plan and billing details ..."), QuotaFailure naming a
  /// per-minute or per-day quota, and RetryInfo with `retry_delay` ("2s").
  static ProviderStep gemini_quota(bool per_day, const std::string& retry_delay);
  /// Gemini's answer to a key it does not know: 400 INVALID_ARGUMENT, ErrorInfo API_KEY_INVALID.
  static ProviderStep gemini_invalid_key();
  /// Gemini's answer to a prompt it blocks: 200, promptFeedback.blockReason and no candidates
  /// (streamed: that one chunk, then the stream ends).
  static ProviderStep gemini_blocked_prompt();
};

class FakeProvider {
 public:
  /// `address`: where it listens, "127.0.0.1" or "::1" (IPv6 loopback, if the machine has it).
  explicit FakeProvider(bool tls = false, const std::string& address = "127.0.0.1");
  ~FakeProvider();
  FakeProvider(const FakeProvider&) = delete;
  FakeProvider& operator=(const FakeProvider&) = delete;

  uint16_t port() const;
  /// The base URL a client of `kind` is configured with ("http://127.0.0.1:PORT/v1", ...).
  std::string base_url(const std::string& kind) const;
  /// The PEM certificate clients must trust (TLS only).
  std::string ca_file() const;

  /// Steps for the next requests, in order; when none is left the responder answers.
  void push(ProviderStep step);
  void set_responder(std::function<std::string(const ProviderRequest&)> responder);
  /// Requests must carry this key (in the provider's header); empty: any.
  void require_key(std::string key);
  std::vector<ProviderRequest> requests() const;
  size_t request_count() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace kforge::test
