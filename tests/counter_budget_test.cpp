// The hardware counters' budget (evaluation/worker/counter_budget.hpp): which of a call's kernels
// are counted within a number of seconds, what is left, and what a count teaches about the cost.
#include <gtest/gtest.h>

#include "evaluation/worker/counter_budget.hpp"

namespace kforge::worker {
namespace {

json::Value launch(const char* kind, const char* name, double ms) {
  json::Value l;
  l.set("kind", kind).set("name", name).set("ms", ms);
  return l;
}

json::Value call_of_three_kernels() {
  json::Value traced{json::Array{}};
  traced.push(launch("kernel", "first", 1));
  traced.push(launch("memcpy", "memcpy", 5));  // copies are not counted and cost nothing here
  traced.push(launch("kernel", "second", 2));
  traced.push(launch("kernel", "long", 100));
  return traced;
}

TEST(CounterBudget, CountsTheLongestPrefixOfKernelsThatFitsAndNamesTheRest) {
  CounterCosts costs;
  costs.user_replay = false;
  costs.passes = 10;
  costs.pass_overhead_s = 0.1;
  // 10 x (0.1 + 0.001) = 1.01 s, then 1.02 s, then 2.0 s.
  auto plan = plan_counters(call_of_three_kernels(), 2.5, costs);
  EXPECT_EQ(plan.count, 2);
  EXPECT_NEAR(plan.estimated_s, 2.03, 1e-9);
  auto left = uncounted_kernels(call_of_three_kernels(), plan.count);
  ASSERT_EQ(left.as_array().size(), 1u);
  EXPECT_EQ(left[0]["name"].as_string(), "long");
  EXPECT_EQ(left[0]["ms"].as_number(), 100);
  EXPECT_EQ(plan_counters(call_of_three_kernels(), 10, costs).count, 3);
}

TEST(CounterBudget, AKernelThatDoesNotFitLeavesEveryLaterOneUncounted) {
  CounterCosts costs;
  costs.user_replay = false;
  costs.passes = 10;
  costs.pass_overhead_s = 0.1;
  json::Value traced{json::Array{}};
  traced.push(launch("kernel", "long", 500));  // 6 s
  traced.push(launch("kernel", "short", 0.01));
  EXPECT_EQ(plan_counters(traced, 2, costs).count, 0);
  EXPECT_EQ(uncounted_kernels(traced, 0).as_array().size(), 2u);
  EXPECT_EQ(plan_counters(traced, 0, costs).count, 0);
}

TEST(CounterBudget, ACountTeachesWhatAPassCostsBeyondTheKernel) {
  CounterCosts costs;
  EXPECT_FALSE(costs.learned);
  json::Value kernel, metrics, counted;
  metrics.set("duration_ns", 1e6);  // 1 ms
  kernel.set("metrics", metrics);
  counted.set("replay", "kernel")
      .set("passes", 10)
      .set("kernels", json::Value(json::Array{kernel, kernel}));
  // Kernel replay, 2 kernels x 10 passes: 0.02 s of kernels, the rest is overhead: (4.02 - 0.02) /
  // 20.
  costs.learn(counted, 4.02, 0.5);
  EXPECT_TRUE(costs.learned);
  EXPECT_FALSE(costs.user_replay);
  EXPECT_EQ(costs.passes, 10);
  EXPECT_NEAR(costs.pass_overhead_s, 0.2, 1e-12);
  // User replay: the call (0.103 s of kernels) runs once a pass, the rest is the session's.
  CounterCosts user;
  counted.set("replay", "user");
  user.learn(counted, 4.03, 0.103);
  EXPECT_TRUE(user.user_replay);
  EXPECT_NEAR(user.session_s, 3.0, 1e-9);
}

// User replay runs the whole call once a pass whatever is counted: every kernel when a session
// and the passes fit (robust-kbench's resnet_block: 27 kernels), none when they do not.
TEST(CounterBudget, UserReplayCountsEveryKernelWhenTheCallsPassesFit) {
  CounterCosts costs;
  costs.passes = 10;
  costs.session_s = 2;
  // 2 + 10 x 0.103 = 3.03 s.
  auto plan = plan_counters(call_of_three_kernels(), 3.5, costs);
  EXPECT_EQ(plan.count, 3);
  EXPECT_NEAR(plan.estimated_s, 3.03, 1e-9);
  EXPECT_EQ(plan_counters(call_of_three_kernels(), 3, costs).count, 0);
  json::Value many{json::Array{}};
  for (int i = 0; i < 40; ++i) many.push(launch("kernel", "k", 0.01));
  EXPECT_EQ(plan_counters(many, 10, costs).count, 32);  // the counter data's ranges
}

TEST(CounterBudget, WithoutATraceTheBudgetPaysForKernelsOfNoTime) {
  CounterCosts costs;
  costs.user_replay = false;
  costs.user_replay = false;
  costs.passes = 10;
  costs.pass_overhead_s = 0.1;
  EXPECT_EQ(plan_counters(json::Value(), 5, costs).count, 5);
  EXPECT_EQ(plan_counters(json::Value(), 1000, costs).count, 32);  // the counter data's ranges
  EXPECT_EQ(plan_counters(json::Value(), 0.5, costs).count, 0);
}

}  // namespace
}  // namespace kforge::worker
