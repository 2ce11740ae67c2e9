// Boost 1.74's Asio in C++20 needs <utility> before it.
#include <utility>

#include "tests/llm/fake_provider.hpp"

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <mutex>
#include <optional>
#include <thread>

#include "common/json.hpp"

namespace kforge::test {
namespace {

namespace beast = boost::beast;
namespace http = beast::http;
namespace ssl = boost::asio::ssl;
using tcp = boost::asio::ip::tcp;

/// A self-signed certificate for 127.0.0.1 and localhost, written as PEM files.
struct Certificate {
  std::string cert_pem_path;
  std::string key_pem_path;
};

Certificate make_certificate(const std::string& dir) {
  EVP_PKEY* key = EVP_RSA_gen(2048);
  X509* cert = X509_new();
  X509_set_version(cert, 2);
  ASN1_INTEGER_set(X509_get_serialNumber(cert), static_cast<long>(::getpid()));
  X509_gmtime_adj(X509_getm_notBefore(cert), -3600);
  X509_gmtime_adj(X509_getm_notAfter(cert), 3600L * 24);
  X509_set_pubkey(cert, key);
  X509_NAME* name = X509_get_subject_name(cert);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>("kforge test provider"), -1, -1,
                             0);
  X509_set_issuer_name(cert, name);
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, cert, cert, nullptr, nullptr, 0);
  for (auto [nid, value] : {std::pair{NID_subject_alt_name, "DNS:localhost,IP:127.0.0.1,IP:::1"},
                            std::pair{NID_basic_constraints, "critical,CA:TRUE"}}) {
    X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value);
    X509_add_ext(cert, ext, -1);
    X509_EXTENSION_free(ext);
  }
  X509_sign(cert, key, EVP_sha256());
  Certificate out{dir + "/provider-cert.pem", dir + "/provider-key.pem"};
  FILE* f = std::fopen(out.cert_pem_path.c_str(), "w");
  PEM_write_X509(f, cert);
  std::fclose(f);
  f = std::fopen(out.key_pem_path.c_str(), "w");
  PEM_write_PrivateKey(f, key, nullptr, nullptr, 0, nullptr, nullptr);
  std::fclose(f);
  X509_free(cert);
  EVP_PKEY_free(key);
  return out;
}

std::string kind_of(const std::string& path) {
  if (path.find("/chat/completions") != std::string::npos) return "openai";
  if (path.find("/v1/messages") != std::string::npos) return "anthropic";
  if (path.find("/v1beta/models/") != std::string::npos) return "gemini";
  return "";
}

json::Value error_body(const std::string& kind, int status, const std::string& message,
                       const std::string& code) {
  json::Value e, body;
  e.set("message", message);
  if (kind == "anthropic") {
    e.set("type", code);
    body.set("type", "error").set("error", std::move(e));
  } else if (kind == "gemini") {
    e.set("code", status).set("status", code);
    body.set("error", std::move(e));
  } else {
    e.set("type", code).set("code", code);
    body.set("error", std::move(e));
  }
  return body;
}

// What the services answer, word for word as their documentation and SDK issues quote it, to a
// request whose parameters the model refuses (a 400 on every call, never retried): OpenAI's
// reasoning models (o-series, gpt-5) and max_tokens or sampling parameters; Anthropic's extended
// thinking and its budget or sampling parameters, and temperature with top_p together. Which
// models are reasoning models is written here again from OpenAI's documentation, on purpose not
// taken from the client's rules (common/llm_model_rules), so that the two cannot share a mistake.
std::optional<json::Value> documented_refusal(const std::string& kind, const std::string& body) {
  auto parsed = json::parse(body);
  if (!parsed.value) return std::nullopt;
  const json::Value& b = *parsed.value;
  const std::string model = b["model"].as_string();
  auto openai = [](const std::string& message, const std::string& param, const std::string& code) {
    json::Value e, out;
    e.set("message", message).set("type", "invalid_request_error").set("param", param);
    e.set("code", code);
    out.set("error", e);
    return out;
  };
  auto anthropic = [](const std::string& message) {
    json::Value e, out;
    e.set("type", "invalid_request_error").set("message", message);
    out.set("type", "error").set("error", e);
    return out;
  };
  if (kind == "openai") {
    const bool reasoning = (model.size() >= 2 && model[0] == 'o' && std::isdigit(model[1])) ||
                           (model.rfind("gpt-5", 0) == 0 && model.rfind("gpt-5-chat", 0) != 0);
    if (reasoning && b.contains("max_tokens"))
      return openai(
          "Unsupported parameter: 'max_tokens' is not supported with this model. Use "
          "'max_completion_tokens' instead.",
          "max_tokens", "unsupported_parameter");
    for (const char* p : {"temperature", "top_p"})
      if (reasoning && b.contains(p) && b[p].as_number() != 1)
        return openai("Unsupported value: '" + std::string(p) + "' does not support " +
                          b[p].dump() + " with this model. Only the default (1) value is supported.",
                      p, "unsupported_value");
    if (!reasoning && b.contains("reasoning_effort"))
      return openai("Unsupported parameter: 'reasoning_effort' is not supported with this model.",
                    "reasoning_effort", "unsupported_parameter");
  }
  if (kind == "anthropic") {
    const auto& thinking = b["thinking"];
    if (thinking["type"].as_string() == "enabled") {
      const int64_t budget = thinking["budget_tokens"].as_int();
      if (budget < 1024)
        return anthropic("thinking.enabled.budget_tokens: Input should be greater than or equal to 1024");
      if (b["max_tokens"].as_int() <= budget)
        return anthropic("`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#max-tokens-and-context-window-size");
      if (b.contains("temperature") && b["temperature"].as_number() != 1)
        return anthropic("`temperature` may only be set to 1 when thinking is enabled. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#feature-compatibility");
    } else if (b.contains("temperature") && b.contains("top_p")) {
      return anthropic("`temperature` and `top_p` cannot both be specified for this model. Please use only one.");
    }
  }
  return std::nullopt;
}

int64_t tokens(const std::string& text) {
  return static_cast<int64_t>(text.size() / 4 + 1);
}

json::Value openai_chunk(const std::string& piece, const char* finish) {
  json::Value delta, choice, chunk;
  if (!piece.empty())
    delta.set("content", piece);
  else
    delta = json::Value(json::Object{});
  choice.set("index", 0).set("delta", std::move(delta));
  choice.set("finish_reason", finish ? json::Value(finish) : json::Value());
  chunk.set("object", "chat.completion.chunk").set("choices", json::Array{choice});
  return chunk;
}

/// The whole reply body (`stream` false) or the SSE events (`stream` true) for `text`.
std::vector<std::string> reply_payload(const ProviderRequest& req, const std::string& text,
                                       const ProviderStep& step) {
  const bool length = step.finish == "length";
  const int64_t in = tokens(req.body), out = tokens(text);
  const int64_t cached = std::min(in, step.cached_tokens);
  std::vector<std::string> pieces;
  for (size_t i = 0; i < text.size(); i += 97) pieces.push_back(text.substr(i, 97));
  std::vector<std::string> events;
  if (req.kind == "openai") {
    const char* finish = length ? "length" : "stop";
    json::Value usage;
    // Chat Completions' usage: prompt_tokens counts the whole prompt, its cached part apart.
    json::Value prompt_details, completion_details;
    prompt_details.set("cached_tokens", cached).set("audio_tokens", 0);
    completion_details.set("reasoning_tokens", 0).set("audio_tokens", 0);
    usage.set("prompt_tokens", in).set("completion_tokens", out).set("total_tokens", in + out);
    usage.set("prompt_tokens_details", prompt_details);
    usage.set("completion_tokens_details", completion_details);
    if (!req.stream) {
      json::Value msg, choice, body;
      msg.set("role", "assistant").set("content", text);
      choice.set("index", 0).set("message", std::move(msg)).set("finish_reason", finish);
      body.set("id", "chatcmpl-test").set("object", "chat.completion").set("model", req.model);
      body.set("choices", json::Array{choice}).set("usage", usage);
      return {body.dump()};
    }
    for (const auto& p : pieces)
      events.push_back("data: " + openai_chunk(p, nullptr).dump() + "\n\n");
    events.push_back("data: " + openai_chunk("", finish).dump() + "\n\n");
    json::Value last;
    last.set("object", "chat.completion.chunk").set("choices", json::Array{}).set("usage", usage);
    events.push_back("data: " + last.dump() + "\n\n");
    events.push_back("data: [DONE]\n\n");
    return events;
  }
  if (req.kind == "anthropic") {
    const char* stop = length ? "max_tokens" : "end_turn";
    if (!req.stream) {
      json::Value block, usage, body;
      block.set("type", "text").set("text", text);
      // Messages' usage: input_tokens is what follows the cache, reads and writes come apart.
      usage.set("input_tokens", in - cached).set("cache_creation_input_tokens", 0);
      usage.set("cache_read_input_tokens", cached).set("output_tokens", out);
      body.set("id", "msg_test").set("type", "message").set("role", "assistant");
      body.set("model", req.model).set("content", json::Array{block});
      body.set("stop_reason", stop).set("usage", usage);
      return {body.dump()};
    }
    auto event = [&](const std::string& name, const json::Value& data) {
      events.push_back("event: " + name + "\ndata: " + data.dump() + "\n\n");
    };
    json::Value start, message, usage;
    usage.set("input_tokens", in - cached).set("cache_creation_input_tokens", 0);
    usage.set("cache_read_input_tokens", cached).set("output_tokens", 1);
    message.set("id", "msg_test").set("type", "message").set("role", "assistant");
    message.set("content", json::Array{}).set("model", req.model).set("usage", usage);
    start.set("type", "message_start").set("message", message);
    event("message_start", start);
    json::Value block_start, block;
    block.set("type", "text").set("text", "");
    block_start.set("type", "content_block_start").set("index", 0).set("content_block", block);
    event("content_block_start", block_start);
    json::Value ping;
    ping.set("type", "ping");
    event("ping", ping);
    for (const auto& p : pieces) {
      json::Value delta, d;
      delta.set("type", "text_delta").set("text", p);
      d.set("type", "content_block_delta").set("index", 0).set("delta", delta);
      event("content_block_delta", d);
    }
    json::Value stop_block;
    stop_block.set("type", "content_block_stop").set("index", 0);
    event("content_block_stop", stop_block);
    json::Value md, mdd, mdu;
    mdd.set("stop_reason", stop);
    mdu.set("output_tokens", out);
    md.set("type", "message_delta").set("delta", mdd).set("usage", mdu);
    event("message_delta", md);
    json::Value ms;
    ms.set("type", "message_stop");
    event("message_stop", ms);
    return events;
  }
  // gemini
  auto chunk = [&](const std::string& piece, bool last) {
    json::Value part, content, candidate, usage, body;
    part.set("text", piece);
    content.set("parts", json::Array{part}).set("role", "model");
    candidate.set("content", content).set("index", 0);
    if (last) candidate.set("finishReason", length ? "MAX_TOKENS" : "STOP");
    usage.set("promptTokenCount", in)
        .set("candidatesTokenCount", out)
        .set("totalTokenCount", in + out);
    if (cached > 0) usage.set("cachedContentTokenCount", cached);  // part of promptTokenCount
    body.set("candidates", json::Array{candidate}).set("usageMetadata", usage);
    body.set("modelVersion", req.model);
    return body;
  };
  if (!req.stream) return {chunk(text, true).dump()};
  for (size_t i = 0; i < pieces.size(); ++i)
    events.push_back("data: " + chunk(pieces[i], i + 1 == pieces.size()).dump() + "\r\n\r\n");
  if (pieces.empty()) events.push_back("data: " + chunk("", true).dump() + "\r\n\r\n");
  return events;
}

}  // namespace

ProviderStep ProviderStep::rate_limited(int retry_after_seconds) {
  ProviderStep s;
  s.action = Action::status;
  s.status = 429;
  s.message = "Rate limit reached; try again later.";
  s.error_code = "rate_limit_exceeded";
  s.headers["retry-after"] = std::to_string(retry_after_seconds);
  return s;
}
ProviderStep ProviderStep::server_error(int status) {
  ProviderStep s;
  s.action = Action::status;
  s.status = status;
  s.message = "The server had an error while processing your request.";
  s.error_code = "server_error";
  return s;
}
ProviderStep ProviderStep::credit_exhausted() {
  ProviderStep s;
  s.action = Action::status;
  s.status = 429;
  s.message = "You exceeded your current quota, please check your plan and billing details.";
  s.error_code = "insufficient_quota";
  return s;
}
ProviderStep ProviderStep::gemini_quota(bool per_day, const std::string& retry_delay) {
  const std::string quota = per_day ? "GenerateRequestsPerDayPerProjectPerModel-FreeTier"
                                    : "GenerateRequestsPerMinutePerProjectPerModel-FreeTier";
  ProviderStep s;
  s.action = Action::status;
  s.status = 429;
  s.raw_body = R"({"error": {"code": 429, "message": "You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.\n* Quota exceeded for metric: generativelanguage.googleapis.com/generate_content_free_tier_requests, limit: 10, model: gemini-2.5-flash\nPlease retry in )" +
               retry_delay + R"(.", "status": "RESOURCE_EXHAUSTED", "details": [{"@type": "type.googleapis.com/google.rpc.QuotaFailure", "violations": [{"quotaMetric": "generativelanguage.googleapis.com/generate_content_free_tier_requests", "quotaId": ")" +
               quota + R"(", "quotaDimensions": {"location": "global", "model": "gemini-2.5-flash"}, "quotaValue": "10"}]}, {"@type": "type.googleapis.com/google.rpc.Help", "links": [{"description": "Learn more about Gemini API quotas", "url": "https://ai.google.dev/gemini-api/docs/rate-limits"}]}, {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": ")" +
               retry_delay + R"("}]}})";
  return s;
}
ProviderStep ProviderStep::gemini_invalid_key() {
  ProviderStep s;
  s.action = Action::status;
  s.status = 400;
  s.raw_body = R"({"error": {"code": 400, "message": "API key not valid. Please pass a valid API key.", "status": "INVALID_ARGUMENT", "details": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "API_KEY_INVALID", "domain": "googleapis.com", "metadata": {"service": "generativelanguage.googleapis.com"}}, {"@type": "type.googleapis.com/google.rpc.LocalizedMessage", "locale": "en-US", "message": "API key not valid. Please pass a valid API key."}]}})";
  return s;
}
ProviderStep ProviderStep::gemini_blocked_prompt() {
  ProviderStep s;
  s.raw_reply = R"({"promptFeedback": {"blockReason": "PROHIBITED_CONTENT"}, "usageMetadata": {"promptTokenCount": 12, "totalTokenCount": 12, "promptTokensDetails": [{"modality": "TEXT", "tokenCount": 12}]}, "modelVersion": "gemini-2.5-flash", "responseId": "fake"})";
  return s;
}
ProviderStep ProviderStep::malformed_json() {
  ProviderStep s;
  s.action = Action::malformed;
  return s;
}
ProviderStep ProviderStep::truncated_stream() {
  ProviderStep s;
  s.action = Action::truncated;
  return s;
}
ProviderStep ProviderStep::slow(int delay_ms) {
  ProviderStep s;
  s.delay_ms = delay_ms;
  return s;
}

struct FakeProvider::Impl {
  bool tls = false;
  Certificate certificate;
  std::string dir;
  boost::asio::io_context io;
  std::unique_ptr<tcp::acceptor> acceptor;
  std::unique_ptr<ssl::context> tls_context;
  std::thread accept_thread;
  mutable std::mutex mutex;
  std::condition_variable changed;
  std::deque<ProviderStep> script;
  std::function<std::string(const ProviderRequest&)> responder;
  std::string key;
  std::vector<ProviderRequest> seen;
  int connections = 0;
  bool stopping = false;

  ProviderStep next_step() {
    std::lock_guard lock(mutex);
    if (script.empty()) return {};
    auto s = script.front();
    script.pop_front();
    return s;
  }

  bool wait_ms(int ms) {  // false when the server stops meanwhile
    std::unique_lock lock(mutex);
    return !changed.wait_for(lock, std::chrono::milliseconds(ms), [&] { return stopping; });
  }

  template <class Stream>
  void serve(Stream& stream) {
    beast::error_code ec;
    beast::flat_buffer buffer;
    http::request<http::string_body> raw;
    http::read(stream, buffer, raw, ec);
    if (ec) return;
    ProviderRequest req;
    req.path = std::string(raw.target());
    req.kind = kind_of(req.path);
    req.body = raw.body();
    for (const auto& f : raw) {
      std::string name(f.name_string());
      for (auto& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      req.headers[name] = std::string(f.value());
    }
    auto doc = json::parse(req.body);
    json::Value body = doc.value ? *doc.value : json::Value();
    req.model = body["model"].as_string();
    req.stream = body["stream"].as_bool(false);
    if (req.kind == "gemini") {
      auto p = req.path.find("/models/");
      auto colon = req.path.find(':', p);
      req.model = req.path.substr(p + 8, colon - p - 8);
      req.stream = req.path.find("streamGenerateContent") != std::string::npos;
      for (const auto& part : body["systemInstruction"]["parts"].as_array())
        req.system += part["text"].as_string();
      for (const auto& c : body["contents"].as_array())
        if (c["role"].as_string() == "user") req.user = c["parts"][0]["text"].as_string();
    } else {
      req.system = body["system"].as_string();
      for (const auto& m : body["messages"].as_array()) {
        if (m["role"].as_string() == "system") req.system += m["content"].as_string();
        if (m["role"].as_string() == "user") req.user = m["content"].as_string();
      }
    }
    {
      std::lock_guard lock(mutex);
      seen.push_back(req);
    }
    auto write_raw = [&](const std::string& bytes) {
      boost::asio::write(stream, boost::asio::buffer(bytes), ec);
    };
    auto send_status = [&](int status, const std::string& text,
                           const std::map<std::string, std::string>& headers,
                           const std::string& content_type) {
      std::string head =
          "HTTP/1.1 " + std::to_string(status) + " X\r\nContent-Type: " + content_type +
          "\r\nContent-Length: " + std::to_string(text.size()) + "\r\nConnection: close\r\n";
      for (const auto& [n, v] : headers) head += n + ": " + v + "\r\n";
      write_raw(head + "\r\n" + text);
    };
    std::string presented;
    if (req.kind == "openai" && req.headers.count("authorization"))
      presented = req.headers["authorization"].substr(7);
    if (req.kind == "anthropic") presented = req.headers["x-api-key"];
    if (req.kind == "gemini") presented = req.headers["x-goog-api-key"];
    std::string wanted;
    {
      std::lock_guard lock(mutex);
      wanted = key;
    }
    if (req.kind.empty())
      return send_status(404, "{\"error\":{\"message\":\"no such endpoint\"}}", {},
                         "application/json");
    if (!wanted.empty() && presented != wanted)
      return send_status(
          401, error_body(req.kind, 401, "Invalid API key", "authentication_error").dump(), {},
          "application/json");
    if (auto refused = documented_refusal(req.kind, req.body))
      return send_status(400, refused->dump(), {}, "application/json");
    auto step = next_step();
    if (step.delay_ms > 0 && !wait_ms(step.delay_ms)) return;
    using A = ProviderStep::Action;
    if (step.action == A::close) return;
    if (step.action == A::status)
      return send_status(
          step.status,
          !step.raw_body.empty()
              ? step.raw_body
              : error_body(req.kind, step.status, step.message, step.error_code).dump(),
          step.headers, "application/json");
    if (step.action == A::malformed)
      return send_status(200, "{\"choices\": [{\"message\": {\"content\": \"cut", {},
                         "application/json");
    std::string text = step.text;
    if (text.empty()) {
      std::function<std::string(const ProviderRequest&)> r;
      {
        std::lock_guard lock(mutex);
        r = responder;
      }
      text = r ? r(req) : "Hello from the fake provider.";
    }
    auto payload = step.raw_reply.empty()
                       ? reply_payload(req, text, step)
                       : std::vector<std::string>{req.stream ? "data: " + step.raw_reply + "\n\n"
                                                             : step.raw_reply};
    if (!req.stream) return send_status(200, payload[0], {}, "application/json");
    write_raw(
        "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n"
        "Connection: close\r\n\r\n");
    // A cut stream stops half-way, with no terminating chunk, and the connection closes.
    const size_t send = step.action == A::truncated ? payload.size() / 2 : payload.size();
    for (size_t i = 0; i < send && !ec; ++i) {
      char size[32];
      std::snprintf(size, sizeof size, "%zx\r\n", payload[i].size());
      write_raw(size + payload[i] + "\r\n");
    }
    if (step.action != A::truncated) write_raw("0\r\n\r\n");
  }

  void connection(tcp::socket socket) {
    beast::error_code ec;
    if (tls) {
      beast::ssl_stream<tcp::socket&> stream(socket, *tls_context);
      stream.handshake(ssl::stream_base::server, ec);
      if (!ec) serve(stream);
    } else {
      serve(socket);
    }
    socket.shutdown(tcp::socket::shutdown_both, ec);
    socket.close(ec);
  }
};

FakeProvider::FakeProvider(bool tls, const std::string& address)
    : impl_(std::make_unique<Impl>()) {
  auto& im = *impl_;
  im.tls = tls;
  if (tls) {
    im.dir = std::filesystem::temp_directory_path() /
             ("kforge-fake-provider-" + std::to_string(::getpid()) + "-" +
              std::to_string(reinterpret_cast<uintptr_t>(this)));
    std::filesystem::create_directories(im.dir);
    im.certificate = make_certificate(im.dir);
    im.tls_context = std::make_unique<ssl::context>(ssl::context::tls_server);
    im.tls_context->use_certificate_chain_file(im.certificate.cert_pem_path);
    im.tls_context->use_private_key_file(im.certificate.key_pem_path, ssl::context::pem);
  }
  im.acceptor = std::make_unique<tcp::acceptor>(
      im.io, tcp::endpoint(boost::asio::ip::make_address(address), 0));
  im.accept_thread = std::thread([this] {
    auto& im = *impl_;
    for (;;) {
      beast::error_code ec;
      tcp::socket socket(im.io);
      im.acceptor->accept(socket, ec);
      {
        std::lock_guard lock(im.mutex);
        if (im.stopping) return;
        if (ec) continue;
        ++im.connections;
      }
      std::thread([this, s = std::move(socket)]() mutable {
        impl_->connection(std::move(s));
        std::lock_guard lock(impl_->mutex);
        --impl_->connections;
        impl_->changed.notify_all();
      }).detach();
    }
  });
}

FakeProvider::~FakeProvider() {
  auto& im = *impl_;
  {
    std::lock_guard lock(im.mutex);
    im.stopping = true;
  }
  im.changed.notify_all();
  beast::error_code ec;
  {
    tcp::socket poke(im.io);
    poke.connect(im.acceptor->local_endpoint(ec), ec);
  }
  im.accept_thread.join();
  std::unique_lock lock(im.mutex);
  im.changed.wait_for(lock, std::chrono::seconds(10), [&] { return im.connections == 0; });
  lock.unlock();
  std::error_code fs_error;
  if (!im.dir.empty()) std::filesystem::remove_all(im.dir, fs_error);
}

uint16_t FakeProvider::port() const {
  beast::error_code ec;
  return impl_->acceptor->local_endpoint(ec).port();
}

std::string FakeProvider::base_url(const std::string& kind) const {
  beast::error_code ec;
  const auto address = impl_->acceptor->local_endpoint(ec).address();
  const std::string host = address.is_v6() ? "[" + address.to_string() + "]" : address.to_string();
  std::string base =
      std::string(impl_->tls ? "https" : "http") + "://" + host + ":" + std::to_string(port());
  return kind == "openai" ? base + "/v1" : base;
}

std::string FakeProvider::ca_file() const {
  return impl_->certificate.cert_pem_path;
}

void FakeProvider::push(ProviderStep step) {
  std::lock_guard lock(impl_->mutex);
  impl_->script.push_back(std::move(step));
}

void FakeProvider::set_responder(std::function<std::string(const ProviderRequest&)> responder) {
  std::lock_guard lock(impl_->mutex);
  impl_->responder = std::move(responder);
}

void FakeProvider::require_key(std::string key) {
  std::lock_guard lock(impl_->mutex);
  impl_->key = std::move(key);
}

std::vector<ProviderRequest> FakeProvider::requests() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->seen;
}

size_t FakeProvider::request_count() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->seen.size();
}

}  // namespace kforge::test
