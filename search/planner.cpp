#include "search/planner.hpp"

#include <algorithm>
#include <cmath>

#include "search/ensemble.hpp"
#include "search/islands.hpp"
#include "search/random_stream.hpp"
#include "search/strategies.hpp"

namespace kforge::search {

json::Value Decision::to_json() const {
  json::Value v;
  v.set("target", target_key).set("proposer", proposer).set("mode", to_string(mode));
  v.set("parent_sequence", parent_sequence).set("fix_of", fix_of);
  v.set("strategy", strategy).set("reply_key", reply_key).set("attempt", attempt);
  if (island) v.set("island", island);  // absent with one island, as before islands existed
  return v;
}

Decision recorded_decision(const std::string& decision_json, const std::string& target_key,
                           const std::string& proposer, int64_t parent_sequence) {
  Decision d;
  d.target_key = target_key;
  d.proposer = proposer;
  auto doc = json::parse(decision_json.empty() ? "{}" : decision_json);
  const json::Value v = doc.value ? *doc.value : json::Value();
  if (!v.contains("proposer")) {
    d.parent_sequence = parent_sequence;
    d.mode = parent_sequence >= 0 ? ProposalMode::optimise : ProposalMode::translate;
    return d;
  }
  d.proposer = v["proposer"].as_string();
  d.mode = parse_proposal_mode(v["mode"].as_string())
               .value_or(parent_sequence >= 0 ? ProposalMode::optimise : ProposalMode::translate);
  d.parent_sequence = v["parent_sequence"].as_int(-1);
  d.fix_of = v["fix_of"].as_int(-1);
  d.strategy = v["strategy"].as_string();
  d.reply_key = v["reply_key"].as_string();
  d.attempt = static_cast<int32_t>(v["attempt"].as_int());
  d.island = static_cast<int32_t>(v["island"].as_int());
  return d;
}

Planner::Planner(ExperimentSpec spec, std::vector<std::string> target_keys)
    : spec_(std::move(spec)),
      keys_(std::move(target_keys)),
      population_(spec_.pipeline_depth),
      ended_(keys_.size()),
      unable_(keys_.size()),
      compile_failures_(keys_.size(), 0),
      generated_(keys_.size()),
      meta_rounds_(keys_.size(), 0) {}

const Failure* Planner::failure(int64_t sequence) const {
  auto it = failures_.find(sequence);
  return it == failures_.end() ? nullptr : &it->second;
}

bool Planner::end(size_t t, const std::string& reason) {
  if (ended(t)) return false;
  ended_[t] = reason.empty() ? "ended" : reason;
  return true;
}

bool Planner::any_proposer_left() const {
  return std::any_of(spec_.proposers.begin(), spec_.proposers.end(),
                     [&](const auto& p) { return !disabled_.count(p.name); });
}

bool Planner::unable(size_t t, const std::string& proposer) {
  unable_.at(t).insert(proposer);
  return std::any_of(spec_.proposers.begin(), spec_.proposers.end(), [&](const auto& p) {
    return !disabled_.count(p.name) && !unable_[t].count(p.name);
  });
}

int Planner::compile_outcome(size_t t, bool compiled) {
  return compile_failures_.at(t) = compiled ? 0 : compile_failures_[t] + 1;
}

void Planner::proposal_succeeded(size_t t, const std::string& proposer) {
  proposer_failures_.erase({t, proposer});
}

Setback Planner::setback(size_t t, const std::string& proposer, ProposalFailure kind,
                         const std::string& reason) {
  using Then = Setback::Then;
  constexpr int kFailuresBeforeAbandoning = 8;
  if (kind == ProposalFailure::offline_miss)
    return {Then::fail_experiment, events::Kind::experiment_failed, reason, 0};
  if (kind == ProposalFailure::exhausted)
    return {Then::end_target, events::Kind::target_exhausted, "every variant was tried", 0};
  if (kind == ProposalFailure::unsupported) {
    // The proposer cannot write this target at all: asking again cannot help. The others may.
    const std::string why = proposer + ": " + reason;
    if (unable(t, proposer)) return {Then::plan_again, events::Kind::proposer_unsupported, why, 0};
    return {Then::end_target, events::Kind::target_abandoned, "no proposer can write it: " + why,
            0};
  }
  if (kind == ProposalFailure::money || kind == ProposalFailure::auth) {
    // The key or the account is spent: no retry helps; the proposal is planned again among
    // the other proposers.
    disable(proposer);
    return {Then::plan_again, events::Kind::proposer_disabled, reason, 0};
  }
  // Failures are counted per proposer: one model that fails every call is set aside for this
  // target while the others of the ensemble go on; the target ends only when none is left.
  const int failures = ++proposer_failures_[{t, proposer}];
  // A request the service refused (a 400: a parameter, the model's name, the prompt's length) is
  // refused again: after a second try it sets the proposer aside at once, without waiting.
  constexpr int kRefusalsBeforeSettingAside = 2;
  const bool refused = kind == ProposalFailure::bad_request;
  if (failures >= (refused ? kRefusalsBeforeSettingAside : kFailuresBeforeAbandoning)) {
    const std::string why =
        proposer + " failed " + std::to_string(failures) + " times in a row: " + reason;
    if (unable(t, proposer)) return {Then::plan_again, events::Kind::proposer_set_aside, why, 0};
    return {Then::end_target, events::Kind::target_abandoned, why, 0};
  }
  const int delay =
      kind == ProposalFailure::reply_rejected || refused ? 0 : std::min(60, 1 << (failures - 1));
  return {Then::retry, events::Kind::proposal_failed, reason, delay};
}

void Planner::follow(std::map<int64_t, Decision> recorded) {
  recorded_ = std::move(recorded);
  replaying_ = true;
}

std::string Planner::proposer_kind(const std::string& proposer) const {
  for (const auto& p : spec_.proposers)
    if (p.name == proposer) return p.kind;
  return "builtin";
}

std::optional<size_t> Planner::next_target(int64_t& n, const std::vector<int64_t>& pending) const {
  if (replaying_) {
    auto it = recorded_.lower_bound(n);
    if (it == recorded_.end()) return std::nullopt;
    n = it->first;
    for (size_t t = 0; t < keys_.size(); ++t)
      if (keys_[t] == it->second.target_key && !ended(t)) return t;
    return std::nullopt;
  }
  std::vector<int64_t> proposals(keys_.size());
  for (size_t t = 0; t < keys_.size(); ++t)
    proposals[t] = population_.proposed(t) + (t < pending.size() ? pending[t] : 0);
  const auto quota = quotas(n, proposals);
  std::optional<size_t> best;
  for (size_t t = 0; t < keys_.size(); ++t) {
    if (ended(t) || proposals[t] >= quota[t]) continue;
    // The lowest share of its quota used; equal shares go to the first target.
    if (!best || proposals[t] * quota[*best] < proposals[*best] * quota[t]) best = t;
  }
  return best;
}

double Planner::speed_of_light(size_t t, int64_t n) const {
  double best = 0;
  for (const auto& m : population_.visible(t, n))
    if (m.correct) best = std::max(best, m.speed_of_light);
  return best;
}

std::vector<int64_t> Planner::quotas(int64_t n, const std::vector<int64_t>& proposals) const {
  const int64_t each = spec_.candidates_per_target;
  std::vector<int64_t> quota(keys_.size(), each);
  if (spec_.speed_of_light_fraction <= 0) return quota;
  const auto share = std::max<int64_t>(
      1, static_cast<int64_t>(std::ceil(spec_.speed_of_light_share * static_cast<double>(each))));
  int64_t freed = 0;
  // Headroom in millionths of the bound, so that the shares are whole numbers on every machine.
  std::vector<int64_t> headroom(keys_.size(), 0);
  for (size_t t = 0; t < keys_.size(); ++t) {
    if (ended(t)) continue;
    const double fraction = speed_of_light(t, n);
    if (fraction >= spec_.speed_of_light_fraction) {
      quota[t] = std::min(each, share);
      freed += each - std::max(quota[t], std::min(each, proposals.at(t)));
    } else {
      headroom[t] = std::max<int64_t>(1, std::llround((1 - fraction) * 1e6));
    }
  }
  int64_t total = 0;
  for (int64_t h : headroom) total += h;
  if (freed <= 0 || total <= 0) return quota;
  // In proportion to headroom, rounded down; what rounding leaves goes one by one to the targets
  // with the most headroom (the first of equals).
  std::vector<size_t> order;
  int64_t given = 0;
  for (size_t t = 0; t < keys_.size(); ++t) {
    if (headroom[t] <= 0) continue;
    const int64_t extra = freed * headroom[t] / total;
    quota[t] += extra;
    given += extra;
    order.push_back(t);
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return headroom[a] > headroom[b]; });
  for (size_t i = 0; given < freed && !order.empty(); ++i, ++given)
    ++quota[order[i % order.size()]];
  return quota;
}

std::optional<int64_t> Planner::repeats(int64_t n) const {
  auto it = population_.members().find(n);
  if (spec_.novelty == "off" || it == population_.members().end()) return std::nullopt;
  const Member& c = it->second;
  if (c.digest.empty() || proposer_kind(c.proposer) == "files") return std::nullopt;
  for (const auto& m : population_.visible(c.target, n))
    if (m.digest == c.digest) return m.sequence;
  return std::nullopt;
}

std::optional<MetaRound> Planner::meta_due(int64_t n, size_t t) const {
  if (spec_.meta_every <= 0 || replaying_ || ended(t)) return std::nullopt;
  const auto seen = static_cast<int64_t>(population_.visible(t, n).size());
  const auto round = static_cast<int32_t>(seen / spec_.meta_every);
  if (round <= meta_rounds_.at(t)) return std::nullopt;
  MetaRound r{t, round, {}};
  for (const char* kind : {"llm", "builtin"})
    if (std::any_of(spec_.proposers.begin(), spec_.proposers.end(),
                    [&](const auto& p) { return p.kind == kind && !disabled_.count(p.name); }))
      r.serves.push_back(kind);
  if (r.serves.empty()) return std::nullopt;  // the files proposer draws no strategies
  return r;
}

void Planner::generated(size_t t, int32_t round, const std::string& serves,
                        const std::string& source, const std::vector<std::string>& texts) {
  for (const auto& text : texts) {
    const auto known = strategies(t, serves);
    if (text.empty() || std::any_of(known.begin(), known.end(),
                                    [&](const Strategy& s) { return same_strategy(s.text, text); }))
      continue;
    generated_.at(t).push_back({text, serves, source, round});
  }
  meta_done(t, round);
}

void Planner::meta_done(size_t t, int32_t round) {
  meta_rounds_.at(t) = std::max(meta_rounds_.at(t), round);
}

std::vector<Strategy> Planner::strategies(size_t t, const std::string& serves) const {
  std::vector<Strategy> out;
  if (serves == "builtin") {
    out.push_back({builtin_seed_strategy(), serves, "seed", 0});
  } else {
    for (const auto& s : optimisation_strategies()) out.push_back({s, serves, "seed", 0});
  }
  for (const auto& s : generated_.at(t))
    if (s.serves == serves) out.push_back(s);
  return out;
}

Plan Planner::plan(int64_t n, size_t t) {
  Plan p;
  p.decision = replaying_ ? recorded_.at(n) : decide(n, t);
  if (p.decision.mode == ProposalMode::optimise) p.context = context(t, n);
  return p;
}

Decision Planner::decide(int64_t n, size_t t) {
  const auto stream = [&](const char* purpose) {
    return RandomStream(derive_seed(spec_.seed, purpose, static_cast<uint64_t>(n)));
  };
  Decision d;
  d.target_key = keys_.at(t);
  std::vector<Arm> arms;
  for (const auto& p : spec_.proposers)
    if (!disabled_.count(p.name) && !unable_[t].count(p.name)) arms.push_back({p.name, p.weight});
  tally(arms, population_.visible_all(n));
  // Proposals decided before n that n may not see yet count as pulls of their arm, with nothing
  // gained yet: an arm whose answer is on its way is not untried, so an ensemble asks each model
  // once before it asks one twice. Which those are depends on sequence numbers only.
  // A resumed experiment knows those proposals from their archived candidates (members) instead.
  auto pull = [&](const std::string& proposer) {
    for (auto& arm : arms)
      if (arm.name == proposer) ++arm.pulls;
  };
  for (auto it = proposers_decided_.upper_bound(n - population_.depth());
       it != proposers_decided_.end() && it->first < n; ++it)
    pull(it->second);
  for (auto it = population_.members().upper_bound(n - population_.depth());
       it != population_.members().end() && it->first < n; ++it)
    if (!proposers_decided_.count(it->first)) pull(it->second.proposer);
  auto ensemble = stream("ensemble");
  d.proposer = arms[choose_arm(arms, spec_.ensemble_policy, ensemble)].name;
  proposers_decided_[n] = d.proposer;
  const bool llm = proposer_kind(d.proposer) == "llm";
  const auto visible = population_.visible(t, n);
  // An LLM may repair the latest visible failure of the target instead of optimising.
  auto fix = stream("fix");
  if (llm && fix.chance(spec_.fix_probability)) {
    for (auto it = visible.rbegin(); it != visible.rend(); ++it) {
      if (it->correct || fixed_.count(it->sequence) || !failures_.count(it->sequence)) continue;
      d.mode = ProposalMode::fix;
      d.fix_of = it->sequence;
      d.island = it->island;
      fixed_.insert(d.fix_of);  // decisions are made in sequence order: no failure fixed twice
      return d;
    }
  }
  // The island's own stream: with one island nothing is drawn, and the other draws are as before.
  if (spec_.islands > 1)
    d.island = static_cast<int32_t>(stream("island").below(static_cast<uint64_t>(spec_.islands)));
  const auto pool = island_members(visible, d.island,
                                   {spec_.islands, spec_.migration_interval, spec_.migration_size});
  auto select = stream("select");
  auto parent = select_parent(pool, spec_.parent_selection, spec_.tournament_size, select);
  d.mode = parent ? ProposalMode::optimise : ProposalMode::translate;
  // No correct kernel to start from yet: the built-in proposer writes one, where the
  // configuration says so and the built-in proposer can (the LLMs then optimise it).
  if (!parent && llm && spec_.translate_with_builtin)
    for (const auto& p : spec_.proposers)
      if (p.kind == "builtin" && !disabled_.count(p.name) && !unable_[t].count(p.name)) {
        d.proposer = proposers_decided_[n] = p.name;
        return d;
      }
  if (parent) d.parent_sequence = parent->sequence;
  // The built-in proposer follows strategies once meta-generation writes some for it.
  const bool builtin = proposer_kind(d.proposer) == "builtin" && spec_.meta_every > 0;
  if ((llm || builtin) && parent) {
    // A bandit over the strategies, on what they gained for this target's visible kernels. What
    // the latest meta-generation round wrote is tried first: it answers what the search found.
    const auto known = strategies(t, llm ? "llm" : "builtin");
    std::vector<Arm> arms;
    for (const auto& s : known) arms.push_back({s.text});
    tally(arms, visible, &Member::strategy);
    const int32_t latest = known.back().round;
    std::vector<Arm> newest;
    for (size_t i = 0; i < known.size(); ++i)
      if (latest > 0 && known[i].round == latest && arms[i].pulls == 0) newest.push_back(arms[i]);
    if (!newest.empty()) arms = std::move(newest);
    auto draw = stream("strategy");
    d.strategy = arms[choose_arm(arms, spec_.strategy_policy, draw)].name;
  }
  return d;
}

std::vector<int64_t> Planner::context(size_t t, int64_t n) const {
  std::vector<Member> correct;
  for (const auto& m : population_.visible(t, n))
    if (m.correct) correct.push_back(m);
  std::sort(correct.begin(), correct.end(), [](const auto& a, const auto& b) {
    return a.speedup != b.speedup ? a.speedup < b.speedup : a.sequence < b.sequence;
  });
  const size_t k = static_cast<size_t>(std::max(0, spec_.context_size));
  std::vector<int64_t> out;
  for (size_t i = correct.size() > k ? correct.size() - k : 0; i < correct.size(); ++i)
    out.push_back(correct[i].sequence);
  return out;
}

}  // namespace kforge::search
