// The providers' wire formats against a real loopback server that speaks them (tests/llm/
// fake_provider): requests as each provider documents them, the settings each service refuses by
// model family, the errors sorted into retried and final, server-sent events however the bytes
// are cut, and whole and streamed replies with their usage (cached input included) over HTTP and
// HTTPS.
#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

#include "common/llm_model_rules.hpp"
#include "llm/sse.hpp"
#include "common/json.hpp"
#include "llm/client.hpp"
#include "tests/llm/fake_provider.hpp"
#include "tests/llm/llm_test_support.hpp"
#include "tests/test_support.hpp"

namespace kforge::test {
namespace {

using llm::FailureKind;
using llm::ProviderKind;

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

}  // namespace
}  // namespace kforge::test
