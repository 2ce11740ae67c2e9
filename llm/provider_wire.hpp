// The wire formats of the providers kforge speaks: OpenAI-compatible chat completions (OpenAI,
// vLLM, llama.cpp server, Ollama, OpenRouter), Anthropic messages and Gemini generateContent.
// Builds each one's HTTP request, reads its reply whole or streamed (SSE), and sorts its errors
// into retried and final ones. No I/O here.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "llm/chat.hpp"
#include "llm/http_transport.hpp"
#include "llm/sse.hpp"

namespace kforge::llm {

enum class ProviderKind { openai, anthropic, gemini };

std::optional<ProviderKind> parse_provider_kind(std::string_view text);
const char* to_string(ProviderKind kind);
/// The provider's public endpoint (OpenAI's for "openai"; point it elsewhere for vLLM & co).
std::string default_base_url(ProviderKind kind);

struct WireRequest {
  ProviderKind kind = ProviderKind::openai;
  std::string base_url;  ///< e.g. https://api.openai.com/v1, http://127.0.0.1:8000/v1
  std::string model;
  std::string api_key;  ///< empty: no key header (local servers)
  bool stream = true;
  Sampling sampling;
  int64_t seed = -1;  ///< sent where the provider takes one (OpenAI, Gemini); -1: none
  std::vector<Message> messages;
};

HttpRequest build_http_request(const WireRequest& request);

/// A reply read from the wire, or why not.
struct WireOutcome {
  FailureKind failure = FailureKind::none;
  std::string error;  ///< what the provider said, when failure != none
  /// The wait the error body asks for (Gemini's RetryInfo.retryDelay), where it says one.
  std::optional<double> retry_after_s;
  ChatReply reply;
  bool ok() const { return failure == FailureKind::none; }
};

/// A whole (not streamed) 2xx reply body.
WireOutcome read_reply(ProviderKind kind, std::string_view body);

/// A non-2xx reply: the provider's message and whether trying again can help.
WireOutcome classify_http_error(ProviderKind kind, int status, std::string_view body);

/// Assembles a streamed reply from its bytes as they arrive.
class StreamReader {
 public:
  explicit StreamReader(ProviderKind kind) : kind_(kind) {}
  void feed(std::string_view bytes);
  /// The reply once the transport is done; `cut` when the connection ended early.
  WireOutcome finish(bool cut, const std::string& transport_error);

 private:
  void take(const SseEvent& event);
  ProviderKind kind_;
  SseParser parser_;
  ChatReply reply_;
  bool done_ = false;  ///< the provider's end-of-stream marker arrived
  FailureKind failure_ = FailureKind::none;
  std::string error_;
};

}  // namespace kforge::llm
