// An LLM call as the client makes it: retries and what is never retried (spent money, rejected
// keys, blocked prompts), the waits the services ask for, failed attempts billed, timeouts on
// silence, the concurrency limit per endpoint, the response cache and offline replay, and the
// price table.
#include <gtest/gtest.h>

#include <atomic>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include "common/json.hpp"
#include "llm/client.hpp"
#include "tests/llm/fake_provider.hpp"
#include "tests/llm/llm_test_support.hpp"
#include "tests/test_support.hpp"

namespace kforge::test {
namespace {

using llm::FailureKind;
using llm::ProviderKind;

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

}  // namespace
}  // namespace kforge::test
