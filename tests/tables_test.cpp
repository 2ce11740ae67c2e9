// How the experiment table reads (tools/kforge/tables.hpp): here, what it says of a target's best
// kernel from the hardware counters.
#include <gtest/gtest.h>

#include "common/json.hpp"
#include "evaluation/compiler.hpp"
#include "tools/kforge/tables.hpp"

namespace kforge::test {
namespace {

json::Value experiment_with(const std::string& counters) {
  auto doc = json::parse(R"({"targets":[{"target":"softmax/forward/cuda","candidates":3,
      "correct":2,"best_candidate":7,"best_speedup":1.02,"best_timed":"once","best_after":2,
      "best_strategy":"generated_cuda","best_params":{},"best_counters":)" +
                         counters + "}]}");
  EXPECT_TRUE(doc.value) << doc.error;
  return doc.value ? *doc.value : json::Value();
}

TEST(ExperimentTable, SaysWhetherAMemoryBoundBestKernelReachesItsShareOfDramPeak) {
  const std::string below = cli::experiment_table(experiment_with(
      R"({"config":"batch_size=4096","kernel":"cfg0::k0","dram_pct":66.4,"bound":"memory"})"));
  EXPECT_NE(below.find("hardware counters on batch_size=4096: its longest kernel (cfg0::k0) is "
                       "memory-bound, 66% of DRAM peak: below the 85%"),
            std::string::npos)
      << below;
  // below the mark, the unit its counters say is busiest says why
  for (const auto& [limiter, why] :
       {std::pair{R"("limiter":"sm","limiter_pct":97)",
                  "below the 85% a memory-bound kernel should reach; its SM is busier (97% of "
                  "peak): its instructions set its pace\n"},
        std::pair{
            R"("limiter":"l2","limiter_pct":96)",
            "below the 85% a memory-bound kernel should reach; L2 is busier (96% of peak): more "
            "traffic goes through L2 than through DRAM (windows its threads share read again, "
            "stores that fill part of a sector)\n"},
        std::pair{R"("limiter":"dram","limiter_pct":80)",
                  "below the 85% a memory-bound kernel should reach; no unit is busier than DRAM: "
                  "it waits on loads without keeping DRAM busy (too few in flight)\n"}}) {
    const std::string table = cli::experiment_table(experiment_with(
        std::string(R"({"config":"n=1","kernel":"cfg0::k0","dram_pct":62,"bound":"memory",)") +
        limiter + "}"));
    EXPECT_NE(table.find(why), std::string::npos) << table;
  }
  // counters archived without the units' shares: the mark alone
  EXPECT_NE(below.find("below the 85% a memory-bound kernel should reach\n"), std::string::npos)
      << below;
  const std::string at = cli::experiment_table(
      experiment_with(R"({"config":"n=1","kernel":"cfg0::k0","dram_pct":87,"bound":"memory"})"));
  EXPECT_NE(at.find("87% of DRAM peak: at or above the 85%"), std::string::npos) << at;
  // a compute-bound kernel is not held to the memory mark
  const std::string compute = cli::experiment_table(
      experiment_with(R"({"config":"n=1","kernel":"gemm","dram_pct":3,"bound":"compute"})"));
  EXPECT_NE(compute.find("is compute-bound, 3% of DRAM peak\n"), std::string::npos) << compute;
  // a library's kernel (the cuDNN convolution a kernel calls) is not held to it either
  const std::string library = cli::experiment_table(experiment_with(
      R"({"config":"n=1","kernel":"sm90_xmma_fprop_implicit_gemm","own":false,"dram_pct":7,)"
      R"("bound":"memory"})"));
  EXPECT_NE(library.find("is memory-bound, 7% of DRAM peak: a library's kernel the candidate "
                         "calls, not its own code\n"),
            std::string::npos)
      << library;
}

// `kforge show`: a kernel nvcc crashed on, built again with kCompilerCrashFlags, says so on its
// compile line (its compile log, as the archive keeps it, begins with kCompilerCrashNote).
TEST(CandidateReport, SaysWhenNvccCrashedAndTheKernelWasBuiltWithLessOptimisation) {
  auto candidate = [](const std::string& log) {
    json::Value compile;
    compile.set("ok", true).set("cache_hit", false).set("seconds", 40.5).set("headers", "light");
    compile.set("log", log);
    json::Value c;
    c.set("id", 4).set("experiment_id", 1).set("task", "t").set("direction", "forward");
    c.set("backend", "cuda").set("proposer", "builtin").set("strategy", "generated_cuda");
    c.set("compile", compile);
    c.set("verdicts", json::Value().array()).set("results", json::Value().array());
    return c;
  };
  const auto crashed = cli::candidate_report(
      candidate(std::string(evaluation::kCompilerCrashNote) + "ptxas info"), false);
  EXPECT_NE(crashed.find("compile: 40.5 s, kforge's light headers; nvcc crashed on it, built "
                         "again with -Xcicc -O1\n"),
            std::string::npos)
      << crashed;
  const auto plain = cli::candidate_report(candidate("ptxas info"), false);
  EXPECT_NE(plain.find("compile: 40.5 s, kforge's light headers\n"), std::string::npos) << plain;
}

// `kforge show`'s counters: a side that could not be counted says why; the other side's kernels
// are listed as usual.
TEST(CandidateReport, CountersOfOneSideAloneNotReadAreSaidBesideTheOtherSide) {
  auto doc = json::parse(R"({"config":"big","candidate":{"error":"one profiled call took 41 s"},
      "reference":{"kernels":1,"ms":0.29,"passes":14,"top":[{"name":"saxpy","ms":0.29,
      "occupancy_pct":76,"sm_pct":27,"dram_pct":82,"l2_pct":75,
      "roofline":{"bound":"memory","pct_of_roof":82},"stalls":[]}]}})");
  ASSERT_TRUE(doc.value) << doc.error;
  const auto table = cli::counters_table(*doc.value);
  EXPECT_NE(table.find("hardware counters on big:\n  the kernel: not read: one profiled call "
                       "took 41 s\n  eager PyTorch: 1 kernel(s), 0.2900 ms, 14 counter passes "
                       "each\n"),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("saxpy"), std::string::npos) << table;
}

// Kernels left uncounted say why: the budget, or a CUDA graph the profiler does not count.
TEST(CandidateReport, UncountedKernelsSayWhetherTheBudgetOrAGraphLeftThem) {
  auto doc = json::parse(R"({"config":"big",
      "candidate":{"kernels":0,"ms":0,"passes":0,"top":[],"skipped":14839,"skipped_ms":42.6,
        "budget_s":10,"skipped_why":"graph"},
      "reference":{"kernels":0,"ms":0,"passes":0,"top":[],"skipped":2,"skipped_ms":1.5,
        "budget_s":10}})");
  ASSERT_TRUE(doc.value) << doc.error;
  const auto table = cli::counters_table(*doc.value);
  EXPECT_NE(
      table.find("the kernel: none of its 14839 kernel(s) (42.6000 ms traced) counted: they "
                 "ran in a CUDA graph, whose kernels CUPTI's range profiler does not count\n"),
      std::string::npos)
      << table;
  EXPECT_NE(
      table.find("eager PyTorch: none of its 2 kernel(s) (1.5000 ms traced) counted: the 10 s "
                 "counters budget (evaluation.counters_budget_s) was spent\n"),
      std::string::npos)
      << table;
}

}  // namespace
}  // namespace kforge::test
