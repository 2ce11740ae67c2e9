#include "llm/client.hpp"

#include <algorithm>
#include <cmath>
#include <condition_variable>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <thread>

#include "common/json.hpp"
#include "common/sha256.hpp"

namespace kforge::llm {
namespace {

using std::chrono::milliseconds;

/// The calls in flight to one endpoint, shared by every client of the process.
class EndpointSlots {
 public:
  explicit EndpointSlots(int limit) : limit_(std::max(1, limit)) {}
  void acquire() {
    std::unique_lock lock(mutex_);
    free_.wait(lock, [&] { return in_use_ < limit_; });
    ++in_use_;
  }
  void release() {
    {
      std::lock_guard lock(mutex_);
      --in_use_;
    }
    free_.notify_one();
  }

 private:
  std::mutex mutex_;
  std::condition_variable free_;
  int in_use_ = 0;
  int limit_;
};

std::shared_ptr<EndpointSlots> slots_for(const std::string& endpoint, int limit) {
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<EndpointSlots>> slots;
  std::lock_guard lock(mutex);
  auto& s = slots[endpoint];
  if (!s) s = std::make_shared<EndpointSlots>(limit);  // the first configuration sets the limit
  return s;
}

/// The delay the server asked for: `retry-after-ms`, or `retry-after` in seconds.
std::optional<milliseconds> retry_after(const HttpResponse& response) {
  auto header = [&](const char* name) -> const std::string* {
    auto it = response.headers.find(name);
    return it == response.headers.end() ? nullptr : &it->second;
  };
  char* end = nullptr;
  if (auto ms = header("retry-after-ms")) {
    double v = std::strtod(ms->c_str(), &end);
    if (end != ms->c_str() && v >= 0) return milliseconds(static_cast<int64_t>(v));
  }
  if (auto s = header("retry-after")) {
    double v = std::strtod(s->c_str(), &end);
    if (end != s->c_str() && v >= 0) return milliseconds(static_cast<int64_t>(v * 1000));
    // Or an HTTP date: "Wed, 21 Oct 2015 07:28:00 GMT".
    std::tm when{};
    if (::strptime(s->c_str(), "%a, %d %b %Y %H:%M:%S GMT", &when)) {
      auto wait = std::chrono::system_clock::from_time_t(::timegm(&when)) -
                  std::chrono::system_clock::now();
      return std::max(milliseconds(0), std::chrono::duration_cast<milliseconds>(wait));
    }
  }
  return std::nullopt;
}

milliseconds jittered_backoff(const ModelConfig& c, int failed_attempts) {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  double cap = std::min(c.backoff_max_seconds,
                        c.backoff_initial_seconds * std::pow(2.0, failed_attempts - 1));
  // "Equal jitter": half the cap for sure, the other half at random, so many clients that
  // failed together do not come back together.
  std::uniform_real_distribution<double> jitter(0.5, 1.0);
  return milliseconds(static_cast<int64_t>(cap * jitter(rng) * 1000));
}

std::string host_of(const std::string& url) {
  auto u = parse_url(url);
  return u ? u->authority() : url;
}

}  // namespace

std::string ModelConfig::endpoint() const {
  return std::string(to_string(kind)) + "@" +
         host_of(base_url.empty() ? default_base_url(kind) : base_url);
}

Result<std::string> load_api_key(const ModelConfig& config) {
  using Key = Result<std::string>;
  if (!config.api_key_env.empty()) {
    if (const char* v = std::getenv(config.api_key_env.c_str()); v && *v) return {v, {}};
    if (config.key_file.empty())
      return Key::failure("the environment variable " + config.api_key_env + " (the key for " +
                          config.name + ") is not set");
  }
  if (!config.key_file.empty()) {
    std::ifstream in(config.key_file);
    std::string key;
    if (!in || !std::getline(in, key))
      return Key::failure("cannot read the key file " + config.key_file + " for " + config.name);
    while (!key.empty() && std::isspace(static_cast<unsigned char>(key.back()))) key.pop_back();
    if (key.empty()) return Key::failure("the key file " + config.key_file + " is empty");
    return {key, {}};
  }
  return {std::string(), {}};
}

std::string cache_key(const ModelConfig& config, const std::vector<Message>& messages, int64_t seed,
                      int64_t sample_index, std::string* document) {
  json::Value doc;
  doc.set("endpoint", config.endpoint()).set("model", config.model);
  json::Value list{json::Array{}};
  for (const auto& m : messages) {
    json::Value msg;
    msg.set("role", m.role).set("content", m.content);
    list.push(std::move(msg));
  }
  doc.set("messages", std::move(list));
  const auto& s = config.sampling;
  json::Value sampling;
  sampling.set("temperature", s.temperature).set("top_p", s.top_p).set("max_tokens", s.max_tokens);
  sampling.set("reasoning_effort", s.reasoning_effort).set("thinking_budget", s.thinking_budget);
  doc.set("sampling", std::move(sampling));
  doc.set("seed", seed).set("sample_index", sample_index);
  std::string text = doc.dump();
  if (document) *document = text;
  return sha256_hex(text);
}

Client::Client(ModelConfig config, ReplyStore* store, bool offline)
    : config_(std::move(config)), store_(store), offline_(offline) {
  sleep = [](milliseconds d) { std::this_thread::sleep_for(d); };
}

CallResult Client::result_for(const std::string& key) const {
  CallResult out;
  out.record.model_name = config_.name;
  out.record.endpoint = config_.endpoint();
  out.record.model = config_.model;
  out.record.key = key;
  return out;
}

CallResult Client::replay(const std::string& key) {
  return from_cache(key, store_ ? store_->find(key) : std::nullopt);
}

CallResult Client::from_cache(const std::string& key, const std::optional<CachedReply>& hit) const {
  CallResult out = result_for(key);
  auto& r = out.record;
  if (!hit) {
    r.failure = FailureKind::offline_miss;
    r.error = "replay: the recorded reply " + key.substr(0, 12) + " of " + config_.name +
              " is not in the response cache";
    return out;
  }
  r.ok = r.cached = true;
  r.usage = hit->reply.usage;
  out.reply = hit->reply;
  return out;
}

CallResult Client::call(const std::vector<Message>& messages, int64_t seed, int64_t sample_index) {
  const auto started = std::chrono::steady_clock::now();
  std::string document;
  const std::string key = cache_key(config_, messages, seed, sample_index, &document);
  if (auto hit = store_ ? store_->find(key) : std::nullopt) return from_cache(key, hit);
  CallResult out = result_for(key);
  auto& r = out.record;
  auto seconds_since_start = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  };
  if (offline_) {
    r.failure = FailureKind::offline_miss;
    r.error = "offline: no cached reply of " + config_.name + " (" + config_.model +
              ") for this request (key " + key.substr(0, 12) +
              "); run without --offline to ask the provider";
    return out;
  }
  auto api_key = load_api_key(config_);
  if (!api_key) {
    r.failure = FailureKind::auth;
    r.error = api_key.error;
    return out;
  }
  WireRequest wire;
  wire.kind = config_.kind;
  wire.base_url = config_.base_url;
  wire.model = config_.model;
  wire.api_key = std::move(*api_key);
  wire.stream = config_.stream;
  wire.sampling = config_.sampling;
  wire.seed = seed;
  wire.messages = messages;
  const HttpRequest http = build_http_request(wire);
  TransportOptions transport;
  transport.total_timeout = milliseconds(static_cast<int64_t>(config_.timeout_seconds * 1000));
  transport.idle_timeout = milliseconds(static_cast<int64_t>(config_.idle_timeout_seconds * 1000));
  transport.ca_file = config_.ca_file;
  auto slots = slots_for(r.endpoint, config_.max_concurrency);

  for (int attempt = 1; attempt <= std::max(1, config_.max_attempts); ++attempt) {
    r.attempts = attempt;
    WireOutcome outcome;
    std::optional<milliseconds> asked_delay;
    {
      slots->acquire();
      // Streamed bytes keep the idle timer of the transport alive as they come; the events
      // are read once the body is complete or cut.
      auto sent = send_http(http, transport);
      if (sent.ok && sent.response.status / 100 == 2 && config_.stream) {
        StreamReader stream(config_.kind);
        stream.feed(sent.response.body);
        outcome = stream.finish(!sent.response.complete, sent.error);
      }
      slots->release();
      if (!sent.ok) {
        outcome.failure = FailureKind::transient;
        outcome.error = sent.error;
      } else if (sent.response.status / 100 != 2) {
        outcome = classify_http_error(config_.kind, sent.response.status, sent.response.body);
        asked_delay = retry_after(sent.response);
        if (!asked_delay && outcome.retry_after_s)
          asked_delay = milliseconds(static_cast<int64_t>(*outcome.retry_after_s * 1000));
      } else if (!config_.stream) {
        if (!sent.response.complete) {
          outcome.failure = FailureKind::transient;
          outcome.error = sent.error;
        } else {
          outcome = read_reply(config_.kind, sent.response.body);
        }
      }
    }
    // Every attempt the provider reported usage for is billed, failed ones too (a stream cut
    // after Anthropic's message_start, Gemini's chunks): the call's usage and cost are their sum.
    r.usage += outcome.reply.usage;
    r.cost_usd = cost_usd(config_.price, r.usage);
    if (outcome.ok()) {
      out.reply = std::move(outcome.reply);
      r.ok = true;
      r.failure = FailureKind::none;
      r.seconds = seconds_since_start();
      if (store_) {
        std::string error = store_->put({key, r.endpoint, config_.model, document, out.reply});
        if (!error.empty()) r.error = "the reply could not be cached: " + error;
      }
      return out;
    }
    r.failure = outcome.failure;
    r.error = outcome.error;
    r.attempt_errors.push_back(outcome.error);
    if (!retryable(outcome.failure) || attempt == config_.max_attempts) break;
    milliseconds delay = asked_delay ? *asked_delay : jittered_backoff(config_, attempt);
    if (asked_delay && asked_delay->count() > config_.retry_after_max_seconds * 1000) {
      r.error += " (the provider asks to wait " + std::to_string(asked_delay->count() / 1000) +
                 " s, longer than retry_after_max_seconds)";
      break;
    }
    sleep(delay);
  }
  r.seconds = seconds_since_start();
  return out;
}

LlmCall ledger_entry(const CallRecord& r, const std::string& role) {
  LlmCall c;
  c.role = role;
  c.model_name = r.model_name;
  c.endpoint = r.endpoint;
  c.model = r.model;
  c.key = r.key;
  c.ok = r.ok;
  c.cached = r.cached;
  c.failure = r.ok ? std::string() : to_string(r.failure);
  c.error = r.error;
  c.attempts = r.attempts;
  c.input_tokens = r.usage.input_tokens;
  c.output_tokens = r.usage.output_tokens;
  c.cost_usd = r.cost_usd;
  c.seconds = r.seconds;
  return c;
}

}  // namespace kforge::llm
