// `kforge suite`'s summary: per target its fastest correct kernel, with and without the kernels
// flagged for library calls, counted as KernelBench counts (fast_1 over every target).
#include <gtest/gtest.h>

#include <cmath>

#include "common/json.hpp"
#include "tools/kforge/suite_summary.hpp"

namespace kforge::cli {
namespace {

json::Value row(const std::string& task, const std::string& status, int64_t correct, int64_t total,
                json::Value eager, json::Value compiled, bool library = false) {
  json::Value r;
  json::Value flags{json::Array{}};
  if (library) flags.push("library operators called at run time: aten::mm");
  r.set("task", task)
      .set("direction", "forward")
      .set("backend", "cuda")
      .set("status", status)
      .set("configs_correct", correct)
      .set("configs_total", total)
      .set("speedup_eager", eager)
      .set("speedup_compile", compiled)
      .set("flags", flags);
  return r;
}

json::Value suite_of(std::initializer_list<json::Value> rows) {
  json::Value list{json::Array{}};
  for (const auto& r : rows) list.push(r);
  json::Value suite;
  suite.set("rows", list);
  return suite;
}

TEST(SuiteSummary, BestCorrectKernelPerTargetWithAndWithoutLibraryCalls) {
  const auto summary = suite_summary(suite_of({
      // a: own 2x (0.5x compiled), library 4x (2x compiled): the library kernel is best overall.
      row("a", "correct", 2, 2, 2.0, 0.5),
      row("a", "correct", 2, 2, 4.0, 2.0, true),
      // b: only a library kernel is correct (0.8x), its own kernel is wrong on one config.
      row("b", "correct", 1, 1, 0.8, 0.4, true),
      row("b", "incorrect", 1, 2, 3.0, 3.0),
      // c: nothing correct; a row that says "correct" but ran no config does not count either.
      row("c", "compile_error", 0, 0, json::Value(), json::Value()),
      row("c", "correct", 0, 0, 9.0, 9.0),
      // d: correct and fast, no torch.compile time (the baseline failed for it).
      row("d", "correct", 3, 3, 1.5, json::Value()),
  }));
  const auto& all = summary["all"];
  EXPECT_EQ(all["targets"].as_int(), 4);
  EXPECT_EQ(all["correct"].as_int(), 3);
  EXPECT_EQ(all["fast_1_eager"].as_int(), 2);    // a 4x, d 1.5x (b 0.8x is not)
  EXPECT_EQ(all["fast_1_compile"].as_int(), 1);  // a 2x
  EXPECT_EQ(all["compile_timed"].as_int(), 2);   // a, b
  EXPECT_NEAR(all["geomean_eager"].as_number(), std::cbrt(4.0 * 0.8 * 1.5), 1e-12);
  EXPECT_NEAR(all["geomean_compile"].as_number(), std::sqrt(2.0 * 0.4), 1e-12);

  const auto& own = summary["without_library"];
  EXPECT_EQ(own["targets"].as_int(), 4);
  EXPECT_EQ(own["correct"].as_int(), 2);  // a (own 2x), d
  EXPECT_EQ(own["fast_1_eager"].as_int(), 2);
  EXPECT_EQ(own["fast_1_compile"].as_int(), 0);
  EXPECT_EQ(own["compile_timed"].as_int(), 1);
  EXPECT_NEAR(own["geomean_eager"].as_number(), std::sqrt(2.0 * 1.5), 1e-12);
  EXPECT_NEAR(own["geomean_compile"].as_number(), 0.5, 1e-12);

  const auto text = suite_summary_text(summary);
  EXPECT_NE(text.find("every kernel: 4 target(s), correct 3 (75%), faster than eager 2 (50%), "
                      "faster than torch.compile 1 (25%) (2 timed against it)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("without library calls: 4 target(s), correct 2 (50%)"), std::string::npos)
      << text;
}

// The hardware counters' verdict of each target's best kernel: how many are memory-bound, and how
// many of those reach 85 % of DRAM peak; a target whose best kernel has no counters (the CPU) is
// in neither count, and a slower kernel's counters do not count for its target. A kernel whose
// longest kernel is a library's (a cuDNN convolution it calls) is counted apart: its DRAM share
// says nothing of the kernel's own code.
TEST(SuiteSummary, CountsTheMemoryBoundBestKernelsThatReachTheirShareOfDramPeak) {
  auto counted = [](json::Value r, double dram, const char* bound) {
    r.set("dram_pct", dram).set("bound", bound);
    return r;
  };
  const auto summary = suite_summary(suite_of({
      counted(row("relu", "correct", 1, 1, 1.01, json::Value()), 87, "memory"),
      counted(row("softmax", "correct", 1, 1, 1.02, json::Value()), 66, "memory"),
      counted(row("softmax", "correct", 1, 1, 0.9, json::Value()), 90, "memory"),
      counted(row("gemm", "correct", 1, 1, 1.0, json::Value()), 3, "compute"),
      row("cpu_only", "correct", 1, 1, 2.0, json::Value()),
      counted(row("conv_relu", "correct", 1, 1, 1.01, json::Value()), 7, "memory")
          .set("longest_kernel", "sm90_xmma_fprop_implicit_gemm")
          .set("longest_kernel_own", false),
  }));
  const auto& all = summary["all"];
  EXPECT_EQ(all["memory_bound"].as_int(), 2);
  EXPECT_EQ(all["memory_bound_at_dram_target"].as_int(), 1);
  EXPECT_EQ(all["library_longest"].as_int(), 1);
  EXPECT_NE(suite_summary_text(summary).find(
                "memory-bound by the hardware counters: 2, of which 1 reach 85% of DRAM peak; 1 "
                "whose longest kernel is a library's (counted in neither)"),
            std::string::npos)
      << suite_summary_text(summary);
  // without counters nothing is said
  const auto none = suite_summary(suite_of({row("cpu_only", "correct", 1, 1, 2.0, json::Value())}));
  EXPECT_EQ(suite_summary_text(none).find("memory-bound"), std::string::npos);
}

// The memory-bound best kernels under the DRAM mark are counted by the unit their counters say is
// busiest (the rows' limiter): the SM, L2 or DRAM itself; one whose counters name none (archived
// before they did) is in no such count.
TEST(SuiteSummary, CountsTheKernelsUnderTheDramMarkByTheirBusiestUnit) {
  auto counted = [](const char* task, double dram, const char* limiter) {
    json::Value r = row(task, "correct", 1, 1, 1.5, json::Value());
    r.set("dram_pct", dram).set("bound", "memory");
    if (*limiter) r.set("limiter", limiter).set("limiter_pct", 90.0);
    return r;
  };
  const auto summary = suite_summary(suite_of({
      counted("max_pool", 55, "sm"),
      counted("avg_pool", 74, "l2"),
      counted("depthwise", 68, "l2"),
      counted("cumsum", 80, "dram"),
      counted("relu", 88, "dram"),
      counted("old_profile", 70, ""),
  }));
  const auto& by = summary["all"]["below_dram_target_by_limiter"];
  EXPECT_EQ(by["sm"].as_int(), 1);
  EXPECT_EQ(by["l2"].as_int(), 2);
  EXPECT_EQ(by["dram"].as_int(), 1);  // relu reaches the mark
  EXPECT_NE(suite_summary_text(summary).find(
                "memory-bound by the hardware counters: 6, of which 1 reach 85% of DRAM peak (of "
                "those below, the SM is busiest in 1, L2 in 2, DRAM in 1)\n"),
            std::string::npos)
      << suite_summary_text(summary);
}

TEST(SuiteSummary, TargetsWithKernelsNotYetEvaluatedAreCountedAsPending) {
  const auto summary = suite_summary(suite_of({
      row("a", "correct", 1, 1, 2.0, 1.5),
      row("a", "pending", 0, 0, json::Value(), json::Value()),
      row("b", "pending", 0, 0, json::Value(), json::Value()),
      row("c", "incorrect", 0, 1, 1.0, 1.0),
  }));
  EXPECT_EQ(summary["all"]["targets"].as_int(), 3);
  EXPECT_EQ(summary["all"]["correct"].as_int(), 1);
  EXPECT_EQ(summary["all"]["pending"].as_int(), 2);
  EXPECT_NE(suite_summary_text(summary).find("2 target(s) still pending"), std::string::npos);
}

TEST(SuiteSummary, NothingCorrectHasNoMeanAndSaysThereIsNoCompiledTime) {
  const auto summary = suite_summary(suite_of({row("a", "incorrect", 0, 1, 2.0, 2.0)}));
  EXPECT_TRUE(summary["all"]["geomean_eager"].is_null());
  EXPECT_TRUE(summary["all"]["geomean_compile"].is_null());
  EXPECT_EQ(summary["all"]["correct"].as_int(), 0);
  const auto text = suite_summary_text(summary);
  EXPECT_NE(text.find("correct 0 (0%)"), std::string::npos) << text;
  EXPECT_NE(text.find("no torch.compile time"), std::string::npos) << text;
  EXPECT_EQ(text.find("geometric mean"), std::string::npos) << text;
}

}  // namespace
}  // namespace kforge::cli
