// What shapes the population beyond one pool: islands with migration, the novelty filter and
// speed-of-light budgeting. Each is off (or inert) by default and changes decisions only as
// configured; every draw stays seeded, so the same seed and outcomes give the same plans.
#include <gtest/gtest.h>

#include <set>

#include "search/islands.hpp"
#include "search/novelty.hpp"
#include "search/planner.hpp"
#include "tests/search_members.hpp"

namespace kforge::search {
namespace {

/// Three targets; `extra` adds top-level settings, `search` the search's.
ExperimentSpec spec_with(const std::string& extra,
                         const std::string& search = R"("pipeline_depth": 1)") {
  auto parsed = parse_experiment_spec(
      R"({"seed": 11, "tasks": ["/t/a", "/t/b", "/t/c"], "backends": ["cpu"], "search": {)" +
      search + "}" + extra + "}");
  EXPECT_TRUE(parsed.ok()) << parsed.error_text();
  return parsed.spec;
}

Member finished(int64_t sequence, size_t target, int32_t island, double speedup,
                double speed_of_light = 0) {
  Member m = member(sequence, target, true, speedup > 0, speedup);
  m.speed_of_light = speed_of_light;
  m.island = island;
  return m;
}

TEST(Novelty, LayoutAndCommentsDoNotMakeAKernelNew) {
  const std::string a =
      "// softmax\n__global__ void k(float* x, int n) {\n  int i = threadIdx.x;  /* lane */\n"
      "  if (i < n) x[i] = x[i] * 2.0f;\n}\n";
  const std::string b =
      "__global__   void k(float *x,int n){int i=threadIdx.x;\n"
      "if(i<n)x[i]=x[i]*2.0f;}  // reformatted";
  EXPECT_EQ(normalised_source(a), normalised_source(b));
  EXPECT_EQ(source_digest(a), source_digest(b));
  // Names, numbers and string literals count: a parameter changed is another kernel.
  EXPECT_NE(source_digest(a), source_digest("__global__ void k(float* x, int n) { int i = "
                                            "threadIdx.x; if (i < n) x[i] = x[i] * 3.0f; }"));
  EXPECT_NE(normalised_source("unsigned int x;"), normalised_source("unsignedint x;"));
  EXPECT_NE(normalised_source(R"(printf("a  b");)"), normalised_source(R"(printf("a b");)"));
  EXPECT_EQ(normalised_source(R"(s = "// not a comment";)"), R"(s="// not a comment";)");
}

TEST(Novelty, AKernelThatRepeatsAVisibleOneIsNamedUnlessTheFilterIsOff) {
  for (const char* novelty : {"normalised", "off"}) {
    Planner p(spec_with("", std::string(R"("pipeline_depth": 1, "novelty": ")") + novelty + "\""),
              {"a", "b", "c"});
    auto first = finished(0, 0, 0, 1.5);
    first.digest = source_digest("int  f() { return 1; }");
    p.population().add(first);
    auto other_target = finished(1, 1, 0, 1.2);
    other_target.digest = source_digest("int f(){return 2;}");
    p.population().add(other_target);
    auto again = finished(2, 0, 0, 0);
    again.finished = false;
    again.digest = source_digest("int f() {\n  return 1;  // same\n}");
    p.population().add(again);
    auto elsewhere = again;
    elsewhere.sequence = 3;
    elsewhere.target = 1;  // the same source for another target is new there
    p.population().add(elsewhere);
    if (std::string(novelty) == "off") {
      EXPECT_EQ(p.repeats(2), std::nullopt);
      continue;
    }
    EXPECT_EQ(p.repeats(2), 0);
    EXPECT_EQ(p.repeats(3), std::nullopt);
    EXPECT_EQ(p.repeats(0), std::nullopt);  // nothing before it
  }
}

TEST(Islands, AnIslandHoldsItsOwnKernelsAndTheMigrantsOfTheIslandBeforeIt) {
  const IslandLayout layout{3, 4, 1};
  std::vector<Member> visible = {finished(0, 0, 0, 1.0), finished(1, 0, 1, 2.0),
                                 finished(2, 0, 2, 3.0), finished(3, 0, 1, 2.5),
                                 finished(4, 0, 0, 1.1), finished(5, 0, 2, 0)};
  auto sequences = [](const std::vector<Member>& ms) {
    std::vector<int64_t> out;
    for (const auto& m : ms) out.push_back(m.sequence);
    return out;
  };
  // One migration (4 visible): each island receives the fastest of the island before it among
  // the first four: island 2 gets 3 (2.5x, faster than 1), island 0 gets 2, island 1 gets 0.
  EXPECT_EQ(sequences(island_members(visible, 2, layout)), (std::vector<int64_t>{2, 3, 5}));
  EXPECT_EQ(sequences(island_members(visible, 0, layout)), (std::vector<int64_t>{0, 2, 4}));
  EXPECT_EQ(sequences(island_members(visible, 1, layout)), (std::vector<int64_t>{0, 1, 3}));
  // Before the first migration, or without migration, an island holds its own kernels only.
  std::vector<Member> early(visible.begin(), visible.begin() + 3);
  EXPECT_EQ(sequences(island_members(early, 2, layout)), (std::vector<int64_t>{2}));
  EXPECT_EQ(sequences(island_members(visible, 2, {3, 0, 1})), (std::vector<int64_t>{2, 5}));
  // One island is the whole population.
  EXPECT_EQ(island_members(visible, 0, {1, 4, 1}).size(), visible.size());
}

TEST(Islands, AProposalJoinsTheIslandItDrewAndTakesItsParentThere) {
  Planner p(
      spec_with("", R"("pipeline_depth": 1, "islands": {"count": 2, "migration_interval": 0})"),
      {"a", "b", "c"});
  p.population().add(finished(0, 0, 0, 1.5));
  p.population().add(finished(1, 0, 1, 0));  // island 1 has no correct kernel yet
  std::set<int32_t> drawn;
  for (int64_t n = 2; n < 40; ++n) {
    auto plan = p.plan(n, 0);
    drawn.insert(plan.decision.island);
    if (plan.decision.island == 0) {
      EXPECT_EQ(plan.decision.mode, ProposalMode::optimise) << n;
      EXPECT_EQ(plan.decision.parent_sequence, 0) << n;
    } else {
      EXPECT_EQ(plan.decision.mode, ProposalMode::translate) << n;  // it founds its island
    }
    auto recorded = recorded_decision(plan.decision.to_json().dump(), "a", "builtin", -1);
    EXPECT_EQ(recorded.island, plan.decision.island);
  }
  EXPECT_EQ(drawn, (std::set<int32_t>{0, 1}));
  // One island: the decision names none, as decisions did before islands.
  Planner one(spec_with(""), {"a", "b", "c"});
  EXPECT_FALSE(one.plan(0, 0).decision.to_json().contains("island"));
}

TEST(Budgeting, ATargetNearItsBoundGivesItsBudgetToTheTargetsWithMostHeadroom) {
  Planner off(spec_with(R"(, "budget": {"candidates_per_target": 8})"), {"a", "b", "c"});
  Planner on(spec_with(R"(, "budget": {"candidates_per_target": 8,
                  "speed_of_light": {"fraction": 0.7, "share": 0.25}})"),
             {"a", "b", "c"});
  for (auto* p : {&off, &on}) {
    p->population().add(finished(0, 0, 0, 3.0, 0.9));  // a: 90% of its bound
    p->population().add(finished(1, 1, 0, 1.2, 0.2));  // b: 20%
    p->population().add(finished(2, 2, 0, 1.1, 0.6));  // c: 60%
  }
  const std::vector<int64_t> proposals = {1, 1, 1};
  EXPECT_EQ(off.quotas(3, proposals), (std::vector<int64_t>{8, 8, 8}));
  // a keeps 2 of 8; its 6 go to b and c in proportion to headroom (0.8 : 0.4), 4 and 2.
  EXPECT_EQ(on.quotas(3, proposals), (std::vector<int64_t>{2, 12, 10}));
  EXPECT_DOUBLE_EQ(on.speed_of_light(0, 3), 0.9);
  // Once a has its share, the next proposals go to the others.
  int64_t n = 3;
  EXPECT_EQ(on.next_target(n, {1, 0, 0}), 1u);   // a: 2 of 2 with the pending one
  EXPECT_EQ(off.next_target(n, {0, 0, 0}), 0u);  // without budgeting a is first again
  // What proposal n cannot see yet does not count.
  Planner later(spec_with(R"(, "budget": {"candidates_per_target": 8,
                     "speed_of_light": {"fraction": 0.7}})",
                          R"("pipeline_depth": 4)"),
                {"a", "b", "c"});
  later.population().add(finished(0, 0, 0, 3.0, 0.9));
  EXPECT_EQ(later.quotas(2, {1, 0, 0}), (std::vector<int64_t>{8, 8, 8}));
  EXPECT_EQ(later.quotas(4, {1, 0, 0})[0], 2);
}

TEST(Budgeting, TheSettingsAreCheckedAndKeptInTheCanonicalConfiguration) {
  auto bad = parse_experiment_spec(
      R"({"tasks": ["/t/a"], "budget": {"speed_of_light": {"fraction": 2, "bogus": 1}},
          "search": {"islands": {"count": 0}, "novelty": "fuzzy"}})");
  EXPECT_FALSE(bad.ok());
  const auto text = bad.error_text();
  for (const char* expected :
       {"config.budget.speed_of_light.fraction must be between 0 and 1",
        "config.budget.speed_of_light.bogus is not a known setting",
        "config.search.islands.count must be between 1 and 64", "config.search.novelty must be"})
    EXPECT_NE(text.find(expected), std::string::npos) << expected << "\n" << text;
  auto spec = spec_with(R"(, "budget": {"speed_of_light": {"fraction": 0.8}})",
                        R"("islands": {"count": 4, "migration_interval": 6, "migration_size": 2},
                           "novelty": "off")");
  auto again = parse_experiment_doc(spec.to_json());
  ASSERT_TRUE(again.ok()) << again.error_text();
  EXPECT_EQ(again.spec.islands, 4);
  EXPECT_EQ(again.spec.migration_interval, 6);
  EXPECT_EQ(again.spec.migration_size, 2);
  EXPECT_EQ(again.spec.novelty, "off");
  EXPECT_DOUBLE_EQ(again.spec.speed_of_light_fraction, 0.8);
  EXPECT_DOUBLE_EQ(again.spec.speed_of_light_share, 0.25);
  // The defaults add nothing: earlier runs' configurations keep their canonical text.
  const auto plain = spec_with("").to_json();
  EXPECT_FALSE(plain["search"].contains("islands"));
  EXPECT_FALSE(plain["search"].contains("novelty"));
  EXPECT_FALSE(plain["budget"].contains("speed_of_light"));
}

}  // namespace
}  // namespace kforge::search
