#include "actors/llm_runner.hpp"

#include <algorithm>
#include <map>
#include <utility>

#include <caf/scoped_actor.hpp>

#include "actors/stage_handles.hpp"
#include "common/llm_model_rules.hpp"
#include "llm/prompts.hpp"
#include "llm/reply_parser.hpp"
#include "messages/errors.hpp"
#include "search/meta_generation.hpp"

namespace kforge {
namespace {

/// The archive's llm_replies table as the client's response cache, through the archive actor
/// (the database's one owner). A runner is a thread of its own, so it waits for each answer.
class ArchiveReplyStore : public llm::ReplyStore {
 public:
  ArchiveReplyStore(caf::actor_system& system, archive_actor archive)
      : system_(system), archive_(std::move(archive)) {}
  std::optional<llm::CachedReply> find(const std::string& key) override {
    caf::scoped_actor self{system_};
    std::optional<llm::CachedReply> out;
    self->request(archive_, kArchiveTimeout, load_atom::value, reply_key{key})
        .receive(
            [&](reply_lookup& r) {
              if (r.found) out = std::move(r.reply);
            },
            // Unreadable counts as not cached (the call is made); the calls say why.
            [&](caf::error& e) { read_error_ = describe(e); });
    return out;
  }
  /// Why the last lookups could not read the archive, once; empty when they could.
  std::string take_read_error() { return std::exchange(read_error_, std::string()); }
  std::string put(const llm::CachedReply& e) override {
    caf::scoped_actor self{system_};
    std::string error;
    self->request(archive_, kArchiveTimeout, record_atom::value, e)
        .receive([] {}, [&](caf::error& err) { error = describe(err); });
    return error;
  }

 private:
  caf::actor_system& system_;
  archive_actor archive_;
  std::string read_error_;
};

struct runner_context {
  std::unique_ptr<ArchiveReplyStore> store;

  /// A lookup that could not read the archive is said on the calls it concerns (offline, the
  /// reply is then reported missing although the archive may hold it).
  void note_cache_errors(std::vector<LlmCall>& calls) {
    if (auto why = store->take_read_error(); !why.empty())
      for (auto& c : calls)
        c.error += (c.error.empty() ? "" : " ") + ("(response cache unreadable: " + why + ")");
  }
  std::unique_ptr<llm::Client> client;
  /// Task briefs by export, direction, backend and config set: read once per runner.
  std::map<std::string, llm::TaskBrief> briefs;

  Result<llm::TaskBrief> brief(const target& t, const std::string& export_dir,
                               const std::string& config_set) {
    const std::string key = export_dir + "|" + t.direction + "|" + t.backend + "|" + config_set;
    if (auto it = briefs.find(key); it != briefs.end()) return {it->second, {}};
    auto b = llm::load_task_brief(t.task_dir, export_dir, t.direction, t.backend, config_set);
    if (b) briefs.emplace(key, *b);
    return b;
  }
};

/// A failed call, as the planner sees a proposal that failed.
search::ProposalFailure proposal_failure(llm::FailureKind kind) {
  using F = search::ProposalFailure;
  switch (kind) {
    case llm::FailureKind::none:
      return F::none;
    case llm::FailureKind::transient:
      return F::transient;
    case llm::FailureKind::auth:
      return F::auth;
    case llm::FailureKind::money:
      return F::money;
    case llm::FailureKind::bad_request:
      return F::bad_request;
    case llm::FailureKind::garbled:
      return F::garbled;
    case llm::FailureKind::offline_miss:
      return F::offline_miss;
  }
  return F::proposer_error;
}

/// Seeds go to providers as non-negative 31-bit integers (Gemini's seed is an int32).
int64_t provider_seed(uint64_t seed) {
  return static_cast<int64_t>(seed & 0x7fffffff);
}

proposal propose(runner_context& ctx, const propose_request& r) {
  proposal out;
  out.proposer = ctx.client->config().name;
  auto brief = ctx.brief(r.tgt, r.export_dir, r.tgt.config_set);
  if (!brief) {
    out.failure_kind = search::ProposalFailure::bad_request;
    out.failure = brief.error;
    return out;
  }
  llm::CallResult result;
  if (!r.replay_key.empty()) {
    result = ctx.client->replay(r.replay_key);
  } else {
    llm::ProposalInputs in;
    in.mode = r.mode;
    in.task = *brief;
    in.parent_source = r.parent.source;
    in.parent_speedup = r.parent_speedup;
    in.parent_profile = r.parent_profile;
    in.context = r.context;
    in.strategy = r.strategy;
    in.failed_source = r.failed.source;
    in.failure_stage = to_string(r.failed_stage);
    in.failure_log = r.failure_log;
    auto messages = llm::proposal_messages(in);
    if (!messages) {
      out.failure_kind = search::ProposalFailure::bad_request;
      out.failure = messages.error;
      return out;
    }
    result = ctx.client->call(*messages, provider_seed(r.seed), r.attempt);
  }
  out.calls.push_back(llm::ledger_entry(result.record, "propose"));
  out.reply_key = result.record.key;
  if (!result.record.ok) {
    out.failure_kind = proposal_failure(result.record.failure);
    out.failure = result.record.error;
    return out;
  }
  auto kernel =
      llm::parse_kernel_reply(result.reply, r.tgt.direction == "backward" ? "backward" : "forward");
  if (!kernel.ok) {
    out.failure_kind = search::ProposalFailure::reply_rejected;
    out.failure = out.proposer + "'s reply was rejected: " + kernel.reason;
    out.calls.back().error = kernel.reason;
    return out;
  }
  out.source = std::move(kernel.source);
  out.strategy = kernel.name.empty() ? to_string(r.mode) + "_" + out.proposer : kernel.name;
  out.params = "{}";
  out.rationale = std::move(kernel.rationale);
  out.parent_id = r.mode == search::ProposalMode::fix ? r.failed.id
                  : r.has_parent                      ? r.parent.id
                                                      : 0;
  return out;
}

/// A call whose answer is a list of "- " lines (strategies, recommendations), at most `count`:
/// the lines, or why there are none ("what" names them). The call joins `calls`.
Result<std::vector<std::string>> listed(runner_context& ctx,
                                        const Result<std::vector<llm::Message>>& messages,
                                        uint64_t seed, int count, const char* role,
                                        const std::string& what, std::vector<LlmCall>& calls) {
  using Listed = Result<std::vector<std::string>>;
  if (!messages) return Listed::failure(messages.error);
  auto result = ctx.client->call(*messages, provider_seed(seed), 0);
  calls.push_back(llm::ledger_entry(result.record, role));
  if (!result.record.ok) return Listed::failure(result.record.error);
  auto parsed = llm::parse_strategies_reply(result.reply, count);
  if (!parsed.ok) {
    calls.back().error = parsed.reason;
    return Listed::failure(ctx.client->config().name + "'s " + what +
                           " were rejected: " + parsed.reason);
  }
  return {std::move(parsed.strategies), {}};
}

meta_reply meta_generate(runner_context& ctx, const meta_request& r) {
  meta_reply out;
  out.source = ctx.client->config().name;
  auto brief = ctx.brief(r.tgt, r.export_dir, r.tgt.config_set);
  if (!brief) {
    out.failure = brief.error;
    return out;
  }
  llm::MetaInputs in;
  in.task = *brief;
  in.count = r.count;
  in.best = r.best;
  in.records = r.records;
  auto written =
      listed(ctx, llm::meta_messages(in), r.seed, r.count, "meta", "strategies", out.calls);
  if (!written) {
    out.failure = written.error;
    return out;
  }
  // What the search can ask for already is not new.
  for (auto& s : *written)
    if (std::none_of(r.records.begin(), r.records.end(), [&](const search::StrategyRecord& known) {
          return search::same_strategy(known.text, s);
        }))
      out.strategies.push_back(std::move(s));
  if (out.strategies.empty()) out.failure = out.source + " wrote no strategy the search lacks";
  return out;
}

profile_advice advise(runner_context& ctx, const profile_advice_request& r) {
  profile_advice out;
  out.model = ctx.client->config().name;
  out.experiment_id = r.experiment_id;
  out.sequence = r.sequence;
  auto brief = ctx.brief(r.tgt, r.export_dir, r.tgt.config_set);
  if (!brief) {
    out.failure = brief.error;
    return out;
  }
  auto messages = llm::advice_messages(
      {*brief, r.source, r.speedup, r.times, r.profile_json, static_cast<int>(r.count)});
  auto advice = listed(ctx, messages, r.seed, r.count, "profile", "recommendations", out.calls);
  if (advice)
    out.recommendations = std::move(*advice);
  else
    out.failure = advice.error;
  return out;
}

llm_verdict verify(runner_context& ctx, const llm_verify_request& r) {
  llm_verdict out;
  out.verifier = ctx.client->config().name;
  const auto& c = r.candidate;
  auto brief = ctx.brief(r.tgt, r.export_dir, r.tgt.config_set);
  for (const auto& check : r.checks) {
    llm_check verdict;
    verdict.check = check;
    auto messages = brief ? llm::verifier_messages(check, *brief, c.source)
                          : Result<std::vector<llm::Message>>::failure(brief.error);
    if (!messages) {
      verdict.reasons.push_back(messages.error);
      out.checks.push_back(std::move(verdict));
      continue;
    }
    auto result = ctx.client->call(*messages, provider_seed(r.seed), 0);
    out.calls.push_back(llm::ledger_entry(result.record, "verify:" + check));
    if (!result.record.ok) {
      verdict.reasons.push_back("no verdict: " + result.record.error);
      if (!llm::retryable(result.record.failure)) out.failure = result.record.error;
      out.offline_miss |= result.record.failure == llm::FailureKind::offline_miss;
    } else {
      auto parsed = llm::parse_verifier_reply(result.reply);
      verdict.decided = parsed.decided;
      verdict.accepted = parsed.accept;
      verdict.reasons = parsed.decided ? parsed.reasons : std::vector<std::string>{parsed.reason};
      if (!parsed.decided) out.calls.back().error = parsed.reason;
    }
    out.checks.push_back(std::move(verdict));
  }
  return out;
}

}  // namespace

llm::ModelConfig model_config(const std::string& name, const search::ModelSpec& m) {
  llm::ModelConfig c;
  c.name = name;
  c.kind = llm::parse_provider_kind(m.provider).value_or(llm::ProviderKind::openai);
  c.base_url = m.base_url;
  c.model = m.model;
  c.api_key_env = m.api_key_env;
  c.key_file = m.key_file;
  c.ca_file = m.ca_file;
  c.sampling.temperature = m.temperature;
  c.sampling.top_p = m.top_p;
  const llm_rules::ModelSettings settings{m.provider,    m.model,           m.temperature,
                                          m.top_p,       m.max_tokens,      m.reasoning_effort,
                                          m.thinking_budget};
  c.sampling.max_tokens = m.max_tokens > 0 ? m.max_tokens : llm_rules::default_max_tokens(settings);
  c.sampling.reasoning_effort = m.reasoning_effort;
  c.sampling.thinking_budget = m.thinking_budget;
  c.stream = m.stream;
  c.max_concurrency = m.max_concurrency;
  c.max_attempts = m.max_attempts;
  c.timeout_seconds = m.timeout_seconds;
  c.idle_timeout_seconds =
      m.idle_timeout_seconds >= 0
          ? m.idle_timeout_seconds
          : llm_rules::default_idle_seconds(settings, m.timeout_seconds);
  c.price = llm::price_without_cache_discount(std::max(0.0, m.input_per_mtok),
                                              std::max(0.0, m.output_per_mtok));
  if (m.cached_input_per_mtok >= 0) c.price.cached_input_per_mtok = m.cached_input_per_mtok;
  if (m.cache_write_per_mtok >= 0) c.price.cache_write_per_mtok = m.cache_write_per_mtok;
  return c;
}

llm_runner_actor::behavior_type llm_runner_impl(llm_runner_actor::pointer self,
                                                llm_runner_options options) {
  auto ctx = std::make_shared<runner_context>();
  ctx->store = std::make_unique<ArchiveReplyStore>(self->system(), std::move(options.archive));
  ctx->client = std::make_unique<llm::Client>(options.model, ctx->store.get(), options.offline);
  return {
      [ctx](propose_atom, propose_request& r) {
        auto p = propose(*ctx, r);
        ctx->note_cache_errors(p.calls);
        return p;
      },
      [ctx](meta_atom, meta_request& r) {
        auto m = meta_generate(*ctx, r);
        ctx->note_cache_errors(m.calls);
        return m;
      },
      [ctx](profile_atom, profile_advice_request& r) {
        auto a = advise(*ctx, r);
        ctx->note_cache_errors(a.calls);
        return a;
      },
      [ctx](verify_atom, llm_verify_request& r) {
        auto v = verify(*ctx, r);
        ctx->note_cache_errors(v.calls);
        return v;
      },
  };
}

}  // namespace kforge
