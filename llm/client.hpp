// A call to one model: the response cache first, then the provider with timeouts, retries on
// transient failures (jittered exponential back-off, or exactly what `retry-after` says), no
// retry when the key or the money is the problem, and at most N calls in flight per provider
// endpoint across the whole process. Every call comes back with its tokens and cost; every reply
// is in the cache before the caller sees it. Blocking: run it on a thread of its own.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/llm_call.hpp"
#include "common/result.hpp"
#include "llm/chat.hpp"
#include "llm/price_table.hpp"
#include "llm/provider_wire.hpp"
#include "llm/reply_store.hpp"

namespace kforge::llm {

/// One model of an ensemble (a proposer or a verifier), as its configuration names it.
struct ModelConfig {
  std::string name;  ///< how the experiment calls it ("gpt-4.1", "local-qwen")
  ProviderKind kind = ProviderKind::openai;
  std::string base_url;  ///< empty: the provider's public endpoint
  std::string model;
  std::string api_key_env;  ///< environment variable holding the key
  std::string key_file;     ///< or a file whose first line is the key
  Sampling sampling;
  bool stream = true;
  int max_concurrency = 4;  ///< calls in flight to this endpoint, process-wide
  int max_attempts = 6;
  double timeout_seconds = 600;       ///< one attempt, start to end
  double idle_timeout_seconds = 120;  ///< longest silence within an attempt
  double backoff_initial_seconds = 1;
  double backoff_max_seconds = 60;
  double retry_after_max_seconds = 300;  ///< a longer `retry-after` ends the call instead
  std::string ca_file;                   ///< extra trust anchors for TLS
  Price price;

  /// "kind@host:port": the endpoint whose concurrency is limited and whose replies are cached.
  std::string endpoint() const;
};

/// Reads the key: the environment variable first, then the key file. Empty with no error when
/// neither is configured (local servers need none).
Result<std::string> load_api_key(const ModelConfig& config);

/// One call with everything the client knows of it (`ledger_entry` is what is kept of it).
struct CallRecord {
  std::string model_name;  ///< the ensemble member
  std::string endpoint;
  std::string model;
  std::string key;  ///< the cache key
  bool ok = false;
  bool cached = false;
  FailureKind failure = FailureKind::none;
  std::string error;
  int attempts = 0;
  Usage usage;          ///< of every attempt the provider reported it for, failed ones too
  double cost_usd = 0;  ///< 0 for cached replies: they cost nothing again
  double seconds = 0;
  std::vector<std::string> attempt_errors;  ///< why each failed attempt failed
};

/// What the ledger keeps of a call made in `role` ("propose", "verify:<check>").
LlmCall ledger_entry(const CallRecord& r, const std::string& role);

struct CallResult {
  CallRecord record;
  ChatReply reply;
};

/// The cache key of a request: SHA-256 of the canonical (endpoint, model, messages, sampling,
/// seed, sample index) document, which is also returned in `document`.
std::string cache_key(const ModelConfig& config, const std::vector<Message>& messages, int64_t seed,
                      int64_t sample_index, std::string* document = nullptr);

class Client {
 public:
  /// `store` may be null (no cache); `offline`: never call out, a cache miss is a failure.
  Client(ModelConfig config, ReplyStore* store, bool offline);

  /// The reply to `messages`: `seed` goes to providers that take one, `sample_index` tells
  /// apart repeated samples of the same request.
  CallResult call(const std::vector<Message>& messages, int64_t seed, int64_t sample_index);
  /// The cached reply under `key` only (replaying a recorded decision).
  CallResult replay(const std::string& key);

  const ModelConfig& config() const { return config_; }
  /// How the client waits between attempts (tests shorten it).
  std::function<void(std::chrono::milliseconds)> sleep;

 private:
  CallResult result_for(const std::string& key) const;  ///< a record naming this model
  /// The cached reply as a call's result; an offline miss when there is none.
  CallResult from_cache(const std::string& key, const std::optional<CachedReply>& hit) const;
  ModelConfig config_;
  ReplyStore* store_;
  bool offline_;
};

}  // namespace kforge::llm
