// search/: seeded streams, the population's decision points, parent selection, and the
// experiment configuration's parser.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "search/ensemble.hpp"
#include "search/experiment_spec.hpp"
#include "search/population.hpp"
#include "search/random_stream.hpp"
#include "tests/search_members.hpp"
#include "tests/test_support.hpp"

namespace kforge::search {
namespace {

TEST(RandomStream, SameSeedSameDrawsOtherPurposeOtherDraws) {
  RandomStream a(derive_seed(42, "propose", 7)), b(derive_seed(42, "propose", 7));
  RandomStream c(derive_seed(42, "select", 7)), d(derive_seed(42, "propose", 8));
  std::vector<uint64_t> xa, xb, xc, xd;
  for (int i = 0; i < 16; ++i) {
    xa.push_back(a.next());
    xb.push_back(b.next());
    xc.push_back(c.next());
    xd.push_back(d.next());
  }
  EXPECT_EQ(xa, xb);
  EXPECT_NE(xa, xc);
  EXPECT_NE(xa, xd);
  EXPECT_NE(derive_seed(1, "propose", 0), derive_seed(2, "propose", 0));
}

TEST(RandomStream, BelowIsUniformEnoughAndInRange) {
  RandomStream s(123);
  std::vector<int> counts(5, 0);
  for (int i = 0; i < 50000; ++i) {
    auto x = s.below(5);
    ASSERT_LT(x, 5u);
    ++counts[x];
  }
  for (int c : counts) EXPECT_NEAR(c, 10000, 500);
  for (int i = 0; i < 1000; ++i) {
    double u = s.unit();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
  }
}

TEST(Population, ProposalWaitsForEverythingBeforeTheWindow) {
  Population p(2);
  EXPECT_TRUE(p.may_propose(0));
  p.add(member(0, 0));
  EXPECT_TRUE(p.may_propose(1));  // two in flight at most
  p.add(member(1, 0));
  EXPECT_FALSE(p.may_propose(2));  // candidate 0 (<= 2 - 2) is unfinished
  p.finish(0, true, 1.5);
  EXPECT_TRUE(p.may_propose(2));
  EXPECT_EQ(p.next_sequence(), 2);
}

TEST(Population, VisibleHoldsOnlyFinishedMembersBeforeTheWindowOfTheTarget) {
  Population p(2);
  for (int s = 0; s < 6; ++s) p.add(member(s, s % 2));
  for (int s = 0; s < 6; ++s) p.finish(s, s != 2, 1.0 + s);
  auto v = p.visible(0, 4);  // sequences <= 2, target 0: 0 and 2
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].sequence, 0);
  EXPECT_EQ(v[1].sequence, 2);
  EXPECT_FALSE(v[1].correct);
  EXPECT_EQ(p.tried(1), (std::vector<std::string>{"k1", "k3", "k5"}));
  EXPECT_EQ(p.proposed(1), 3);
}

TEST(SelectParent, NoneWithoutACorrectMember) {
  RandomStream s(1);
  EXPECT_FALSE(select_parent({member(0, 0, true, false)}, "uniform", 3, s));
}

TEST(SelectParent, UniformDrawsEveryCorrectMemberAndNothingElse) {
  std::vector<Member> v = {member(0, 0, true, true, 1), member(1, 0, true, false),
                           member(2, 0, true, true, 9)};
  std::set<int64_t> seen;
  for (uint64_t seed = 0; seed < 200; ++seed) {
    RandomStream s(seed);
    seen.insert(select_parent(v, "uniform", 3, s)->sequence);
  }
  EXPECT_EQ(seen, (std::set<int64_t>{0, 2}));
}

TEST(SelectParent, TournamentPrefersTheFasterAndBreaksTiesByAge) {
  std::vector<Member> v = {member(0, 0, true, true, 1), member(1, 0, true, true, 3),
                           member(2, 0, true, true, 3)};
  int fast = 0;
  for (uint64_t seed = 0; seed < 200; ++seed) {
    RandomStream s(seed);
    fast += select_parent(v, "tournament", 8, s)->sequence != 0;
  }
  EXPECT_GT(fast, 190);
  // Equal speeds: whenever both are drawn (64 draws of two: always), the earlier one wins.
  std::vector<Member> tie = {member(1, 0, true, true, 3), member(2, 0, true, true, 3)};
  for (uint64_t seed = 0; seed < 50; ++seed) {
    RandomStream s(seed);
    EXPECT_EQ(select_parent(tie, "tournament", 64, s)->sequence, 1);
  }
}

TEST(ExperimentSpec, EveryBundledConfigurationIsValid) {
  int read = 0;
  for (const auto& entry : std::filesystem::directory_iterator(test::source_dir() + "/configs")) {
    if (entry.path().extension() != ".json" || entry.path().filename() == "prices.json") continue;
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    auto parsed = parse_experiment_spec(text.str());
    EXPECT_TRUE(parsed.ok()) << entry.path() << "\n" << parsed.error_text();
    ++read;
  }
  EXPECT_GE(read, 3);
}

TEST(ExperimentSpec, ParsesEverySettingAndWritesItBack) {
  auto p = parse_experiment_spec(R"({
    "name": "x", "seed": 9, "tasks": ["tasks/softmax", "tasks/layernorm"],
    "directions": "forward", "backends": ["cpu"], "config_set": "single",
    "proposers": [{"kind": "builtin", "name": "b"}],
    "budget": {"candidates_per_target": 5, "wall_seconds": 60, "money_usd": 2.5},
    "policy": {"library_calls": "forbid", "max_source_bytes": 4096},
    "evaluation": {"seeds": 2, "timing_seconds": 0.2, "compiled_baseline": "max-autotune"},
    "search": {"parent_selection": "tournament", "tournament_size": 4, "pipeline_depth": 3,
               "translate_with_builtin": true}})");
  ASSERT_TRUE(p.ok()) << p.error_text();
  const auto& s = p.spec;
  EXPECT_EQ(s.seed, 9u);
  EXPECT_EQ(s.tasks.size(), 2u);
  EXPECT_EQ(s.proposers[0].name, "b");
  EXPECT_EQ(s.candidates_per_target, 5);
  EXPECT_EQ(s.library_calls, LibraryPolicy::forbid);
  EXPECT_EQ(s.pipeline_depth, 3);
  EXPECT_EQ(s.compiled_baseline, "max-autotune");
  EXPECT_TRUE(s.translate_with_builtin);
  auto again = parse_experiment_spec(s.to_json().dump());
  ASSERT_TRUE(again.ok()) << again.error_text();
  EXPECT_EQ(again.spec.to_json().dump(), s.to_json().dump());
}

TEST(ExperimentSpec, ReportsEveryProblemWithItsPath) {
  auto p = parse_experiment_spec(R"({"tasks": [], "backends": ["tpu"],
    "budget": {"candidates_per_target": 0, "bogus": 1},
    "search": {"pipeline_depth": "deep", "translate_with_builtin": "yes"},
    "evaluation": {"compiled_baseline": "fast"}, "colour": "blue"})");
  EXPECT_FALSE(p.ok());
  auto text = p.error_text();
  for (const char* expected :
       {"config.seed is required", "config.tasks", "config.backends entries must be among",
        "config.budget.candidates_per_target must be between",
        "config.budget.bogus is not a known setting",
        "config.search.pipeline_depth must be an integer",
        "config.search.translate_with_builtin must be true or false",
        "config.evaluation.compiled_baseline must be one of off, default, max-autotune",
        "config.colour is not a known setting"})
    EXPECT_NE(text.find(expected), std::string::npos) << expected << "\n" << text;
  EXPECT_FALSE(parse_experiment_spec("{not json").ok());
  EXPECT_NE(parse_experiment_spec("{not json").error_text().find("not JSON"), std::string::npos);
}

TEST(ExperimentSpec, NameDefaultsToTheFirstTask) {
  auto p = parse_experiment_spec(R"({"seed": 1, "tasks": ["tasks/softmax/"]})");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p.spec.name, "softmax");
}

Member by(int64_t seq, const std::string& proposer, bool correct, double speedup, double cost,
          int64_t parent = -1) {
  Member m = member(seq, 0, true, correct, speedup);
  m.proposer = proposer;
  m.cost_usd = cost;
  m.parent_sequence = parent;
  return m;
}

TEST(Ensemble, ImprovementCountsFirstTranslationsAndGainsOverTheParent) {
  std::vector<Member> v = {by(0, "a", true, 1.0, 0), by(1, "b", true, 4.0, 0, 0),
                           by(2, "a", true, 2.0, 0), by(3, "b", false, 0, 0, 0),
                           by(4, "a", true, 0.5, 0, 1)};
  EXPECT_DOUBLE_EQ(improvement(v[0], v), 1);  // the first correct kernel of the target
  EXPECT_DOUBLE_EQ(improvement(v[1], v), 2);  // log2(4 / 1)
  EXPECT_DOUBLE_EQ(improvement(v[2], v), 0);  // a translation after the first one
  EXPECT_DOUBLE_EQ(improvement(v[3], v), 0);  // incorrect
  EXPECT_DOUBLE_EQ(improvement(v[4], v), 0);  // slower than its parent
}

TEST(Ensemble, BanditTriesEveryArmThenPrefersImprovementPerDollar) {
  RandomStream s(1);
  std::vector<Arm> arms = {{"cheap"}, {"dear"}};
  EXPECT_EQ(choose_arm(arms, "bandit", s) < 2, true);
  arms[0].pulls = 1;
  EXPECT_EQ(choose_arm(arms, "bandit", s), 1u);  // the untried arm first
  // Same gains; "dear" costs 100 times more: "cheap" wins most draws.
  std::vector<Member> v;
  for (int i = 0; i < 40; ++i) {
    bool cheap = i % 2 == 0;
    v.push_back(by(i, cheap ? "cheap" : "dear", true, 1.0 + i, cheap ? 0.01 : 1.0, i - 1));
  }
  std::vector<Arm> fresh = {{"cheap"}, {"dear"}, {"unknown-to-tally"}};
  fresh.pop_back();
  tally(fresh, v);
  EXPECT_EQ(fresh[0].pulls, 20);
  EXPECT_NEAR(fresh[1].cost_usd, 20.0, 1e-9);
  int cheap = 0;
  for (uint64_t seed = 0; seed < 50; ++seed) {
    RandomStream r(seed);
    cheap += choose_arm(fresh, "bandit", r) == 0;
  }
  EXPECT_EQ(cheap, 50);
}

TEST(Ensemble, FixedWeightsAndUniformDraws) {
  std::vector<Arm> arms = {{"a", 3}, {"b", 1}, {"c", 0}};
  std::map<size_t, int> counts;
  RandomStream s(9);
  for (int i = 0; i < 4000; ++i) ++counts[choose_arm(arms, "fixed", s)];
  EXPECT_NEAR(counts[0] / 4000.0, 0.75, 0.04);
  EXPECT_EQ(counts[2], 0);
  counts.clear();
  for (int i = 0; i < 3000; ++i) ++counts[choose_arm(arms, "uniform", s)];
  EXPECT_NEAR(counts[2] / 3000.0, 1 / 3.0, 0.04);
}

// A setting the service would refuse on every call (a 400, never retried) is refused when the
// configuration is loaded, naming the setting.
TEST(ExperimentSpec, SettingsTheServiceRefusesAreNamedWhenLoaded) {
  auto with_model = [](const std::string& model_fields) {
    return parse_experiment_spec(R"({"seed": 1, "tasks": ["softmax"], "proposers": [{"kind": "llm",
        "name": "m", )" + model_fields + "}]}");
  };
  struct Case {
    std::string fields, setting;
  };
  for (const auto& [fields, setting] : std::vector<Case>{
           {R"("provider": "openai", "model": "o3", "temperature": 0.2)", "temperature"},
           {R"("provider": "openai", "model": "gpt-5-mini", "top_p": 0.5)", "top_p"},
           {R"("provider": "openai", "model": "gpt-4.1", "reasoning_effort": "high")",
            "reasoning_effort"},
           {R"("provider": "anthropic", "model": "claude-sonnet-4-5", "thinking_budget": 512)",
            "thinking_budget"},
           {R"("provider": "anthropic", "model": "claude-sonnet-4-5", "thinking_budget": 9000,
               "max_tokens": 8192)",
            "thinking_budget"},
           {R"("provider": "anthropic", "model": "claude-sonnet-4-5", "thinking_budget": 2048,
               "temperature": 0.3)",
            "temperature"},
           {R"("provider": "anthropic", "model": "claude-sonnet-4-5", "temperature": 0.3,
               "top_p": 0.9)",
            "top_p"}}) {
    auto p = with_model(fields);
    ASSERT_FALSE(p.ok()) << fields;
    EXPECT_NE(p.error_text().find(setting), std::string::npos) << p.error_text();
  }
  // The silence limit is by model unless given.
  auto plain = with_model(R"("provider": "openai", "model": "gpt-5")");
  ASSERT_TRUE(plain.ok()) << plain.error_text();
  EXPECT_LT(plain.spec.proposers[0].llm.idle_timeout_seconds, 0);
  EXPECT_FALSE(plain.spec.proposers[0].llm.to_json().contains("idle_timeout_seconds"));
  auto given = with_model(R"("provider": "openai", "model": "gpt-5", "idle_timeout_seconds": 30)");
  ASSERT_TRUE(given.ok()) << given.error_text();
  EXPECT_EQ(given.spec.proposers[0].llm.idle_timeout_seconds, 30);
  for (const char* fine :
       {R"("provider": "openai", "model": "o3", "reasoning_effort": "high", "max_tokens": 32000)",
        R"("provider": "openai", "model": "gpt-4.1", "temperature": 0.2, "top_p": 0.9)",
        R"("provider": "anthropic", "model": "claude-sonnet-4-5", "thinking_budget": 1024)",
        R"("provider": "anthropic", "model": "claude-sonnet-4-5", "temperature": 0.3)"}) {
    auto p = with_model(fine);
    EXPECT_TRUE(p.ok()) << fine << ": " << p.error_text();
  }
}

TEST(ExperimentSpec, LlmProposersAndVerifiersParseAndRoundTrip) {
  auto p = parse_experiment_spec(R"({
    "seed": 3, "tasks": ["softmax"],
    "proposers": [{"kind": "llm", "name": "gpt", "provider": "openai", "model": "gpt-4.1",
                   "api_key_env": "OPENAI_API_KEY", "temperature": 0.5, "weight": 2},
                  {"kind": "builtin"}],
    "ensemble": {"policy": "fixed"},
    "verifiers": {"llm": [{"provider": "anthropic", "model": "claude-sonnet-4-5",
                           "thinking_budget": 2048}], "checks": ["numerics"], "audit_fraction": 0.5},
    "search": {"fix_probability": 0.5, "context_size": 2},
    "replay_of": 7, "offline": true})");
  ASSERT_TRUE(p.ok()) << p.error_text();
  EXPECT_EQ(p.spec.proposers[0].llm.model, "gpt-4.1");
  EXPECT_EQ(p.spec.proposers[0].weight, 2);
  EXPECT_EQ(p.spec.verifiers[0].name, "claude-sonnet-4-5");
  EXPECT_EQ(p.spec.verifiers[0].llm.thinking_budget, 2048);
  EXPECT_TRUE(p.spec.uses_llm());
  auto again = parse_experiment_doc(p.spec.to_json());
  ASSERT_TRUE(again.ok()) << again.error_text();
  EXPECT_EQ(again.spec.to_json().dump(), p.spec.to_json().dump());
  EXPECT_EQ(again.spec.replay_of, 7);
  EXPECT_TRUE(again.spec.offline);
  auto bad = parse_experiment_spec(R"({"seed": 1, "tasks": ["x"],
    "proposers": [{"kind": "llm", "provider": "bard", "temperature": -1}]})");
  EXPECT_FALSE(bad.ok());
  EXPECT_NE(bad.error_text().find("provider must be one of"), std::string::npos)
      << bad.error_text();
  EXPECT_NE(bad.error_text().find("model is required"), std::string::npos);
}

}  // namespace
}  // namespace kforge::search
