#include "llm/provider_wire.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "common/json.hpp"
#include "common/llm_model_rules.hpp"

namespace kforge::llm {
namespace {

bool contains_ci(std::string_view text, std::string_view word) {
  auto it = std::search(text.begin(), text.end(), word.begin(), word.end(), [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) ==
           std::tolower(static_cast<unsigned char>(b));
  });
  return it != text.end();
}

std::string trim_base(std::string base) {
  while (!base.empty() && base.back() == '/') base.pop_back();
  return base;
}

json::Value openai_body(const WireRequest& r) {
  json::Value body;
  body.set("model", r.model);
  json::Value messages{json::Array{}};
  for (const auto& m : r.messages) {
    json::Value msg;
    msg.set("role", m.role).set("content", m.content);
    messages.push(std::move(msg));
  }
  body.set("messages", std::move(messages));
  const auto& s = r.sampling;
  // Reasoning models (o-series, gpt-5) refuse max_tokens ("Use 'max_completion_tokens'
  // instead") and any temperature or top_p but the default; a model given reasoning_effort is
  // taken for one too (a name this list does not know yet).
  const bool reasoning = llm_rules::openai_reasoning_model(r.model) || !s.reasoning_effort.empty();
  if (!reasoning && s.temperature >= 0) body.set("temperature", s.temperature);
  if (!reasoning && s.top_p >= 0) body.set("top_p", s.top_p);
  if (!s.reasoning_effort.empty()) body.set("reasoning_effort", s.reasoning_effort);
  if (s.max_tokens > 0) body.set(reasoning ? "max_completion_tokens" : "max_tokens", s.max_tokens);
  if (r.seed >= 0) body.set("seed", r.seed);
  if (r.stream) {
    body.set("stream", true);
    json::Value options;
    options.set("include_usage", true);
    body.set("stream_options", std::move(options));
  }
  return body;
}

json::Value anthropic_body(const WireRequest& r) {
  json::Value body;
  body.set("model", r.model);
  std::string system;
  json::Value messages{json::Array{}};
  for (const auto& m : r.messages) {
    if (m.role == "system") {
      system += (system.empty() ? "" : "\n\n") + m.content;
      continue;
    }
    json::Value msg;
    msg.set("role", m.role).set("content", m.content);
    messages.push(std::move(msg));
  }
  const auto& s = r.sampling;
  body.set("max_tokens", s.max_tokens > 0 ? s.max_tokens : 8192);
  if (!system.empty()) body.set("system", system);
  body.set("messages", std::move(messages));
  if (s.thinking_budget > 0) {
    // Extended thinking fixes temperature and top_p itself; sending them is an error.
    json::Value thinking;
    thinking.set("type", "enabled").set("budget_tokens", s.thinking_budget);
    body.set("thinking", std::move(thinking));
  } else {
    if (s.temperature >= 0) body.set("temperature", s.temperature);
    if (s.top_p >= 0) body.set("top_p", s.top_p);
  }
  if (r.stream) body.set("stream", true);
  return body;
}

json::Value gemini_body(const WireRequest& r) {
  json::Value body;
  json::Value contents{json::Array{}};
  std::string system;
  for (const auto& m : r.messages) {
    if (m.role == "system") {
      system += (system.empty() ? "" : "\n\n") + m.content;
      continue;
    }
    json::Value part, parts{json::Array{}}, content;
    part.set("text", m.content);
    parts.push(std::move(part));
    content.set("role", m.role == "assistant" ? "model" : "user").set("parts", std::move(parts));
    contents.push(std::move(content));
  }
  body.set("contents", std::move(contents));
  if (!system.empty()) {
    json::Value part, parts{json::Array{}}, instruction;
    part.set("text", system);
    parts.push(std::move(part));
    instruction.set("parts", std::move(parts));
    body.set("systemInstruction", std::move(instruction));
  }
  const auto& s = r.sampling;
  json::Value config{json::Object{}};
  if (s.temperature >= 0) config.set("temperature", s.temperature);
  if (s.top_p >= 0) config.set("topP", s.top_p);
  if (s.max_tokens > 0) config.set("maxOutputTokens", s.max_tokens);
  if (r.seed >= 0) config.set("seed", r.seed);
  if (s.thinking_budget > 0) {
    json::Value thinking;
    thinking.set("thinkingBudget", s.thinking_budget);
    config.set("thinkingConfig", std::move(thinking));
  }
  body.set("generationConfig", std::move(config));
  return body;
}

void openai_choice(const json::Value& doc, ChatReply& reply, bool streamed) {
  const auto& choices = doc["choices"].as_array();
  if (!choices.empty()) {
    const auto& choice = choices[0];
    const auto& text = streamed ? choice["delta"]["content"] : choice["message"]["content"];
    reply.text += text.as_string();
    if (choice["finish_reason"].is_string())
      reply.finish_reason = choice["finish_reason"].as_string();
  }
  // prompt_tokens counts the whole prompt, prompt_tokens_details.cached_tokens the part served
  // from OpenAI's prompt cache (automatic from 1024 tokens); completion_tokens includes the
  // reasoning tokens.
  if (doc["usage"].is_object()) {
    const auto& u = doc["usage"];
    reply.usage.input_tokens = u["prompt_tokens"].as_int();
    reply.usage.output_tokens = u["completion_tokens"].as_int();
    reply.usage.cached_input_tokens = u["prompt_tokens_details"]["cached_tokens"].as_int();
  }
}

/// Anthropic's usage object (a whole reply's, message_start's or message_delta's): input_tokens
/// counts only the input after the last cache breakpoint; cache reads and writes come apart.
/// Fields a message_delta leaves out keep what message_start said.
void anthropic_usage(const json::Value& u, Usage& usage) {
  auto take = [&](const char* field, int64_t& into) {
    if (u[field].is_number()) into = u[field].as_int();
  };
  int64_t fresh = usage.input_tokens - usage.cached_input_tokens - usage.cache_write_tokens;
  take("input_tokens", fresh);
  take("cache_read_input_tokens", usage.cached_input_tokens);
  take("cache_creation_input_tokens", usage.cache_write_tokens);
  take("output_tokens", usage.output_tokens);
  usage.input_tokens = fresh + usage.cached_input_tokens + usage.cache_write_tokens;
}

void gemini_chunk(const json::Value& doc, ChatReply& reply) {
  const auto& candidates = doc["candidates"].as_array();
  if (!candidates.empty()) {
    for (const auto& part : candidates[0]["content"]["parts"].as_array())
      if (!part["thought"].as_bool(false)) reply.text += part["text"].as_string();
    if (candidates[0]["finishReason"].is_string())
      reply.finish_reason = candidates[0]["finishReason"].as_string();
  }
  if (doc["usageMetadata"].is_object()) {
    const auto& u = doc["usageMetadata"];
    // promptTokenCount includes cachedContentTokenCount (implicit caching on 2.5 models).
    reply.usage.input_tokens = u["promptTokenCount"].as_int();
    reply.usage.cached_input_tokens = u["cachedContentTokenCount"].as_int();
    reply.usage.output_tokens =
        u["candidatesTokenCount"].as_int() + u["thoughtsTokenCount"].as_int();
  }
}

void mark_truncation(ChatReply& reply) {
  reply.truncated = reply.finish_reason == "length" || reply.finish_reason == "max_tokens" ||
                    reply.finish_reason == "MAX_TOKENS";
}

std::string snippet(std::string_view body) {
  std::string s(body.substr(0, 200));
  for (char& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  return s + (body.size() > 200 ? "..." : "");
}

}  // namespace

const char* to_string(FailureKind kind) {
  switch (kind) {
    case FailureKind::none:
      return "none";
    case FailureKind::transient:
      return "transient";
    case FailureKind::auth:
      return "auth";
    case FailureKind::money:
      return "money";
    case FailureKind::bad_request:
      return "bad_request";
    case FailureKind::garbled:
      return "garbled";
    case FailureKind::offline_miss:
      return "offline_miss";
  }
  return "unknown";
}

std::optional<ProviderKind> parse_provider_kind(std::string_view text) {
  if (text == "openai") return ProviderKind::openai;
  if (text == "anthropic") return ProviderKind::anthropic;
  if (text == "gemini") return ProviderKind::gemini;
  return std::nullopt;
}

const char* to_string(ProviderKind kind) {
  switch (kind) {
    case ProviderKind::openai:
      return "openai";
    case ProviderKind::anthropic:
      return "anthropic";
    case ProviderKind::gemini:
      return "gemini";
  }
  return "unknown";
}

std::string default_base_url(ProviderKind kind) {
  switch (kind) {
    case ProviderKind::openai:
      return "https://api.openai.com/v1";
    case ProviderKind::anthropic:
      return "https://api.anthropic.com";
    case ProviderKind::gemini:
      return "https://generativelanguage.googleapis.com";
  }
  return {};
}

HttpRequest build_http_request(const WireRequest& r) {
  HttpRequest http;
  http.method = "POST";
  http.headers.emplace_back("content-type", "application/json");
  const std::string base = trim_base(r.base_url.empty() ? default_base_url(r.kind) : r.base_url);
  switch (r.kind) {
    case ProviderKind::openai:
      http.url = base + "/chat/completions";
      if (!r.api_key.empty()) http.headers.emplace_back("authorization", "Bearer " + r.api_key);
      http.body = openai_body(r).dump();
      break;
    case ProviderKind::anthropic:
      http.url = base + "/v1/messages";
      if (!r.api_key.empty()) http.headers.emplace_back("x-api-key", r.api_key);
      http.headers.emplace_back("anthropic-version", "2023-06-01");
      http.body = anthropic_body(r).dump();
      break;
    case ProviderKind::gemini:
      http.url = base + "/v1beta/models/" + r.model +
                 (r.stream ? ":streamGenerateContent?alt=sse" : ":generateContent");
      if (!r.api_key.empty()) http.headers.emplace_back("x-goog-api-key", r.api_key);
      http.body = gemini_body(r).dump();
      break;
  }
  if (r.stream) http.headers.emplace_back("accept", "text/event-stream");
  return http;
}

WireOutcome read_reply(ProviderKind kind, std::string_view body) {
  WireOutcome out;
  auto doc = json::parse(body);
  if (!doc.value || !doc.value->is_object()) {
    out.failure = FailureKind::garbled;
    out.error = "the reply is not JSON: " + snippet(body);
    return out;
  }
  const auto& d = *doc.value;
  switch (kind) {
    case ProviderKind::openai:
      if (d["choices"].as_array().empty()) {
        out.failure = FailureKind::garbled;
        out.error = "the reply has no choices: " + snippet(body);
        return out;
      }
      openai_choice(d, out.reply, false);
      break;
    case ProviderKind::anthropic:
      if (!d["content"].is_array()) {
        out.failure = FailureKind::garbled;
        out.error = "the reply has no content: " + snippet(body);
        return out;
      }
      for (const auto& block : d["content"].as_array())
        if (block["type"].as_string() == "text") out.reply.text += block["text"].as_string();
      out.reply.finish_reason = d["stop_reason"].as_string();
      anthropic_usage(d["usage"], out.reply.usage);
      break;
    case ProviderKind::gemini:
      if (d["candidates"].as_array().empty()) {
        const bool blocked = d["promptFeedback"]["blockReason"].is_string();
        out.failure = blocked ? FailureKind::bad_request : FailureKind::garbled;
        out.error = blocked ? "Gemini blocked the prompt (promptFeedback.blockReason " +
                                  d["promptFeedback"]["blockReason"].as_string() + ")"
                            : "the reply has no candidates: " + snippet(body);
        return out;
      }
      gemini_chunk(d, out.reply);
      break;
  }
  mark_truncation(out.reply);
  return out;
}

WireOutcome classify_http_error(ProviderKind kind, int status, std::string_view body) {
  WireOutcome out;
  std::string message, code, reason;
  if (auto doc = json::parse(body); doc.value) {
    const auto& e = (*doc.value)["error"];
    message = e.is_object() ? e["message"].as_string() : e.as_string();
    code = e["code"].is_string() ? e["code"].as_string() : e["type"].as_string();
    if (kind == ProviderKind::gemini) {
      // Google's errors carry their meaning in `details`: ErrorInfo's reason (API_KEY_INVALID
      // for a rejected key, with status INVALID_ARGUMENT and HTTP 400) and RetryInfo's delay
      // ("2s") for a quota that refills.
      code = e["status"].as_string();
      for (const auto& d : e["details"].as_array()) {
        const std::string type = d["@type"].as_string();
        if (type == "type.googleapis.com/google.rpc.ErrorInfo") reason = d["reason"].as_string();
        if (type == "type.googleapis.com/google.rpc.RetryInfo") {
          const std::string delay = d["retryDelay"].as_string();
          char* end = nullptr;
          const double seconds = std::strtod(delay.c_str(), &end);
          if (end != delay.c_str() && *end == 's' && seconds >= 0) out.retry_after_s = seconds;
        }
      }
    }
  }
  if (message.empty()) message = snippet(body);
  out.error = "HTTP " + std::to_string(status) + (code.empty() ? "" : " " + code) +
              (reason.empty() ? "" : " " + reason) + ": " + message;
  // Money is decided from what each provider documents for it, never from words another
  // provider uses for something else: Gemini's per-minute 429 says "You exceeded your current
  // quota, please check your plan and billing details" and is a rate limit.
  bool money = status == 402;
  if (kind == ProviderKind::openai) money = money || code == "insufficient_quota";
  if (kind == ProviderKind::anthropic)
    money = money || code == "billing_error" || contains_ci(message, "credit balance");
  const bool rejected_key =
      status == 401 || status == 403 || reason == "API_KEY_INVALID" || reason == "API_KEY_EXPIRED";
  if (rejected_key)
    out.failure = FailureKind::auth;
  else if (money)
    out.failure = FailureKind::money;
  else if (status == 408 || status == 409 || status == 425 || status == 429 || status >= 500)
    out.failure = FailureKind::transient;
  else
    out.failure = FailureKind::bad_request;
  return out;
}

void StreamReader::feed(std::string_view bytes) {
  for (const auto& event : parser_.feed(bytes)) take(event);
}

void StreamReader::take(const SseEvent& event) {
  if (done_ || failure_ != FailureKind::none) return;
  if (kind_ == ProviderKind::openai && event.data == "[DONE]") {
    done_ = true;
    return;
  }
  auto doc = json::parse(event.data);
  if (!doc.value || !doc.value->is_object()) {
    failure_ = FailureKind::garbled;
    error_ = "a streamed event is not JSON: " + snippet(event.data);
    return;
  }
  const auto& d = *doc.value;
  if (d["error"].is_object() || event.event == "error") {
    auto classified = classify_http_error(kind_, 500, event.data);
    failure_ = classified.failure == FailureKind::bad_request ? FailureKind::transient
                                                              : classified.failure;
    error_ = "the stream carried an error: " + classified.error;
    return;
  }
  switch (kind_) {
    case ProviderKind::openai:
      openai_choice(d, reply_, true);
      break;
    case ProviderKind::anthropic: {
      const auto& type = d["type"].as_string();
      if (type == "message_start") {
        anthropic_usage(d["message"]["usage"], reply_.usage);
      } else if (type == "content_block_delta" && d["delta"]["type"].as_string() == "text_delta") {
        reply_.text += d["delta"]["text"].as_string();
      } else if (type == "message_delta") {
        if (d["delta"]["stop_reason"].is_string())
          reply_.finish_reason = d["delta"]["stop_reason"].as_string();
        anthropic_usage(d["usage"], reply_.usage);
      } else if (type == "message_stop") {
        done_ = true;
      }
      break;
    }
    case ProviderKind::gemini:
      // A prompt Gemini blocks comes back as a chunk with promptFeedback.blockReason and no
      // candidates, and the stream ends: the same prompt is blocked again, so it is final.
      if (d["promptFeedback"]["blockReason"].is_string() && d["candidates"].as_array().empty()) {
        failure_ = FailureKind::bad_request;
        error_ = "Gemini blocked the prompt (promptFeedback.blockReason " +
                 d["promptFeedback"]["blockReason"].as_string() + ")";
        done_ = true;
        return;
      }
      gemini_chunk(d, reply_);
      // Gemini has no end marker: the chunk with a finish reason is the last.
      if (!reply_.finish_reason.empty()) done_ = true;
      break;
  }
}

WireOutcome StreamReader::finish(bool cut, const std::string& transport_error) {
  WireOutcome out;
  // An event the server sent without its closing blank line still counts once the body is whole.
  if (!cut && parser_.pending()) feed("\n\n");
  out.reply = reply_;
  mark_truncation(out.reply);
  if (failure_ != FailureKind::none) {
    out.failure = failure_;
    out.error = error_;
  } else if (!done_) {
    out.failure = FailureKind::transient;
    out.error = "the stream ended before the reply was complete (" +
                std::to_string(reply_.text.size()) + " characters received" +
                (transport_error.empty() ? "" : "; " + transport_error) + ")";
  }
  return out;
}

}  // namespace kforge::llm
