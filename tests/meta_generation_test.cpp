// Meta-generation in the search, without actors or LLMs: when a round is due, how written
// strategies join the bandit's arms (the newest tried first) and their records. The built-in
// proposer's rules are tested with it (builtin_test.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "search/meta_generation.hpp"
#include "search/planner.hpp"
#include "search/strategies.hpp"
#include "tests/search_members.hpp"

namespace kforge::search {
namespace {

/// Two targets, an LLM and the built-in proposer; `meta` is search.meta_generation.
ExperimentSpec spec_with(const std::string& meta, const std::string& proposers = R"(
    {"kind": "llm", "name": "m1", "provider": "openai", "model": "m1"}, {"kind": "builtin"})") {
  auto parsed = parse_experiment_spec(
      R"({"seed": 7, "tasks": ["/t/a", "/t/b"], "backends": ["cpu"], "proposers": [)" + proposers +
      R"(], "budget": {"candidates_per_target": 40},
          "search": {"pipeline_depth": 1, "fix_probability": 0)" +
      (meta.empty() ? "" : ", \"meta_generation\": " + meta) + "}}");
  EXPECT_TRUE(parsed.ok()) << parsed.error_text();
  return parsed.spec;
}

Member done(int64_t sequence, size_t target, double speedup, const std::string& proposer,
            int64_t parent = -1, const std::string& strategy = "") {
  Member m = member(sequence, target, true, speedup > 0, speedup, proposer);
  m.parent_sequence = parent;
  m.strategy = strategy;
  return m;
}

TEST(MetaGeneration, TheConfigurationNamesAnLlmOfTheEnsembleAndKeepsItsCanonicalForm) {
  auto s = spec_with(R"({"every": 5, "count": 3, "model": "m1"})");
  EXPECT_EQ(s.meta_every, 5);
  EXPECT_EQ(s.meta_count, 3);
  EXPECT_EQ(s.meta_model, "m1");
  auto again = parse_experiment_spec(s.to_json().dump());
  ASSERT_TRUE(again.ok()) << again.error_text();
  EXPECT_EQ(again.spec.to_json().dump(), s.to_json().dump());
  // Off, the setting is not written at all: earlier runs' configurations keep their form.
  EXPECT_FALSE(spec_with("").to_json()["search"].contains("meta_generation"));
  auto bad = parse_experiment_spec(
      R"({"tasks": ["/t/a"], "search": {"meta_generation": {"every": 2, "model": "nobody"}}})");
  EXPECT_FALSE(bad.ok());
  EXPECT_NE(bad.error_text().find("\"nobody\" is not an LLM of the ensemble"), std::string::npos)
      << bad.error_text();
  EXPECT_FALSE(
      parse_experiment_spec(R"({"tasks": ["/t/a"], "search": {"meta_generation": {"count": 0}}})")
          .ok());
  // Profile advice names an LLM of the ensemble too.
  EXPECT_TRUE(spec_with("").advice_model.empty());
  auto with_advice = parse_experiment_spec(
      R"({"seed": 1, "tasks": ["/t/a"], "proposers": [{"kind": "llm", "name": "m1", "provider": "openai",
          "model": "m1"}], "search": {"profile_advice": {"model": "m1", "count": 2}}})");
  ASSERT_TRUE(with_advice.ok()) << with_advice.error_text();
  EXPECT_EQ(with_advice.spec.advice_model, "m1");
  EXPECT_EQ(with_advice.spec.advice_count, 2);
  EXPECT_EQ(parse_experiment_spec(with_advice.spec.to_json().dump()).spec.advice_model, "m1");
  auto unknown = parse_experiment_spec(
      R"({"tasks": ["/t/a"], "search": {"profile_advice": {"model": "builtin"}}})");
  EXPECT_NE(unknown.error_text().find("\"builtin\" is not an LLM of the ensemble"),
            std::string::npos)
      << unknown.error_text();
}

TEST(MetaGeneration, ARoundIsDueEveryNVisibleCandidatesOfATargetAndNeverInAReplay) {
  Planner off(spec_with(""), {"a", "b"});
  for (int64_t s = 0; s < 6; ++s) off.population().add(done(s, 0, 1.0, "builtin"));
  EXPECT_FALSE(off.meta_due(6, 0));

  Planner p(spec_with(R"({"every": 3, "count": 2})"), {"a", "b"});
  for (int64_t s = 0; s < 2; ++s) p.population().add(done(s, 0, 1.0, "builtin"));
  p.population().add(done(2, 1, 1.0, "builtin"));
  EXPECT_FALSE(p.meta_due(3, 0));  // two of target a are visible to proposal 3 (depth 1)
  p.population().add(done(3, 0, 1.0, "builtin"));
  EXPECT_FALSE(p.meta_due(3, 0));  // proposal 3 cannot see candidate 3
  auto round = p.meta_due(4, 0);
  ASSERT_TRUE(round);
  EXPECT_EQ(round->target, 0u);
  EXPECT_EQ(round->round, 1);
  EXPECT_EQ(round->serves, (std::vector<std::string>{"llm", "builtin"}));
  EXPECT_FALSE(p.meta_due(4, 1));  // target b has one candidate
  p.meta_done(0, 1);
  EXPECT_FALSE(p.meta_due(5, 0));
  for (int64_t s = 4; s < 7; ++s) p.population().add(done(s, 0, 1.0, "builtin"));
  EXPECT_EQ(p.meta_due(7, 0)->round, 2);
  // An LLM whose money is spent writes nothing; the built-in rules still do.
  p.disable("m1");
  EXPECT_EQ(p.meta_due(7, 0)->serves, (std::vector<std::string>{"builtin"}));

  p.follow({});
  EXPECT_FALSE(p.meta_due(7, 0));  // a replay follows recorded strategies
}

TEST(MetaGeneration, WrittenStrategiesJoinTheArmsAndTheNewestAreTriedFirst) {
  auto spec = spec_with(R"({"every": 2})",
                        R"({"kind": "llm", "name": "m1", "provider": "openai", "model": "m1"})");
  Planner p(spec, {"a", "b"});
  const auto& seeds = optimisation_strategies();
  p.population().add(done(0, 0, 1.0, "m1"));
  p.population().add(done(1, 0, 1.2, "m1", 0, seeds[0]));
  ASSERT_EQ(p.strategies(0, "llm").size(), seeds.size());
  p.generated(0, 1, "llm", "m1",
              {"keep each row in registers", seeds[2], "Keep each row in registers.",
               "unroll the column loop by four"});
  // A text the target has already (or says the same) is dropped; the round counts as done.
  const auto known = p.strategies(0, "llm");
  ASSERT_EQ(known.size(), seeds.size() + 2);
  EXPECT_EQ(known[seeds.size()].text, "keep each row in registers");
  EXPECT_EQ(known[seeds.size()].source, "m1");
  EXPECT_EQ(known[seeds.size()].round, 1);
  EXPECT_EQ(p.strategies(1, "llm").size(), seeds.size());  // target b has its own
  EXPECT_FALSE(p.meta_due(3, 0));
  // The next optimise proposals try the new ones first, each once, whatever the seeds did.
  std::set<std::string> first;
  for (int64_t n = 3; n < 5; ++n) {
    auto d = p.plan(n, 0).decision;
    EXPECT_EQ(d.mode, ProposalMode::optimise);
    first.insert(d.strategy);
    p.population().add(done(n, 0, 1.1, "m1", 0, d.strategy));  // proposal n + 1 sees it
  }
  // Proposal 3 saw neither tried; proposal 4 saw the first: the two are different.
  EXPECT_EQ(first, (std::set<std::string>{"keep each row in registers",
                                          "unroll the column loop by four"}));
  // Once both were tried, the bandit goes by the records again over every strategy: the
  // untried seeds come next.
  auto next = p.plan(5, 0).decision.strategy;
  EXPECT_TRUE(std::count(seeds.begin() + 1, seeds.end(), next)) << next;
}

TEST(MetaGeneration, TheBuiltInProposerFollowsStrategiesOnlyWhenMetaGenerationIsOn) {
  for (const bool on : {false, true}) {
    Planner p(spec_with(on ? R"({"every": 2})" : "", R"({"kind": "builtin"})"), {"a", "b"});
    p.population().add(done(0, 0, 1.0, "builtin"));
    if (on) p.generated(0, 1, "builtin", "rules", {"raise rows_per_chunk"});
    auto d = p.plan(2, 0).decision;
    EXPECT_EQ(d.mode, ProposalMode::optimise);
    EXPECT_EQ(d.strategy, on ? "raise rows_per_chunk" : "");
    if (on) {
      EXPECT_EQ(p.strategies(0, "builtin").front().text, builtin_seed_strategy());
      EXPECT_TRUE(p.strategies(0, "llm").size() == optimisation_strategies().size());
    }
  }
}

TEST(MetaGeneration, AStrategysRecordCountsWhatItsKernelsDidAgainstTheirParents) {
  std::vector<Member> visible = {done(0, 0, 2.0, "m1"), done(1, 0, 3.0, "m1", 0, "a"),
                                 done(2, 0, 1.0, "m1", 0, "a"), done(3, 0, 0, "m1", 0, "a"),
                                 done(4, 0, 6.0, "m1", 1, "b")};
  auto records = strategy_records({"a", "b", "c"}, visible);
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records[0].tried, 3);
  EXPECT_EQ(records[0].correct, 2);
  EXPECT_EQ(records[0].improved, 1);
  EXPECT_DOUBLE_EQ(records[0].best_gain, 1.5);
  EXPECT_EQ(records[1].improved, 1);
  EXPECT_DOUBLE_EQ(records[1].best_gain, 2.0);
  EXPECT_EQ(records[2].tried, 0);
  EXPECT_TRUE(same_strategy("Fuse the passes.", "fuse  the passes"));
  EXPECT_FALSE(same_strategy("fuse the passes", "fuse the loads"));
}

}  // namespace
}  // namespace kforge::search
