// The planner's decisions as values, without actors: which target comes next, who proposes,
// translate / optimise / fix, the prompt's context, a replay's recorded decisions, and that the
// same seed and the same visible outcomes give the same plans.
#include <gtest/gtest.h>

#include <set>

#include "search/planner.hpp"
#include "search/strategies.hpp"
#include "tests/search_members.hpp"

namespace kforge::search {
namespace {

ExperimentSpec spec_with(const std::string& extra = "") {
  auto parsed = parse_experiment_spec(
      R"({"seed": 5, "tasks": ["/t/a", "/t/b"], "backends": ["cpu"],
          "budget": {"candidates_per_target": 3}, "search": {"pipeline_depth": 2, "context_size": 2}
          )" +
      extra + "}");
  EXPECT_TRUE(parsed.ok()) << parsed.error_text();
  return parsed.spec;
}

const char* kLlmEnsemble = R"(, "proposers": [
    {"kind": "llm", "name": "m1", "provider": "openai", "model": "m1"},
    {"kind": "builtin"}])";

/// A finished member.
Member member(int64_t sequence, size_t target, bool correct, double speedup,
              const std::string& proposer = "builtin") {
  return search::member(sequence, target, true, correct, speedup, proposer);
}

TEST(Planner, TheNextTargetHasTheFewestProposalsAndEndedOrFullTargetsGetNone) {
  Planner p(spec_with(), {"a", "b"});
  int64_t n = 0;
  EXPECT_EQ(p.next_target(n, {0, 0}), 0u);
  EXPECT_EQ(p.next_target(n, {1, 0}), 1u);  // a proposal of a is already asked for
  p.population().add(member(0, 0, true, 1));
  p.population().add(member(1, 1, true, 1));
  p.population().add(member(2, 0, true, 1));
  EXPECT_EQ(p.next_target(n, {0, 0}), 1u);
  EXPECT_TRUE(p.end(1, "abandoned"));
  EXPECT_FALSE(p.end(1, "again"));
  EXPECT_EQ(p.end_reason(1), "abandoned");
  EXPECT_EQ(p.next_target(n, {0, 0}), 0u);
  EXPECT_EQ(p.next_target(n, {1, 0}), std::nullopt);  // a has 3 with the pending one: its budget
}

TEST(Planner, TranslatesFirstThenOptimisesAVisibleCorrectParentWithTheFastestAsContext) {
  Planner p(spec_with(), {"a", "b"});
  auto first = p.plan(0, 0);
  EXPECT_EQ(first.decision.mode, ProposalMode::translate);
  EXPECT_EQ(first.decision.proposer, p.spec().proposers.at(0).name);  // the built-in one
  EXPECT_EQ(first.decision.target_key, "a");
  EXPECT_TRUE(first.context.empty());
  p.population().add(member(0, 0, true, 2.0));
  p.population().add(member(1, 0, true, 3.0));
  p.population().add(member(2, 0, false, 0));
  p.population().add(member(3, 0, true, 1.5));
  p.population().add(member(4, 1, true, 9.0));  // another target's kernel is never context
  // Proposal 5 sees up to 3 (depth 2): the two fastest correct of a, least to most fast.
  auto plan = p.plan(5, 0);
  EXPECT_EQ(plan.decision.mode, ProposalMode::optimise);
  EXPECT_TRUE(plan.decision.parent_sequence == 0 || plan.decision.parent_sequence == 1 ||
              plan.decision.parent_sequence == 3);
  EXPECT_EQ(plan.context, (std::vector<int64_t>{0, 1}));
  EXPECT_TRUE(plan.decision.strategy.empty());  // the built-in proposer follows no strategy
}

TEST(Planner, TheSameSeedAndOutcomesGiveTheSamePlans) {
  auto plans = [](uint64_t seed) {
    auto spec = spec_with(kLlmEnsemble);
    spec.seed = seed;
    Planner p(spec, {"a", "b"});
    for (int64_t s = 0; s < 6; ++s) p.population().add(member(s, s % 2, s % 3 != 0, 1.0 + s));
    p.failed(0, {Stage::compile, "error: x"});
    std::vector<json::Value> out;
    for (int64_t n = 8; n < 20; ++n) out.push_back(p.plan(n, n % 2).decision.to_json());
    return out;
  };
  const auto first = plans(5);
  const auto second = plans(5);
  ASSERT_EQ(first.size(), second.size());
  for (size_t i = 0; i < first.size(); ++i) EXPECT_EQ(first[i].dump(), second[i].dump()) << i;
  // The plans follow the seed: another seed draws other proposers, parents or strategies.
  const auto other = plans(6);
  size_t differ = 0;
  for (size_t i = 0; i < first.size(); ++i) differ += first[i].dump() != other[i].dump();
  EXPECT_GT(differ, 0u);
}

// search.translate_with_builtin: a target without a correct kernel gets the built-in proposer's
// (the generator's) rather than an LLM's translation; once one is visible the LLMs optimise it.
TEST(Planner, TranslateWithBuiltinLeavesTheFirstKernelToTheBuiltInProposer) {
  auto spec = spec_with(kLlmEnsemble);
  spec.fix_probability = 0;
  auto proposers_of_first = [&](bool with_builtin) {
    spec.translate_with_builtin = with_builtin;
    Planner p(spec, {"a", "b"});
    std::set<std::string> used;
    for (int64_t n = 0; n < 24; ++n) {
      const auto plan = p.plan(n, 0);
      EXPECT_EQ(plan.decision.mode, ProposalMode::translate);
      used.insert(plan.decision.proposer);
    }
    return used;
  };
  EXPECT_EQ(proposers_of_first(true), (std::set<std::string>{"builtin"}));
  EXPECT_EQ(proposers_of_first(false), (std::set<std::string>{"builtin", "m1"}));

  spec.translate_with_builtin = true;
  Planner p(spec, {"a", "b"});
  p.population().add(member(0, 0, true, 1.5, "builtin"));  // the generator's kernel, correct
  bool llm_optimised = false;
  for (int64_t n = 3; n < 40 && !llm_optimised; ++n) {
    const auto plan = p.plan(n, 0);
    EXPECT_EQ(plan.decision.mode, ProposalMode::optimise) << n;
    llm_optimised = plan.decision.proposer == "m1" && plan.decision.parent_sequence == 0;
  }
  EXPECT_TRUE(llm_optimised);
  // A target the built-in proposer cannot write is translated by the LLM.
  EXPECT_TRUE(p.unable(1, "builtin"));
  bool llm_translated = false;
  for (int64_t n = 40; n < 64 && !llm_translated; ++n)
    llm_translated = p.plan(n, 1).decision.proposer == "m1";
  EXPECT_TRUE(llm_translated);
}

TEST(Planner, AnLlmRepairsAVisibleFailureOnceAndNamesAStrategyWhenItOptimises) {
  auto parsed = spec_with(kLlmEnsemble);
  parsed.fix_probability = 1;
  parsed.proposers.resize(1);  // the LLM alone
  Planner p(parsed, {"a", "b"});
  p.population().add(member(0, 0, true, 2.0, "m1"));
  p.population().add(member(1, 0, false, 0, "m1"));
  p.failed(1, {Stage::evaluate, "mismatch at [0, 3]"});
  auto fix = p.plan(3, 0);
  EXPECT_EQ(fix.decision.mode, ProposalMode::fix);
  EXPECT_EQ(fix.decision.fix_of, 1);
  EXPECT_EQ(fix.decision.lineage_parent(), 1);
  ASSERT_NE(p.failure(1), nullptr);
  EXPECT_EQ(p.failure(1)->stage, Stage::evaluate);
  auto next = p.plan(4, 0);  // the failure is fixed already: optimise instead
  EXPECT_EQ(next.decision.mode, ProposalMode::optimise);
  EXPECT_EQ(next.decision.parent_sequence, 0);
  EXPECT_FALSE(next.decision.strategy.empty());
}

TEST(Planner, AnLlmTriesEveryStrategyThenPrefersTheOneThatGained) {
  auto spec = spec_with(kLlmEnsemble);
  spec.fix_probability = 0;
  spec.proposers.resize(1);  // the LLM alone
  const auto& strategies = optimisation_strategies();
  ASSERT_GE(strategies.size(), 3u);
  // Every strategy but the last was tried once on target a; none gained anything.
  auto tried = [&](Planner& p, size_t upto) {
    p.population().add(member(0, 0, true, 1.0, "m1"));
    for (size_t i = 0; i < upto; ++i) {
      auto m = member(static_cast<int64_t>(i + 1), 0, true, 1.0, "m1");
      m.parent_sequence = 0;
      m.strategy = strategies[i];
      p.population().add(m);
    }
  };
  Planner untried(spec, {"a", "b"});
  tried(untried, strategies.size() - 1);
  const int64_t n = static_cast<int64_t>(strategies.size()) + 2;
  EXPECT_EQ(untried.plan(n, 0).decision.strategy, strategies.back());
  // All tried once; the second one's kernel beat its parent fourfold: the bandit takes it.
  Planner gained(spec, {"a", "b"});
  tried(gained, strategies.size());
  auto best = gained.population().members().at(2);
  gained.population().finish(best.sequence, true, 4.0);
  for (int64_t later = n; later < n + 5; ++later)
    EXPECT_EQ(gained.plan(later, 0).decision.strategy, strategies[1]) << later;
  // "uniform" draws as before, whatever the records say.
  spec.strategy_policy = "uniform";
  Planner uniform(spec, {"a", "b"});
  tried(uniform, strategies.size());
  std::set<std::string> drawn;
  for (int64_t later = n; later < n + 40; ++later)
    drawn.insert(uniform.plan(later, 0).decision.strategy);
  EXPECT_GT(drawn.size(), 3u);
}

// Four models, four proposals in flight, nothing visible yet: each model is asked once before any
// is asked twice, whatever the seed (a proposal on its way counts as a pull of its model).
TEST(Planner, AnEnsembleAsksEveryModelOnceBeforeAskingOneTwice) {
  for (int seed = 1; seed <= 20; ++seed) {
    auto parsed = parse_experiment_spec(
        R"({"seed": )" + std::to_string(seed) +
        R"(, "tasks": ["/t/a"], "backends": ["cpu"], "budget": {"candidates_per_target": 8},
            "search": {"pipeline_depth": 4}, "proposers": [
            {"kind": "llm", "name": "gpt-5", "provider": "openai", "model": "gpt-5"},
            {"kind": "llm", "name": "o3", "provider": "openai", "model": "o3"},
            {"kind": "llm", "name": "gemini", "provider": "gemini", "model": "gemini-2.5-flash"},
            {"kind": "llm", "name": "claude", "provider": "anthropic", "model": "claude-sonnet-4-5"}]})");
    ASSERT_TRUE(parsed.ok()) << parsed.error_text();
    Planner p(parsed.spec, {"a"});
    std::set<std::string> asked;
    std::vector<std::string> order;
    for (int64_t n = 0; n < 4; ++n) {
      order.push_back(p.plan(n, 0).decision.proposer);
      asked.insert(order.back());
    }
    EXPECT_EQ(asked.size(), 4u) << "seed " << seed;
    // Resumed after the first two became candidates (the planner starts afresh with them as
    // members): the next two are decided as in the uninterrupted run.
    Planner resumed(parsed.spec, {"a"});
    for (int64_t m = 0; m < 2; ++m)
      resumed.population().add(search::member(m, 0, false, false, 0, order[m]));
    for (int64_t n = 2; n < 4; ++n)
      EXPECT_EQ(resumed.plan(n, 0).decision.proposer, order[n]) << "seed " << seed << ", n " << n;
  }
}

TEST(Planner, DisabledAndUnableProposersAreNotChosen) {
  Planner p(spec_with(kLlmEnsemble), {"a", "b"});
  EXPECT_TRUE(p.unable(0, "builtin"));  // m1 can still write a
  for (int64_t n = 0; n < 10; ++n) EXPECT_EQ(p.plan(n, 0).decision.proposer, "m1");
  p.disable("m1");
  EXPECT_TRUE(p.any_proposer_left());
  EXPECT_FALSE(p.unable(0, "builtin"));  // nobody is left for a
  EXPECT_EQ(p.plan(11, 1).decision.proposer, "builtin");
  p.disable("builtin");
  EXPECT_FALSE(p.any_proposer_left());
}

TEST(Planner, CompileFailuresInARowAreCountedPerTargetAndResetBySuccess) {
  Planner p(spec_with(), {"a", "b"});
  EXPECT_EQ(p.compile_outcome(0, false), 1);
  EXPECT_EQ(p.compile_outcome(0, false), 2);
  EXPECT_EQ(p.compile_outcome(1, false), 1);
  EXPECT_EQ(p.compile_outcome(0, true), 0);
}

TEST(Planner, AReplayFollowsTheRecordedDecisionsAndSkipsEndedTargets) {
  Planner p(spec_with(), {"a", "b"});
  Decision d3;
  d3.target_key = "b";
  d3.proposer = "builtin";
  d3.mode = ProposalMode::translate;
  Decision d5 = d3;
  d5.target_key = "a";
  d5.mode = ProposalMode::optimise;
  d5.parent_sequence = 3;
  p.follow({{3, d3}, {5, d5}});
  EXPECT_TRUE(p.replaying());
  int64_t n = 0;
  EXPECT_EQ(p.next_target(n, {0, 0}), 1u);
  EXPECT_EQ(n, 3);
  EXPECT_EQ(p.plan(3, 1).decision.to_json().dump(), d3.to_json().dump());
  n = 4;
  EXPECT_EQ(p.next_target(n, {0, 0}), 0u);
  EXPECT_EQ(n, 5);
  EXPECT_EQ(p.plan(5, 0).decision.parent_sequence, 3);
  p.end(0, "exhausted");
  n = 4;
  EXPECT_EQ(p.next_target(n, {0, 0}), std::nullopt);
  n = 6;
  EXPECT_EQ(p.next_target(n, {0, 0}), std::nullopt);  // the replay goes no further
}

TEST(Planner, RecordedDecisionsReadBackAndOlderArchivesKeepProposerAndParent) {
  Decision d;
  d.target_key = "a";
  d.proposer = "m1";
  d.mode = ProposalMode::fix;
  d.fix_of = 4;
  d.strategy = "tile";
  d.reply_key = "r";
  d.attempt = 2;
  const auto back = recorded_decision(d.to_json().dump(), "a", "ignored", -1);
  EXPECT_EQ(back.to_json().dump(), d.to_json().dump());
  const auto old = recorded_decision("", "a", "builtin", 7);
  EXPECT_EQ(old.proposer, "builtin");
  EXPECT_EQ(old.mode, ProposalMode::optimise);
  EXPECT_EQ(old.parent_sequence, 7);
  EXPECT_EQ(recorded_decision("", "a", "builtin", -1).mode, ProposalMode::translate);
}

TEST(Planner, ASetbackIsRetriedWithBackOffThenTheTargetIsAbandoned) {
  Planner p(spec_with(kLlmEnsemble), {"a", "b"});
  using Then = Setback::Then;
  EXPECT_EQ(p.setback(0, "m1", ProposalFailure::reply_rejected, "no code").delay_seconds, 0);
  std::vector<int> delays;
  for (int i = 0; i < 6; ++i) {
    auto s = p.setback(0, "m1", ProposalFailure::transient, "503");
    EXPECT_EQ(s.then, Then::retry);
    EXPECT_EQ(s.event, events::Kind::proposal_failed);
    delays.push_back(s.delay_seconds);
  }
  EXPECT_EQ(delays, (std::vector<int>{2, 4, 8, 16, 32, 60}));
  // m1 has failed 8 times in a row on target 0: it is set aside there, and the built-in
  // proposer of the ensemble goes on; the target ends only when it fails 8 times too.
  auto last = p.setback(0, "m1", ProposalFailure::transient, "503");
  EXPECT_EQ(last.then, Then::plan_again);
  EXPECT_EQ(last.event, events::Kind::proposer_set_aside);
  EXPECT_EQ(last.reason, "m1 failed 8 times in a row: 503");
  EXPECT_EQ(p.setback(1, "m1", ProposalFailure::transient, "503").delay_seconds, 1);  // per target
  for (int i = 0; i < 7; ++i) EXPECT_EQ(p.setback(0, "builtin", ProposalFailure::transient, "x").then, Then::retry);
  auto abandoned = p.setback(0, "builtin", ProposalFailure::transient, "x");
  EXPECT_EQ(abandoned.then, Then::end_target);
  EXPECT_EQ(abandoned.reason, "builtin failed 8 times in a row: x");
  // A request the service refused is refused again: tried once more at once, then set aside.
  Planner q(spec_with(kLlmEnsemble), {"a"});
  auto first = q.setback(0, "m1", ProposalFailure::bad_request, "400 unsupported_parameter");
  EXPECT_EQ(first.then, Then::retry);
  EXPECT_EQ(first.delay_seconds, 0);
  auto second = q.setback(0, "m1", ProposalFailure::bad_request, "400 unsupported_parameter");
  EXPECT_EQ(second.then, Then::plan_again);
  EXPECT_EQ(second.event, events::Kind::proposer_set_aside);
  // A proposal that becomes a candidate ends its proposer's failures in a row.
  for (int i = 0; i < 7; ++i) p.setback(1, "m1", ProposalFailure::transient, "503");
  p.proposal_succeeded(1, "m1");
  EXPECT_EQ(p.setback(1, "m1", ProposalFailure::transient, "503").then, Then::retry);
}

TEST(Planner, ASetbackSaysWhoElseMayProposeAndWhenNothingCanGoOn) {
  Planner p(spec_with(kLlmEnsemble), {"a", "b"});
  using Then = Setback::Then;
  EXPECT_EQ(p.setback(0, "m1", ProposalFailure::offline_miss, "no reply").then,
            Then::fail_experiment);
  auto exhausted = p.setback(1, "builtin", ProposalFailure::exhausted, "");
  EXPECT_EQ(exhausted.then, Then::end_target);
  EXPECT_EQ(exhausted.event, events::Kind::target_exhausted);
  auto unsupported = p.setback(0, "builtin", ProposalFailure::unsupported, "no template");
  EXPECT_EQ(unsupported.then, Then::plan_again);  // m1 may
  EXPECT_EQ(unsupported.event, events::Kind::proposer_unsupported);
  EXPECT_EQ(unsupported.reason, "builtin: no template");
  auto money = p.setback(0, "m1", ProposalFailure::money, "quota");
  EXPECT_EQ(money.then, Then::plan_again);
  EXPECT_EQ(money.event, events::Kind::proposer_disabled);
  auto abandoned =
      p.setback(0, "builtin", ProposalFailure::unsupported, "no template");  // m1 is disabled
  EXPECT_EQ(abandoned.then, Then::end_target);
  EXPECT_EQ(abandoned.reason, "no proposer can write it: builtin: no template");
}

}  // namespace
}  // namespace kforge::search
