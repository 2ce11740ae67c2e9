// search/: seeded streams, the population's decision points, parent selection, and the
// experiment configuration's parser.
#include <gtest/gtest.h>

#include <set>

#include "search/experiment_spec.hpp"
#include "search/population.hpp"
#include "search/random_stream.hpp"

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

Member member(int64_t seq, size_t target, bool finished = false, bool correct = false,
              double speedup = 0) {
  return {seq, seq + 100, target, "k" + std::to_string(seq), finished, correct, speedup};
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

TEST(ExperimentSpec, ParsesEverySettingAndWritesItBack) {
  auto p = parse_experiment_spec(R"({
    "name": "x", "seed": 9, "tasks": ["tasks/softmax", "tasks/layernorm"],
    "directions": "forward", "backends": ["cpu"], "config_set": "single",
    "proposers": [{"kind": "builtin", "name": "b"}],
    "budget": {"candidates_per_target": 5, "wall_seconds": 60, "money_usd": 2.5},
    "policy": {"library_calls": "forbid", "max_source_bytes": 4096},
    "evaluation": {"seeds": 2, "timing_seconds": 0.2},
    "search": {"parent_selection": "tournament", "tournament_size": 4, "pipeline_depth": 3}})");
  ASSERT_TRUE(p.ok()) << p.error_text();
  const auto& s = p.spec;
  EXPECT_EQ(s.seed, 9u);
  EXPECT_EQ(s.tasks.size(), 2u);
  EXPECT_EQ(s.proposers[0].name, "b");
  EXPECT_EQ(s.candidates_per_target, 5);
  EXPECT_EQ(s.library_calls, "forbid");
  EXPECT_EQ(s.pipeline_depth, 3);
  auto again = parse_experiment_spec(s.to_json().dump());
  ASSERT_TRUE(again.ok()) << again.error_text();
  EXPECT_EQ(again.spec.to_json().dump(), s.to_json().dump());
}

TEST(ExperimentSpec, ReportsEveryProblemWithItsPath) {
  auto p = parse_experiment_spec(R"({"tasks": [], "backends": ["tpu"],
    "budget": {"candidates_per_target": 0, "bogus": 1}, "search": {"pipeline_depth": "deep"},
    "colour": "blue"})");
  EXPECT_FALSE(p.ok());
  auto text = p.error_text();
  for (const char* expected :
       {"config.seed is required", "config.tasks", "config.backends entries must be among",
        "config.budget.candidates_per_target must be between",
        "config.budget.bogus is not a known setting",
        "config.search.pipeline_depth must be an integer", "config.colour is not a known setting"})
    EXPECT_NE(text.find(expected), std::string::npos) << expected << "\n" << text;
  EXPECT_FALSE(parse_experiment_spec("{not json").ok());
  EXPECT_NE(parse_experiment_spec("{not json").error_text().find("not JSON"), std::string::npos);
}

TEST(ExperimentSpec, NameDefaultsToTheFirstTask) {
  auto p = parse_experiment_spec(R"({"seed": 1, "tasks": ["tasks/softmax/"]})");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p.spec.name, "softmax");
}

}  // namespace
}  // namespace kforge::search
