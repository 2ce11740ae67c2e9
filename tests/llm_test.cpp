// The LLM library against a real loopback server speaking each provider's wire format: requests
// as the providers document them, whole and streamed replies, TLS verification, retries and what
// is never retried, timeouts, the concurrency limit, cost, the response cache, offline mode,
// prompts and reply parsing.
#include <gtest/gtest.h>

#include <atomic>
#include <ctime>
#include <fstream>
#include <mutex>
#include <random>
#include <thread>

#include "common/json.hpp"
#include "common/llm_model_rules.hpp"
#include "llm/client.hpp"
#include "llm/prompts.hpp"
#include "llm/reply_parser.hpp"
#include "llm/sse.hpp"
#include "tests/llm/connect_proxy.hpp"
#include "tests/llm/fake_provider.hpp"
#include "tests/test_support.hpp"

namespace kforge {
namespace {

using llm::FailureKind;
using llm::ProviderKind;
using test::FakeProvider;
using test::ProviderStep;

/// Replies kept in memory, as the archive keeps them on disk.
class MemoryStore : public llm::ReplyStore {
 public:
  std::optional<llm::CachedReply> find(const std::string& key) override {
    std::lock_guard lock(mutex_);
    auto it = entries_.find(key);
    if (it == entries_.end()) return std::nullopt;
    return it->second;
  }
  std::string put(const llm::CachedReply& entry) override {
    std::lock_guard lock(mutex_);
    entries_[entry.key] = entry;
    return {};
  }
  size_t size() const { return entries_.size(); }

 private:
  std::mutex mutex_;
  std::map<std::string, llm::CachedReply> entries_;
};

llm::ModelConfig model_for(const FakeProvider& fake, ProviderKind kind, bool stream = true) {
  llm::ModelConfig c;
  c.name = std::string("test-") + llm::to_string(kind);
  c.kind = kind;
  c.base_url = fake.base_url(llm::to_string(kind));
  c.model = kind == ProviderKind::gemini ? "gemini-2.5-flash" : "model-x";
  c.stream = stream;
  c.ca_file = fake.ca_file();
  c.timeout_seconds = 20;
  c.idle_timeout_seconds = 5;
  c.price = {2.0, 8.0, 0.5, 2.5};  // input, output, cached input, cache write
  return c;
}

const std::vector<llm::Message> kChat = {{"system", "You write kernels."},
                                         {"user", "Write a softmax."}};

/// A client whose waits between attempts are recorded instead of slept.
struct RecordingClient {
  llm::Client client;
  std::vector<int64_t> waits_ms;
  RecordingClient(llm::ModelConfig c, llm::ReplyStore* store = nullptr, bool offline = false)
      : client(std::move(c), store, offline) {
    client.sleep = [this](std::chrono::milliseconds d) { waits_ms.push_back(d.count()); };
  }
};

TEST(Sse, EventsDoNotDependOnHowTheBytesAreCut) {
  const std::string stream =
      ": keep-alive\r\nevent: message_start\r\ndata: {\"a\":1}\r\n\r\ndata: line one\ndata: line "
      "two\n\ndata: [DONE]\n\n";
  llm::SseParser whole;
  auto all = whole.feed(stream);
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0].event, "message_start");
  EXPECT_EQ(all[0].data, "{\"a\":1}");
  EXPECT_EQ(all[1].data, "line one\nline two");
  EXPECT_EQ(all[2].data, "[DONE]");
  llm::SseParser bytewise;
  std::vector<llm::SseEvent> pieces;
  for (char c : stream)
    for (auto& e : bytewise.feed(std::string_view(&c, 1))) pieces.push_back(e);
  ASSERT_EQ(pieces.size(), all.size());
  for (size_t i = 0; i < all.size(); ++i) EXPECT_EQ(pieces[i].data, all[i].data);
  EXPECT_FALSE(bytewise.pending());
  llm::SseParser cut;
  cut.feed("data: {\"half\"");
  EXPECT_TRUE(cut.pending());
}

TEST(ProviderWire, RequestsFollowEachProvidersDocumentedFormat) {
  llm::WireRequest r;
  r.model = "m";
  r.api_key = "sk-test";
  r.messages = kChat;
  r.sampling.temperature = 0.7;
  r.sampling.max_tokens = 1000;
  r.seed = 42;

  r.kind = ProviderKind::openai;
  auto h = llm::build_http_request(r);
  EXPECT_EQ(h.url, "https://api.openai.com/v1/chat/completions");
  auto body = *json::parse(h.body).value;
  EXPECT_EQ(body["messages"][0]["role"].as_string(), "system");
  EXPECT_EQ(body["max_tokens"].as_int(), 1000);
  EXPECT_EQ(body["seed"].as_int(), 42);
  EXPECT_TRUE(body["stream"].as_bool());
  EXPECT_TRUE(body["stream_options"]["include_usage"].as_bool());
  EXPECT_NE(std::find(h.headers.begin(), h.headers.end(),
                      std::pair<std::string, std::string>{"authorization", "Bearer sk-test"}),
            h.headers.end());
  r.sampling.reasoning_effort = "high";
  body = *json::parse(llm::build_http_request(r).body).value;
  EXPECT_EQ(body["reasoning_effort"].as_string(), "high");
  EXPECT_EQ(body["max_completion_tokens"].as_int(), 1000);
  EXPECT_FALSE(body.contains("max_tokens"));
  r.sampling.reasoning_effort.clear();

  r.kind = ProviderKind::anthropic;
  h = llm::build_http_request(r);
  EXPECT_EQ(h.url, "https://api.anthropic.com/v1/messages");
  body = *json::parse(h.body).value;
  EXPECT_EQ(body["system"].as_string(), "You write kernels.");
  ASSERT_EQ(body["messages"].as_array().size(), 1u);  // the system text is not a message
  EXPECT_EQ(body["messages"][0]["role"].as_string(), "user");
  EXPECT_EQ(body["max_tokens"].as_int(), 1000);
  EXPECT_DOUBLE_EQ(body["temperature"].as_number(), 0.7);
  bool has_version = false, has_key = false;
  for (const auto& [n, v] : h.headers) {
    has_version |= n == "anthropic-version" && v == "2023-06-01";
    has_key |= n == "x-api-key" && v == "sk-test";
  }
  EXPECT_TRUE(has_version && has_key);
  r.sampling.thinking_budget = 1024;  // Anthropic's least
  body = *json::parse(llm::build_http_request(r).body).value;
  EXPECT_EQ(body["thinking"]["type"].as_string(), "enabled");
  EXPECT_EQ(body["thinking"]["budget_tokens"].as_int(), 1024);
  EXPECT_FALSE(body.contains("temperature"));  // not allowed with extended thinking

  r.kind = ProviderKind::gemini;
  r.stream = false;
  h = llm::build_http_request(r);
  EXPECT_EQ(h.url, "https://generativelanguage.googleapis.com/v1beta/models/m:generateContent");
  body = *json::parse(h.body).value;
  EXPECT_EQ(body["systemInstruction"]["parts"][0]["text"].as_string(), "You write kernels.");
  EXPECT_EQ(body["contents"][0]["role"].as_string(), "user");
  EXPECT_EQ(body["contents"][0]["parts"][0]["text"].as_string(), "Write a softmax.");
  EXPECT_EQ(body["generationConfig"]["maxOutputTokens"].as_int(), 1000);
  EXPECT_EQ(body["generationConfig"]["thinkingConfig"]["thinkingBudget"].as_int(), 1024);
  r.stream = true;
  EXPECT_EQ(
      llm::build_http_request(r).url,
      "https://generativelanguage.googleapis.com/v1beta/models/m:streamGenerateContent?alt=sse");
}

TEST(ModelRules, OpenAisReasoningModelsAreKnownByName) {
  for (const char* m : {"o1", "o3", "o3-mini", "o4-mini", "o3-2025-04-16", "gpt-5", "gpt-5-mini",
                        "gpt-5.1", "gpt-5-codex"})
    EXPECT_TRUE(llm_rules::openai_reasoning_model(m)) << m;
  for (const char* m : {"gpt-4o", "gpt-4.1", "gpt-4.1-mini", "gpt-5-chat-latest", "model-x", "o"})
    EXPECT_FALSE(llm_rules::openai_reasoning_model(m)) << m;
}

// Minutes of silence are normal while OpenAI's reasoning models and Gemini's thinking models
// think: their attempts are not cut for silence unless the configuration says so.
TEST(ModelRules, ModelsThatReasonInSilenceKeepTheWholeAttempt) {
  auto idle = [](const char* provider, const char* model, double attempt) {
    llm_rules::ModelSettings s;
    s.provider = provider;
    s.model = model;
    return llm_rules::default_idle_seconds(s, attempt);
  };
  EXPECT_EQ(idle("openai", "gpt-5", 600), 600);
  EXPECT_EQ(idle("openai", "o4-mini", 900), 900);
  EXPECT_EQ(idle("gemini", "gemini-2.5-flash", 600), 600);
  EXPECT_EQ(idle("openai", "gpt-4.1", 600), 120);
  EXPECT_EQ(idle("anthropic", "claude-sonnet-4-5", 600), 120);
}

// Hidden reasoning counts within the output limit: a model that reasons gets room for it where the
// configuration sets no limit, and a limit given is kept.
TEST(ModelRules, ModelsThatReasonGetRoomForItUnderTheirOutputLimit) {
  auto limit = [](const char* provider, const char* model, int64_t budget = 0) {
    llm_rules::ModelSettings s;
    s.provider = provider;
    s.model = model;
    s.thinking_budget = budget;
    return llm_rules::default_max_tokens(s);
  };
  EXPECT_EQ(limit("openai", "gpt-5"), 32768);
  EXPECT_EQ(limit("openai", "o3"), 32768);
  EXPECT_EQ(limit("gemini", "gemini-2.5-pro"), 32768);
  EXPECT_EQ(limit("openai", "gpt-4.1"), 8192);
  EXPECT_EQ(limit("anthropic", "claude-sonnet-4-5"), 8192);
  EXPECT_EQ(limit("anthropic", "claude-sonnet-4-5", 16000), 16000 + 8192);
  // A budget of 10000 with no max_tokens set is not refused (the default leaves room above it);
  // with max_tokens 8192 set, it is.
  llm_rules::ModelSettings s{"anthropic", "claude-sonnet-4-5", -1, -1, -1, "", 10000};
  EXPECT_TRUE(llm_rules::refused_settings(s).empty());
  s.max_tokens = 8192;
  ASSERT_EQ(llm_rules::refused_settings(s).size(), 1u);
  EXPECT_EQ(llm_rules::refused_settings(s)[0].setting, "thinking_budget");
}

// gpt-5 with no reasoning_effort: the request a reasoning model accepts, whatever the
// configuration's sampling (which a configuration check refuses before this, ExperimentSpec
// tests); gpt-4.1 keeps max_tokens and its temperature.
TEST(ProviderWire, OpenAiReasoningModelsGetMaxCompletionTokensAndNoSampling) {
  llm::WireRequest r;
  r.kind = ProviderKind::openai;
  r.model = "gpt-5";
  r.messages = kChat;
  r.sampling.temperature = 0.7;
  r.sampling.top_p = 0.9;
  r.sampling.max_tokens = 16000;
  auto body = *json::parse(llm::build_http_request(r).body).value;
  EXPECT_EQ(body["max_completion_tokens"].as_int(), 16000);
  EXPECT_FALSE(body.contains("max_tokens"));
  EXPECT_FALSE(body.contains("temperature"));
  EXPECT_FALSE(body.contains("top_p"));
  EXPECT_FALSE(body.contains("reasoning_effort"));
  r.model = "gpt-4.1";
  body = *json::parse(llm::build_http_request(r).body).value;
  EXPECT_EQ(body["max_tokens"].as_int(), 16000);
  EXPECT_DOUBLE_EQ(body["temperature"].as_number(), 0.7);
  EXPECT_FALSE(body.contains("max_completion_tokens"));
}

// The fake provider refuses what the services document they refuse, with their error bodies: a
// client that sent max_tokens to gpt-5, or a thinking budget of 512 to Anthropic, fails here as
// it would there, and the failure is final (a 400 is not retried).
TEST(FakeProviderStrictness, RefusesWhatTheServicesDocumentTheyRefuse) {
  FakeProvider fake;
  {
    auto config = model_for(fake, ProviderKind::openai);
    config.model = "gpt-5";
    RecordingClient c(config);
    auto r = c.client.call(kChat, 1, 0);
    EXPECT_EQ(r.record.failure, FailureKind::none) << r.record.error;  // the client sends it right
    auto body = *json::parse(fake.requests().back().body).value;
    EXPECT_TRUE(body.contains("max_completion_tokens"));
  }
  struct Refused {
    ProviderKind kind;
    std::string model;
    llm::Sampling sampling;
    std::string words;  ///< in the service's error message
  };
  // (A temperature with thinking is refused there too; the client leaves it out of such requests.)
  llm::Sampling thin, both;
  thin.thinking_budget = 512;
  both.temperature = 0.5;
  both.top_p = 0.9;
  for (const auto& [kind, model, sampling, words] :
       {Refused{ProviderKind::anthropic, "claude-sonnet-4-5", thin, "greater than or equal to 1024"},
        Refused{ProviderKind::anthropic, "claude-sonnet-4-5", both, "cannot both be specified"}}) {
    auto config = model_for(fake, kind);
    config.model = model;
    config.sampling = sampling;
    RecordingClient c(config);
    auto r = c.client.call(kChat, 1, 0);
    EXPECT_NE(r.record.failure, FailureKind::none);
    EXPECT_NE(r.record.failure, FailureKind::transient) << "a 400 is final";
    EXPECT_NE(r.record.error.find(words), std::string::npos) << r.record.error;
    EXPECT_EQ(r.record.attempts, 1);
  }
}

TEST(ProviderWire, ErrorsAreSortedIntoRetriedAndFinal) {
  using llm::classify_http_error;
  EXPECT_EQ(classify_http_error(ProviderKind::openai, 429,
                                R"({"error":{"message":"slow down","code":"rate_limit_exceeded"}})")
                .failure,
            FailureKind::transient);
  EXPECT_EQ(classify_http_error(ProviderKind::openai, 429,
                                R"({"error":{"message":"quota","code":"insufficient_quota"}})")
                .failure,
            FailureKind::money);
  EXPECT_EQ(
      classify_http_error(ProviderKind::anthropic, 400,
                          R"({"type":"error","error":{"type":"invalid_request_error",)"
                          R"("message":"Your credit balance is too low to access the API."}})")
          .failure,
      FailureKind::money);
  EXPECT_EQ(classify_http_error(
                ProviderKind::anthropic, 529,
                R"({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}})")
                .failure,
            FailureKind::transient);
  EXPECT_EQ(
      classify_http_error(
          ProviderKind::gemini, 403,
          R"({"error":{"code":403,"message":"API key not valid","status":"PERMISSION_DENIED"}})")
          .failure,
      FailureKind::auth);
  EXPECT_EQ(classify_http_error(ProviderKind::gemini, 404, "not json").failure,
            FailureKind::bad_request);
  // Gemini's per-minute quota uses the words of OpenAI's spent balance: a rate limit all the
  // same, with the wait it asks for; its invalid key is a 400 that names API_KEY_INVALID.
  const std::string minute = ProviderStep::gemini_quota(false, "2s").raw_body;
  auto quota = classify_http_error(ProviderKind::gemini, 429, minute);
  EXPECT_EQ(quota.failure, FailureKind::transient) << quota.error;
  ASSERT_TRUE(quota.retry_after_s.has_value());
  EXPECT_DOUBLE_EQ(*quota.retry_after_s, 2.0);
  EXPECT_EQ(classify_http_error(ProviderKind::gemini, 429,
                                ProviderStep::gemini_quota(true, "41734.5s").raw_body)
                .failure,
            FailureKind::transient);
  EXPECT_EQ(
      classify_http_error(ProviderKind::gemini, 400, ProviderStep::gemini_invalid_key().raw_body)
          .failure,
      FailureKind::auth);
  auto e = classify_http_error(ProviderKind::gemini, 503,
                               R"({"error":{"code":503,"message":"busy","status":"UNAVAILABLE"}})");
  EXPECT_EQ(e.failure, FailureKind::transient);
  EXPECT_NE(e.error.find("UNAVAILABLE"), std::string::npos);
}

class EveryProvider : public ::testing::TestWithParam<std::tuple<ProviderKind, bool, bool>> {};

TEST_P(EveryProvider, RepliesArriveWholeWithTheirUsage) {
  auto [kind, stream, tls] = GetParam();
  FakeProvider fake(tls);
  fake.require_key("sk-right");
  std::string long_text(5000, 'x');
  fake.push(ProviderStep::reply("Name: a\n" + long_text));
  auto config = model_for(fake, kind, stream);
  config.api_key_env = "KFORGE_TEST_PROVIDER_KEY";
  ::setenv("KFORGE_TEST_PROVIDER_KEY", "sk-right", 1);
  RecordingClient c(config);
  auto r = c.client.call(kChat, 7, 0);
  ASSERT_TRUE(r.record.ok) << r.record.error;
  EXPECT_EQ(r.reply.text, "Name: a\n" + long_text);
  EXPECT_GT(r.record.usage.input_tokens, 0);
  EXPECT_EQ(r.record.usage.output_tokens, static_cast<int64_t>(r.reply.text.size() / 4 + 1));
  EXPECT_NEAR(r.record.cost_usd,
              (r.record.usage.input_tokens * 2.0 + r.record.usage.output_tokens * 8.0) / 1e6,
              1e-12);
  EXPECT_EQ(r.record.attempts, 1);
  auto seen = fake.requests();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].stream, stream);
  EXPECT_EQ(seen[0].user, "Write a softmax.");
  EXPECT_EQ(seen[0].system, "You write kernels.");
  // A wrong key is final: one attempt, no retry.
  ::setenv("KFORGE_TEST_PROVIDER_KEY", "sk-wrong", 1);
  auto denied = c.client.call(kChat, 7, 1);
  EXPECT_FALSE(denied.record.ok);
  EXPECT_EQ(denied.record.failure, FailureKind::auth);
  EXPECT_EQ(denied.record.attempts, 1);
  EXPECT_EQ(denied.record.error.find("sk-wrong"), std::string::npos);  // keys are never shown
  ::unsetenv("KFORGE_TEST_PROVIDER_KEY");
}

// Each service says in its own fields how much of the prompt it read from its cache (OpenAI
// prompt_tokens_details.cached_tokens and Gemini cachedContentTokenCount inside the prompt count,
// Anthropic cache_read_input_tokens beside input_tokens): the call counts the whole prompt, the
// cached part apart, and bills that part at the cached-input price.
TEST_P(EveryProvider, CachedInputIsCountedOnceAndBilledAtItsPrice) {
  auto [kind, stream, tls] = GetParam();
  FakeProvider fake(tls);
  auto step = ProviderStep::reply("Name: a\nint x;");
  step.cached_tokens = 12;
  fake.push(step);
  fake.push(ProviderStep::reply("Name: a\nint x;"));  // the same prompt, nothing cached
  RecordingClient c(model_for(fake, kind, stream));
  auto cached = c.client.call(kChat, 7, 0);
  auto fresh = c.client.call(kChat, 7, 1);
  ASSERT_TRUE(cached.record.ok) << cached.record.error;
  ASSERT_TRUE(fresh.record.ok) << fresh.record.error;
  EXPECT_EQ(cached.record.usage.cached_input_tokens, 12);
  EXPECT_EQ(fresh.record.usage.cached_input_tokens, 0);
  EXPECT_EQ(cached.record.usage.input_tokens, fresh.record.usage.input_tokens);
  EXPECT_NEAR(fresh.record.cost_usd - cached.record.cost_usd, 12 * (2.0 - 0.5) / 1e6, 1e-12);
}

INSTANTIATE_TEST_SUITE_P(Wire, EveryProvider,
                         ::testing::Combine(::testing::Values(ProviderKind::openai,
                                                              ProviderKind::anthropic,
                                                              ProviderKind::gemini),
                                            ::testing::Bool(), ::testing::Bool()),
                         [](const auto& info) {
                           return std::string(llm::to_string(std::get<0>(info.param))) +
                                  (std::get<1>(info.param) ? "_streamed" : "_whole") +
                                  (std::get<2>(info.param) ? "_https" : "_http");
                         });

TEST(Transport, CertificatesAreVerified) {
  FakeProvider fake(true);
  auto config = model_for(fake, ProviderKind::openai);
  config.ca_file.clear();  // the fake's certificate is not trusted by the system store
  config.max_attempts = 1;
  RecordingClient c(config);
  auto r = c.client.call(kChat, 1, 0);
  EXPECT_FALSE(r.record.ok);
  EXPECT_NE(r.record.error.find("TLS handshake"), std::string::npos) << r.record.error;
  EXPECT_EQ(fake.request_count(), 0u);
  // A provider's URL with credentials is refused (keys go in headers only): nothing is sent.
  config.base_url = "https://user:secret@127.0.0.1:" + std::to_string(fake.port()) + "/v1";
  RecordingClient with_user(config);
  auto refused = with_user.client.call(kChat, 1, 0);
  EXPECT_FALSE(refused.record.ok);
  EXPECT_NE(refused.record.error.find("a user and password in a provider's URL are not sent"),
            std::string::npos)
      << refused.record.error;
  EXPECT_EQ(fake.request_count(), 0u);
}

// URLs as RFC 3986 writes them: user and password (percent-encoded) before the host, an IPv6
// address in brackets, a query right after the host.
TEST(Transport, UrlsParseAsRfc3986WritesThem) {
  auto proxy = llm::parse_url("http://us%40er:p%3Ass%25w@proxy.corp:3128");
  ASSERT_TRUE(proxy) << proxy.error;
  EXPECT_EQ(proxy->user, "us@er");
  EXPECT_EQ(proxy->password, "p:ss%w");
  EXPECT_EQ(proxy->host, "proxy.corp");
  EXPECT_EQ(proxy->port, "3128");
  auto v6 = llm::parse_url("https://[2001:db8::1]:8443/v1");
  ASSERT_TRUE(v6) << v6.error;
  EXPECT_EQ(v6->host, "2001:db8::1");
  EXPECT_EQ(v6->port, "8443");
  EXPECT_EQ(v6->target, "/v1");
  EXPECT_EQ(v6->authority(), "[2001:db8::1]:8443");
  auto v6_default = llm::parse_url("https://[::1]");
  ASSERT_TRUE(v6_default) << v6_default.error;
  EXPECT_EQ(v6_default->port, "443");
  EXPECT_EQ(v6_default->target, "/");
  EXPECT_EQ(llm::parse_url("http://host?x=1")->target, "/?x=1");
  EXPECT_EQ(llm::parse_url("https://localhost:8443/v1")->authority(), "localhost:8443");
  for (const char* bad : {"https://::1/v1", "https://[::1/v1", "https://[::1]x/v1",
                          "https://[not-v6]/v1", "https://host:http/v1", "https://u%zz@h/",
                          "ftp://host/", "host/v1"})
    EXPECT_FALSE(llm::parse_url(bad)) << bad;
  EXPECT_NE(llm::parse_url("https://::1/v1").error.find("in brackets"), std::string::npos);
}

// A provider at an IPv6 literal (a local server on [::1]): connected, Host written with brackets,
// the certificate's IP address checked.
TEST(Transport, AnIpv6LiteralBaseUrlIsReached) {
  std::unique_ptr<FakeProvider> fake;
  try {
    fake = std::make_unique<FakeProvider>(true, "::1");
  } catch (const std::exception& e) {
    GTEST_SKIP() << "this machine has no IPv6 loopback: " << e.what();
  }
  fake->push(ProviderStep::reply("over IPv6"));
  auto config = model_for(*fake, ProviderKind::openai, false);
  ASSERT_EQ(config.base_url.rfind("https://[::1]:", 0), 0u) << config.base_url;
  RecordingClient c(config);
  auto r = c.client.call(kChat, 1, 0);
  ASSERT_TRUE(r.record.ok) << r.record.error;
  EXPECT_EQ(r.reply.text, "over IPv6");
  EXPECT_EQ(fake->requests().back().headers.at("host"),
            "[::1]:" + std::to_string(fake->port()));
}

TEST(Transport, LoopbackNeverGoesThroughAProxy) {
  ::setenv("HTTPS_PROXY", "http://127.0.0.1:9", 1);
  EXPECT_EQ(llm::proxy_from_environment("127.0.0.1"), "");
  EXPECT_EQ(llm::proxy_from_environment("api.openai.com"), "http://127.0.0.1:9");
  ::setenv("NO_PROXY", "example.com,.openai.com", 1);
  EXPECT_EQ(llm::proxy_from_environment("api.openai.com"), "");
  EXPECT_EQ(llm::proxy_from_environment("api.anthropic.com"), "http://127.0.0.1:9");
  ::unsetenv("NO_PROXY");
  FakeProvider fake(true);
  fake.push(ProviderStep::reply("through"));
  RecordingClient c(model_for(fake, ProviderKind::openai));
  auto r = c.client.call(kChat, 1, 0);
  ::unsetenv("HTTPS_PROXY");
  EXPECT_TRUE(r.record.ok) << r.record.error;
}

/// A whole (not streamed) OpenAI request to the fake provider, as the transport sends it.
llm::HttpRequest whole_openai_request(const FakeProvider& fake) {
  llm::WireRequest w;
  w.kind = ProviderKind::openai;
  w.base_url = fake.base_url("openai");
  w.model = "m";
  w.stream = false;
  w.messages = kChat;
  return llm::build_http_request(w);
}

TEST(Transport, HttpsGoesThroughAConnectProxyWithTheServersCertificateChecked) {
  FakeProvider fake(true);
  fake.push(ProviderStep::reply("tunnelled"));
  test::ConnectProxy proxy;
  const auto request = whole_openai_request(fake);
  llm::TransportOptions options;
  options.proxy = proxy.url();
  options.ca_file = fake.ca_file();
  auto sent = llm::send_http(request, options);
  ASSERT_TRUE(sent.ok) << sent.error;
  EXPECT_EQ(sent.response.status, 200);
  EXPECT_EQ(llm::read_reply(ProviderKind::openai, sent.response.body).reply.text, "tunnelled");
  EXPECT_EQ(proxy.tunnels(), 1);
  EXPECT_EQ(proxy.last_authority(), "127.0.0.1:" + std::to_string(fake.port()));
  // End to end through the tunnel, TLS still verifies the provider, not the proxy.
  options.ca_file.clear();
  auto untrusted = llm::send_http(request, options);
  EXPECT_FALSE(untrusted.ok);
  EXPECT_NE(untrusted.error.find("TLS handshake"), std::string::npos) << untrusted.error;
}

// A proxy that wants credentials (a corporate one): HTTPS_PROXY's user and password, written
// percent-encoded, go to it as Basic credentials; without them or with wrong ones the error says
// the proxy asked for them.
TEST(Transport, AProxyThatWantsCredentialsGetsThoseOfHttpsProxy) {
  FakeProvider fake(true);
  fake.push(ProviderStep::reply("authenticated"));
  test::ConnectProxy proxy("us@er:p:ss");
  const std::string hostport = proxy.url().substr(std::string("http://").size());
  const auto request = whole_openai_request(fake);
  llm::TransportOptions options;
  options.ca_file = fake.ca_file();
  options.proxy = "http://us%40er:p%3Ass@" + hostport;
  auto sent = llm::send_http(request, options);
  ASSERT_TRUE(sent.ok) << sent.error;
  EXPECT_EQ(llm::read_reply(ProviderKind::openai, sent.response.body).reply.text, "authenticated");
  EXPECT_EQ(proxy.tunnels(), 1);
  options.proxy = "http://" + hostport;
  auto anonymous = llm::send_http(request, options);
  EXPECT_FALSE(anonymous.ok);
  EXPECT_NE(anonymous.error.find("HTTP 407 (it wants credentials"), std::string::npos)
      << anonymous.error;
  options.proxy = "http://us%40er:wrong@" + hostport;
  auto wrong = llm::send_http(request, options);
  EXPECT_NE(wrong.error.find("does not take the user and password"), std::string::npos)
      << wrong.error;
  EXPECT_EQ(proxy.refusals(), 2);
  EXPECT_EQ(proxy.tunnels(), 1);
}

TEST(Retries, TransientFailuresAreRetriedAndRetryAfterIsHonoured) {
  FakeProvider fake(true);
  fake.push(ProviderStep::rate_limited(3));
  fake.push(ProviderStep::server_error(503));
  fake.push(ProviderStep::malformed_json());
  fake.push(ProviderStep::truncated_stream());
  fake.push(ProviderStep::reply("finally"));
  auto config = model_for(fake, ProviderKind::openai);
  config.backoff_initial_seconds = 2;
  RecordingClient c(config);
  auto r = c.client.call(kChat, 1, 0);
  ASSERT_TRUE(r.record.ok) << r.record.error;
  EXPECT_EQ(r.reply.text, "finally");
  EXPECT_EQ(r.record.attempts, 5);
  ASSERT_EQ(c.waits_ms.size(), 4u);
  EXPECT_EQ(c.waits_ms[0], 3000);  // exactly what retry-after said
  // Jittered exponential back-off otherwise: half to all of 2 s x 2^(failures - 1).
  EXPECT_GE(c.waits_ms[1], 2000);
  EXPECT_LE(c.waits_ms[1], 4000);
  EXPECT_GE(c.waits_ms[2], 4000);
  EXPECT_LE(c.waits_ms[2], 8000);
  EXPECT_GE(c.waits_ms[3], 8000);
  EXPECT_LE(c.waits_ms[3], 16000);
  ASSERT_EQ(r.record.attempt_errors.size(), 4u);
  EXPECT_NE(r.record.attempt_errors[3].find("stream ended"), std::string::npos)
      << r.record.attempt_errors[3];
}

TEST(Retries, SpentMoneyIsNeverRetried) {
  for (auto kind : {ProviderKind::openai, ProviderKind::anthropic}) {
    FakeProvider fake;
    if (kind == ProviderKind::openai) {
      fake.push(ProviderStep::credit_exhausted());
    } else {
      ProviderStep s;
      s.action = ProviderStep::Action::status;
      s.status = 400;
      s.error_code = "invalid_request_error";
      s.message = "Your credit balance is too low to access the Anthropic API.";
      fake.push(s);
    }
    RecordingClient c(model_for(fake, kind));
    auto r = c.client.call(kChat, 1, 0);
    EXPECT_EQ(r.record.failure, FailureKind::money) << r.record.error;
    EXPECT_EQ(r.record.attempts, 1);
    EXPECT_TRUE(c.waits_ms.empty());
    EXPECT_EQ(fake.request_count(), 1u);
  }
}

// Against the fake playing Gemini's documented bodies: a per-minute quota waits what RetryInfo
// says and the call then succeeds; a per-day quota asks for hours, which ends the call as a
// rate limit (the model is not disabled); an invalid key ends it as the key's fault, once.
TEST(Retries, GeminiQuotasWaitWhatRetryInfoSaysAndOnlyARejectedKeyIsFinal) {
  FakeProvider fake;
  fake.push(ProviderStep::gemini_quota(false, "2s"));
  RecordingClient minute(model_for(fake, ProviderKind::gemini));
  auto r = minute.client.call(kChat, 1, 0);
  EXPECT_TRUE(r.record.ok) << r.record.error;
  EXPECT_EQ(minute.waits_ms, std::vector<int64_t>{2000});

  fake.push(ProviderStep::gemini_quota(true, "41734s"));
  RecordingClient day(model_for(fake, ProviderKind::gemini));
  r = day.client.call(kChat, 2, 0);
  EXPECT_EQ(r.record.failure, FailureKind::transient) << r.record.error;
  EXPECT_EQ(r.record.attempts, 1);
  EXPECT_NE(r.record.error.find("longer than retry_after_max_seconds"), std::string::npos);

  fake.push(ProviderStep::gemini_invalid_key());
  RecordingClient key(model_for(fake, ProviderKind::gemini));
  r = key.client.call(kChat, 3, 0);
  EXPECT_EQ(r.record.failure, FailureKind::auth) << r.record.error;
  EXPECT_EQ(r.record.attempts, 1);
  EXPECT_NE(r.record.error.find("API_KEY_INVALID"), std::string::npos);
}

// A prompt Gemini blocks is blocked again if sent again: one attempt, whole or streamed, and
// the failure says why.
TEST(Retries, AGeminiBlockedPromptIsNotSentAgain) {
  for (bool stream : {true, false}) {
    FakeProvider fake;
    fake.push(ProviderStep::gemini_blocked_prompt());
    RecordingClient c(model_for(fake, ProviderKind::gemini, stream));
    auto r = c.client.call(kChat, 1, 0);
    EXPECT_EQ(r.record.failure, FailureKind::bad_request) << r.record.error;
    EXPECT_EQ(r.record.attempts, 1) << r.record.error;
    EXPECT_NE(r.record.error.find("PROHIBITED_CONTENT"), std::string::npos) << r.record.error;
  }
}

// A stream cut after Anthropic's message_start has reported the input tokens, which the provider
// bills: the call's usage and cost count them with the attempt that succeeded.
TEST(Retries, FailedAttemptsAreBilledForTheUsageTheyReported) {
  FakeProvider fake;
  fake.push(ProviderStep::truncated_stream());
  RecordingClient c(model_for(fake, ProviderKind::anthropic));
  auto r = c.client.call(kChat, 1, 0);
  ASSERT_TRUE(r.record.ok) << r.record.error;
  EXPECT_EQ(r.record.attempts, 2);
  FakeProvider once;
  RecordingClient single(model_for(once, ProviderKind::anthropic));
  auto whole = single.client.call(kChat, 1, 0);
  ASSERT_TRUE(whole.record.ok);
  // The same prompt: the cut attempt's input tokens come on top of one whole call's usage.
  EXPECT_EQ(r.record.usage.input_tokens, 2 * whole.record.usage.input_tokens);
  EXPECT_GT(r.record.cost_usd, whole.record.cost_usd);
}

TEST(Retries, GiveUpAfterTheLastAttemptOrATooLongRetryAfter) {
  FakeProvider fake;
  for (int i = 0; i < 3; ++i) fake.push(ProviderStep::server_error());
  auto config = model_for(fake, ProviderKind::anthropic);
  config.max_attempts = 3;
  RecordingClient c(config);
  auto r = c.client.call(kChat, 1, 0);
  EXPECT_FALSE(r.record.ok);
  EXPECT_EQ(r.record.attempts, 3);
  EXPECT_EQ(r.record.failure, FailureKind::transient);
  fake.push(ProviderStep::rate_limited(3600));
  auto hour = c.client.call(kChat, 1, 1);
  EXPECT_EQ(hour.record.attempts, 1);
  EXPECT_NE(hour.record.error.find("3600 s"), std::string::npos) << hour.record.error;
  // retry-after as an HTTP date (here two seconds from now, to the second).
  auto step = ProviderStep::server_error(503);
  std::time_t in_two = std::time(nullptr) + 2;
  char date[64];
  std::strftime(date, sizeof date, "%a, %d %b %Y %H:%M:%S GMT", std::gmtime(&in_two));
  step.headers["retry-after"] = date;
  fake.push(step);
  fake.push(ProviderStep::reply("after the date"));
  c.waits_ms.clear();
  auto dated = c.client.call(kChat, 1, 2);
  EXPECT_TRUE(dated.record.ok) << dated.record.error;
  ASSERT_EQ(c.waits_ms.size(), 1u);
  EXPECT_GE(c.waits_ms[0], 500);
  EXPECT_LE(c.waits_ms[0], 2100);
}

TEST(Timeouts, ASilentProviderIsCutAndTriedAgain) {
  FakeProvider fake;
  fake.push(ProviderStep::slow(3000));
  fake.push(ProviderStep::reply("awake"));
  auto config = model_for(fake, ProviderKind::gemini);
  config.idle_timeout_seconds = 0.3;
  RecordingClient c(config);
  auto start = std::chrono::steady_clock::now();
  auto r = c.client.call(kChat, 1, 0);
  ASSERT_TRUE(r.record.ok) << r.record.error;
  EXPECT_EQ(r.record.attempts, 2);
  EXPECT_NE(r.record.attempt_errors[0].find("no data"), std::string::npos)
      << r.record.attempt_errors[0];
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(2500));
}

TEST(Concurrency, OneEndpointNeverHasMoreThanItsLimitInFlight) {
  FakeProvider fake;
  std::atomic<int> now{0}, most{0};
  fake.set_responder([&](const test::ProviderRequest&) {
    int n = ++now;
    for (int m = most; n > m && !most.compare_exchange_weak(m, n);) {
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(150));
    --now;
    return std::string("ok");
  });
  auto config = model_for(fake, ProviderKind::openai);
  config.max_concurrency = 2;
  std::vector<std::thread> threads;
  std::atomic<int> ok{0};
  for (int i = 0; i < 6; ++i)
    threads.emplace_back([&, i] {
      llm::Client client(config, nullptr, false);
      ok += client.call(kChat, 1, i).record.ok;
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(ok, 6);
  EXPECT_EQ(most, 2);
}

TEST(Cache, RepliesAreKeptAndReplayedOffline) {
  FakeProvider fake;
  fake.set_responder([](const test::ProviderRequest& r) { return "reply to " + r.user; });
  MemoryStore store;
  auto config = model_for(fake, ProviderKind::anthropic);
  RecordingClient online(config, &store);
  auto first = online.client.call(kChat, 5, 0);
  ASSERT_TRUE(first.record.ok);
  EXPECT_FALSE(first.record.cached);
  EXPECT_GT(first.record.cost_usd, 0);
  auto again = online.client.call(kChat, 5, 0);
  EXPECT_TRUE(again.record.cached);
  EXPECT_EQ(again.record.cost_usd, 0);  // a cached reply costs nothing again
  EXPECT_EQ(again.reply.text, first.reply.text);
  EXPECT_EQ(fake.request_count(), 1u);
  // Another sample of the same request, or another seed, is another call.
  online.client.call(kChat, 5, 1);
  online.client.call(kChat, 6, 0);
  EXPECT_EQ(fake.request_count(), 3u);
  EXPECT_EQ(store.size(), 3u);

  RecordingClient offline(config, &store, true);
  auto replayed = offline.client.call(kChat, 5, 0);
  EXPECT_TRUE(replayed.record.cached);
  EXPECT_EQ(replayed.reply.text, first.reply.text);
  auto miss = offline.client.call(kChat, 5, 9);
  EXPECT_EQ(miss.record.failure, FailureKind::offline_miss);
  EXPECT_NE(miss.record.error.find("--offline"), std::string::npos);
  EXPECT_EQ(fake.request_count(), 3u);  // offline never called out
  EXPECT_TRUE(offline.client.replay(first.record.key).record.ok);
  EXPECT_EQ(offline.client.replay("nope").record.failure, FailureKind::offline_miss);

  // The key covers the endpoint, the model, the messages and the sampling parameters.
  auto key = [&](llm::ModelConfig c) { return llm::cache_key(c, kChat, 5, 0); };
  auto other = config;
  other.model = "other";
  EXPECT_NE(key(config), key(other));
  other = config;
  other.sampling.temperature = 0.2;
  EXPECT_NE(key(config), key(other));
  other = config;
  other.name = "renamed";  // the ensemble's name for it does not change what is asked
  EXPECT_EQ(key(config), key(other));
}

TEST(Prices, BundledTableParsesAndMatchesPrefixes) {
  std::ifstream in(test::source_dir() + "/configs/prices.json");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto table = llm::PriceTable::parse(text);
  ASSERT_TRUE(table) << table.error;
  auto sonnet = table->find("anthropic", "claude-sonnet-4-5-20250929");
  ASSERT_TRUE(sonnet);
  EXPECT_DOUBLE_EQ(sonnet->output_per_mtok, 15.0);
  auto lite = table->find("gemini", "gemini-2.5-flash-lite");
  ASSERT_TRUE(lite);
  EXPECT_DOUBLE_EQ(lite->input_per_mtok, 0.1);  // the longest pattern wins
  EXPECT_FALSE(table->find("openai", "gpt-unknown"));
  EXPECT_FALSE(table->find("gemini", "gpt-4.1"));
  auto bad = llm::PriceTable::parse(R"({"prices":[{"provider":"x"}]})");
  EXPECT_FALSE(bad);
  EXPECT_NE(bad.error.find("entry 0 needs provider, model"), std::string::npos) << bad.error;
  EXPECT_DOUBLE_EQ(llm::cost_usd({1, 10}, {1000000, 500000}), 6.0);
  // Cached input, from the providers' price pages (a tenth of the input price for these).
  auto gpt5 = table->find("openai", "gpt-5");
  ASSERT_TRUE(gpt5);
  EXPECT_DOUBLE_EQ(gpt5->cached_input_per_mtok, 0.125);
  EXPECT_DOUBLE_EQ(sonnet->cached_input_per_mtok, 0.3);
  EXPECT_DOUBLE_EQ(sonnet->cache_write_per_mtok, 3.75);  // Anthropic's 5-minute write: 1.25x
  EXPECT_DOUBLE_EQ(table->find("gemini", "gemini-2.5-flash")->cached_input_per_mtok, 0.03);
  // OpenAI's documented example: 2006 prompt tokens of which 1920 cached, 300 out, at gpt-5.
  EXPECT_NEAR(llm::cost_usd(*gpt5, {2006, 300, 1920, 0}),
              (86 * 1.25 + 1920 * 0.125 + 300 * 10.0) / 1e6, 1e-15);
  // An entry without a cached price bills cached input at the input price, never cheaper.
  auto plain = llm::PriceTable::parse(
      R"({"prices":[{"provider":"openai","model":"m","input_per_mtok":2,"output_per_mtok":8}]})");
  ASSERT_TRUE(plain) << plain.error;
  EXPECT_DOUBLE_EQ(plain->find("openai", "m")->cached_input_per_mtok, 2.0);
  EXPECT_FALSE(llm::PriceTable::parse(
      R"({"prices":[{"provider":"openai","model":"m","input_per_mtok":2,"output_per_mtok":8,)"
      R"("cached_input_per_mtok":-1}]})"));
  // Every entry of the bundled table says what its cached input costs.
  auto doc = json::parse(text);
  for (const auto& row : (*doc.value)["prices"].as_array())
    EXPECT_TRUE(row["cached_input_per_mtok"].is_number()) << row["model"].as_string();
}

const char* kGoodReply = R"(Here is my kernel.

**Name:** f32 SM90 warp-rows!
Rationale: one warp per row, max and sum in registers.

```cpp
#include <torch/extension.h>
torch::Tensor forward(torch::Tensor x) { return x; }
PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("forward", &forward); }
```
)";

TEST(ReplyParsing, KernelRepliesGiveSourceNameAndRationale) {
  llm::ChatReply r;
  r.text = kGoodReply;
  auto k = llm::parse_kernel_reply(r, "forward");
  ASSERT_TRUE(k.ok) << k.reason;
  EXPECT_EQ(k.name, "f32_sm90_warp_rows");
  EXPECT_EQ(k.rationale, "one warp per row, max and sum in registers.");
  EXPECT_EQ(k.source.find("```"), std::string::npos);
  EXPECT_NE(k.source.find("m.def(\"forward\""), std::string::npos);
  EXPECT_FALSE(llm::parse_kernel_reply(r, "backward").ok);
}

TEST(ReplyParsing, TruncatedAndGarbledRepliesAreRejectedWithAReason) {
  llm::ChatReply r;
  auto reason = [&](const std::string& text, bool truncated = false) {
    r.text = text;
    r.truncated = truncated;
    auto k = llm::parse_kernel_reply(r, "forward");
    EXPECT_FALSE(k.ok);
    return k.reason;
  };
  EXPECT_EQ(reason(""), "the reply is empty");
  EXPECT_EQ(reason("I cannot help with that."), "the reply has no code block");
  EXPECT_NE(reason("```cpp\nint main() {}\n```").find("PYBIND11_MODULE"), std::string::npos);
  std::string cut = std::string(kGoodReply).substr(0, std::string(kGoodReply).size() - 5);
  EXPECT_NE(reason(cut).find("not closed"), std::string::npos);
  EXPECT_NE(reason(cut, true).find("token limit"), std::string::npos);
  // A reasoning model that thought until the limit sends no text at all, and is told so.
  r.usage.output_tokens = 32768;
  EXPECT_EQ(reason("", true),
            "the model spent its whole output limit (32768 tokens, reasoning included) before "
            "writing anything: raise max_tokens");
  EXPECT_NE(llm::parse_verifier_reply(r).reason.find("raise max_tokens"), std::string::npos);
  // Nothing crashes it.
  std::mt19937 rng(3);
  for (int i = 0; i < 2000; ++i) {
    std::string junk;
    for (int j = 0; j < 80; ++j) junk += "`{}\n:\"PYBIND11_MODULE x"[rng() % 24];
    r.text = junk;
    llm::parse_kernel_reply(r, "forward");
    llm::parse_verifier_reply(r);
  }
}

TEST(ReplyParsing, VerifierVerdicts) {
  llm::ChatReply r;
  r.text = "```json\n{\"verdict\": \"reject\", \"reasons\": [\"reads x[i+1] past the end\"]}\n```";
  auto v = llm::parse_verifier_reply(r);
  ASSERT_TRUE(v.decided);
  EXPECT_FALSE(v.accept);
  ASSERT_EQ(v.reasons.size(), 1u);
  r.text = "Looks fine. {\"verdict\":\"accept\",\"reasons\":\"nothing found\"}";
  v = llm::parse_verifier_reply(r);
  EXPECT_TRUE(v.decided && v.accept);
  r.text = "VERDICT: reject";
  v = llm::parse_verifier_reply(r);
  EXPECT_TRUE(v.decided && !v.accept);
  r.text = "{\"verdict\": \"maybe\"}";
  v = llm::parse_verifier_reply(r);
  EXPECT_FALSE(v.decided);
  EXPECT_FALSE(v.reason.empty());
}

TEST(ReplyParsing, MetaGenerationStrategies) {
  llm::ChatReply r;
  r.text =
      "Three directions:\n- **Fuse the max and sum passes**\n* keep rows in registers\n"
      "2. use float4 loads\n3) fuse the max and sum passes\n-not a list item\n- \n"
      "  10. tile the columns\n";
  auto s = llm::parse_strategies_reply(r, 10);
  ASSERT_TRUE(s.ok) << s.reason;
  EXPECT_EQ(s.strategies,
            (std::vector<std::string>{"Fuse the max and sum passes", "keep rows in registers",
                                      "use float4 loads", "fuse the max and sum passes",
                                      "tile the columns"}));
  EXPECT_EQ(llm::parse_strategies_reply(r, 2).strategies.size(), 2u);  // at most `count`
  // A reply cut at the token limit loses its last line, which may be cut.
  r.text = "- keep rows in registers\n- use float4 lo";
  r.truncated = true;
  s = llm::parse_strategies_reply(r, 4);
  EXPECT_EQ(s.strategies, std::vector<std::string>{"keep rows in registers"});
  r.text = "I would rather write a kernel.";
  r.truncated = false;
  s = llm::parse_strategies_reply(r, 4);
  EXPECT_FALSE(s.ok);
  EXPECT_NE(s.reason.find("no strategy"), std::string::npos);
  r.text = "- " + std::string(500, 'x');  // not a strategy but an essay
  EXPECT_FALSE(llm::parse_strategies_reply(r, 4).ok);
}

TEST(Prompts, MetaGenerationShowsTheKernelsTheirTimesProfilesAndRecords) {
  llm::MetaInputs in;
  in.task = {"softmax", "forward", "cuda", "def forward_fn(x): ...", "- `x`", "- c1\n"};
  in.count = 3;
  in.best = {{{3, 0.5, "slow", "SLOW_SOURCE"}, "", "- c1: 2 ms (eager 1 ms, 0.5x)\n", ""},
             {{7, 1.25, "fast", "FAST_SOURCE"},
              "fuse passes",
              "- c1: 0.8 ms (eager 1 ms)\n",
              "12 registers; largest config 900 GB/s"}};
  in.records = {{"fuse passes", "seed", 2, 2, 1, 2.5}, {"tile it", "m1", 0, 0, 0, 0}};
  auto m = llm::meta_messages(in);
  ASSERT_TRUE(m) << m.error;
  const auto& user = (*m)[1].content;
  EXPECT_EQ(user.find("{{"), std::string::npos);
  EXPECT_LT(user.find("SLOW_SOURCE"), user.find("FAST_SOURCE"));
  for (const char* expected :
       {"Write 3 new optimisation strategies", "def forward_fn", "- c1: 0.8 ms",
        "Asked to try: fuse passes", "Profile: 12 registers", "Profile: (not profiled)",
        "- fuse passes [seed]: tried 2, correct 2, faster 1, best gain 2.5x",
        "- tile it [m1]: tried 0, correct 0, faster 0, best gain none"})
    EXPECT_NE(user.find(expected), std::string::npos) << expected << "\n" << user;
  EXPECT_NE((*m)[0].content.find("\"- \""), std::string::npos);
}

TEST(Prompts, ProfileAdviceShowsTheKernelItsTimesAndItsProfile) {
  llm::AdviceInputs in;
  in.task = {"softmax", "forward", "cuda", "def forward_fn(x): ...", "- `x`", "- c1\n"};
  in.source = "KERNEL_SOURCE";
  in.speedup = 1.5;
  in.times = "- c1: 0.8 ms (eager 1.2 ms, 1.5x)\n";
  in.profile = R"({"trace": {"candidate": {"launches": 1}}})";
  in.count = 3;
  auto m = llm::advice_messages(in);
  ASSERT_TRUE(m) << m.error;
  const auto& user = (*m)[1].content;
  EXPECT_EQ(user.find("{{"), std::string::npos);
  for (const char* expected : {"KERNEL_SOURCE", "1.5x", "- c1: 0.8 ms", "\"launches\": 1",
                               "def forward_fn", "at most 3 recommendations"})
    EXPECT_NE(user.find(expected), std::string::npos) << expected << "\n" << user;
  EXPECT_NE((*m)[0].content.find("cuda kernel"), std::string::npos) << (*m)[0].content;
}

TEST(Prompts, EveryModeFillsEveryPlaceholder) {
  auto unfilled = llm::render_prompt("a {{b}} c", {});
  EXPECT_FALSE(unfilled);
  EXPECT_NE(unfilled.error.find("{{b}}"), std::string::npos);
  EXPECT_EQ(*llm::render_prompt("a {{b}} c", {{"b", "B"}}), "a B c");
  llm::ProposalInputs in;
  in.task = {"softmax", "forward", "cuda", "def forward_fn(x): ...", "- `x`: input tensor",
             "- c1\n"};
  in.parent_source = "PARENT_SOURCE";
  in.parent_speedup = 1.25;
  in.parent_profile = "12 registers";
  in.context = {{3, 0.5, "slow", "SLOW_SOURCE"}, {7, 1.25, "fast", "FAST_SOURCE"}};
  in.strategy = "vectorise loads";
  in.failed_source = "BROKEN";
  in.failure_stage = "compile";
  in.failure_log = "error: expected ';'";
  for (auto mode : {search::ProposalMode::translate, search::ProposalMode::optimise,
                    search::ProposalMode::fix}) {
    in.mode = mode;
    auto m = llm::proposal_messages(in);
    ASSERT_TRUE(m) << to_string(mode) << ": " << m.error;
    ASSERT_EQ(m->size(), 2u);
    EXPECT_NE((*m)[0].content.find("PYBIND11_MODULE"), std::string::npos);
    EXPECT_NE((*m)[1].content.find("def forward_fn"), std::string::npos);
    EXPECT_EQ((*m)[1].content.find("{{"), std::string::npos);
  }
  in.mode = search::ProposalMode::optimise;
  auto m = *llm::proposal_messages(in);
  auto slow = m[1].content.find("SLOW_SOURCE"), fast = m[1].content.find("FAST_SOURCE");
  EXPECT_LT(slow, fast);  // least to most fast
  EXPECT_NE(m[1].content.find("vectorise loads"), std::string::npos);
  EXPECT_NE(m[1].content.find("12 registers"), std::string::npos);
  in.mode = search::ProposalMode::fix;
  m = *llm::proposal_messages(in);
  EXPECT_NE(m[1].content.find("expected ';'"), std::string::npos);
  for (const auto& check : llm::verifier_checks()) {
    auto v = llm::verifier_messages(check, in.task, "CANDIDATE");
    ASSERT_TRUE(v) << v.error;
    EXPECT_NE((*v)[1].content.find("CANDIDATE"), std::string::npos);
    EXPECT_NE((*v)[0].content.find("verdict"), std::string::npos);
  }
  EXPECT_FALSE(llm::verifier_messages("style", in.task, "x"));
}

}  // namespace
}  // namespace kforge
