// The hardware counters' budget (evaluation/worker/counter_budget.hpp): which of a call's kernels
// are counted within a number of seconds, what is left, and what a count teaches about the cost.
#include <gtest/gtest.h>

#include <chrono>
#include <vector>

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

// A call whose kernels ran in a CUDA graph is not counted, whichever replay and budget: the
// profiler is on for the whole call, the graph's launch included.
TEST(CounterBudget, ACallWithKernelsInACudaGraphIsNotCounted) {
  json::Value traced{json::Array{}};
  traced.push(launch("kernel", "before", 0.01));
  traced.push(launch("memcpy", "memcpy", 0.01));
  auto node = launch("kernel", "k4_graph", 0.0034);
  node.set("graph", true);
  for (int i = 0; i < 3; ++i) traced.push(node);
  for (bool user : {true, false}) {
    CounterCosts costs;
    costs.user_replay = user;
    auto plan = plan_counters(traced, 1000, costs);
    EXPECT_EQ(plan.count, 0) << user;
    EXPECT_TRUE(plan.graph_stops) << user;
    EXPECT_EQ(uncounted_kernels(traced, plan.count).as_array().size(), 4u);
  }
  // Without the graph's kernels the same call is counted.
  json::Value plain{json::Array{}};
  plain.push(launch("kernel", "before", 0.01));
  auto plan = plan_counters(plain, 1000, CounterCosts{});
  EXPECT_EQ(plan.count, 1);
  EXPECT_FALSE(plan.graph_stops);
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

// The counters' stage is planned from the config's timed calls, so that the supervisor's limit
// follows a call of 100 ms rather than 20 calls at the call timeout; a config without timing
// plans nothing.
TEST(CounterBudget, TheStageIsPlannedFromTheConfigsTimedCalls) {
  json::Value record;
  json::Value kernel, eager;
  kernel.set("median_ms", 66.0);
  eager.set("median_ms", 34.0);
  record.set("candidate", kernel).set("reference", eager);
  const double sessions = kCountsPerSide * 2 * CounterCosts{}.session_s;
  const double calls = 1 + kCountsPerSide * (kMostCounterPasses + 1);
  auto planned = counters_stage_seconds(record, 10);
  ASSERT_TRUE(planned.has_value());
  EXPECT_NEAR(*planned, 10 + sessions + calls * 0.1, 1e-9);
  EXPECT_LT(*planned, 60);
  EXPECT_NEAR(*counters_stage_seconds(record, 0) + 10, *planned, 1e-9);
  EXPECT_FALSE(counters_stage_seconds(json::Value(), 10).has_value());
  json::Value untimed;
  untimed.set("candidate", kernel);
  EXPECT_FALSE(counters_stage_seconds(untimed, 10).has_value());
}

// User replay stops after its first profiled call when the passes left would take more than
// twice what is left of the budget: resnet_block's 0.1 s calls run all 15, a call of thousands of
// launches that takes 30 s profiled does not run 14 more.
TEST(CounterBudget, UserReplayStopsAfterAFirstCallTooSlowForThePassesLeft) {
  EXPECT_EQ(user_replay_over_budget(0.1, 15, 10), "");
  EXPECT_EQ(user_replay_over_budget(1.4, 15, 10), "");  // 19.6 s: within twice the budget
  EXPECT_EQ(user_replay_over_budget(30, 1, 10), "");    // no pass left
  const std::string why = user_replay_over_budget(30, 15, 10);
  EXPECT_NE(why.find("the first profiled call took 30.0 s"), std::string::npos) << why;
  EXPECT_NE(why.find("its 14 further counter passes would take about 420 s"), std::string::npos)
      << why;
  EXPECT_NE(why.find("10.0 s left"), std::string::npos) << why;
  // A spent budget still allows a second of calls.
  EXPECT_EQ(user_replay_over_budget(0.05, 15, 0), "");
  EXPECT_NE(user_replay_over_budget(0.1, 15, 0), "");
}

TEST(CounterBudget, WithoutATraceTheBudgetPaysForKernelsOfNoTime) {
  CounterCosts costs;
  costs.user_replay = false;
  costs.passes = 10;
  costs.pass_overhead_s = 0.1;
  EXPECT_EQ(plan_counters(json::Value(), 5, costs).count, 5);
  EXPECT_EQ(plan_counters(json::Value(), 1000, costs).count, 32);  // the counter data's ranges
  EXPECT_EQ(plan_counters(json::Value(), 0.5, costs).count, 0);
}

// Counters another profiler holds (CUPTI_ERROR_HARDWARE_BUSY) are waited for: pauses of 0.1 s
// doubling to 1.6 s while the next try starts within 20 s of the first, on a clock that advances
// only by the pauses and a second a try. A failure of another kind, or a success, ends the wait.
struct BusyCounters {
  std::chrono::steady_clock::time_point now{};
  std::vector<int64_t> pauses_ms;
  int tries = 0;
  WaitClock clock() {
    WaitClock c;
    c.now = [this] { return now; };
    c.sleep = [this](std::chrono::milliseconds d) {
      pauses_ms.push_back(d.count());
      now += d;
    };
    return c;
  }
  /// A try that takes a second and fails as busy until try `free_at` (0: never).
  std::function<Result<json::Value>()> measure(int free_at) {
    return [this, free_at] {
      ++tries;
      now += std::chrono::seconds(1);
      if (free_at != 0 && tries >= free_at) return Result<json::Value>{json::Value(tries), {}};
      return Result<json::Value>::failure("the range profiler could not start: busy");
    };
  }
};

TEST(CounterBudget, BusyCountersAreWaitedForTwentySecondsThenTheFailureSaysHowLong) {
  BusyCounters b;
  auto freed = waiting_while_busy(
      b.measure(4), [] { return true; }, b.clock());
  ASSERT_TRUE(freed) << freed.error;
  EXPECT_EQ(freed->as_int(), 4);
  EXPECT_EQ(b.pauses_ms, (std::vector<int64_t>{100, 200, 400}));

  BusyCounters held;
  auto failed = waiting_while_busy(
      held.measure(0), [] { return true; }, held.clock());
  ASSERT_FALSE(failed);
  // tries at 0, 1.1, 2.3, 3.7, 5.5, 8.1, 10.7, 13.3, 15.9, 18.5 s: the next would start at 21.1
  EXPECT_EQ(held.pauses_ms,
            (std::vector<int64_t>{100, 200, 400, 800, 1600, 1600, 1600, 1600, 1600}));
  EXPECT_EQ(held.tries, 10);
  EXPECT_NE(failed.error.find("busy (another profiler held the GPU's counters for 19 s)"),
            std::string::npos)
      << failed.error;

  BusyCounters other;
  auto refused = waiting_while_busy(
      other.measure(0), [] { return false; }, other.clock());
  ASSERT_FALSE(refused);
  EXPECT_EQ(other.tries, 1);
  EXPECT_TRUE(other.pauses_ms.empty());
  EXPECT_EQ(refused.error, "the range profiler could not start: busy");
}

}  // namespace
}  // namespace kforge::worker
