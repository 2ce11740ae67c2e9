// The hardware counters' summary (evaluation/counter_summary) and its place in a profile, on
// records shaped as the worker writes them; the metric values are what an H100 reported for a SAXPY
// (memory-bound), an FMA loop (compute-bound) and cuBLAS's SGEMM.
#include <gtest/gtest.h>

#include "evaluation/counter_summary.hpp"
#include "evaluation/kernel_names.hpp"
#include "evaluation/profile_summary.hpp"

namespace kforge::evaluation {
namespace {

const char* kSaxpy = R"json({"name":"void saxpy(float*, const float*, float, int)","metrics":{
  "duration_ns":293760,"sm_throughput_pct":27.35,"memory_throughput_pct":82.04,
  "dram_throughput_pct":82.04,"l2_throughput_pct":75.33,"l1_throughput_pct":14.81,
  "achieved_occupancy_pct":76.24,"dram_bytes":807859456,"dram_peak_bytes_per_cycle":1280,
  "dram_cycles_per_second":2618736383.4,"sm_cycles_per_second":1978641294.5,"ffma":67108864,
  "fadd":0,"fmul":0,"ffma_peak_per_cycle":16896,"tensor_pipe_pct":0,"inst_issued":39856486,
  "stall_barrier":0,"stall_long_scoreboard":3265285703,"stall_short_scoreboard":136103342,
  "stall_wait":126260272,"stall_drain":45122229,"stall_selected":39854997}})json";

const char* kFmaLoop = R"({"metrics":{
  "duration_ns":270688,"sm_throughput_pct":97.19,"memory_throughput_pct":3.17,
  "dram_throughput_pct":3.17,"l2_throughput_pct":3.0,"l1_throughput_pct":0.9,
  "achieved_occupancy_pct":96.18,"dram_bytes":28803840,"dram_peak_bytes_per_cycle":1280,
  "dram_cycles_per_second":2619032982.6,"sm_cycles_per_second":1976959048.5,"ffma":8589934592,
  "fadd":0,"fmul":0,"ffma_peak_per_cycle":16896,"tensor_pipe_pct":0.09,"inst_issued":274603713,
  "stall_not_selected":2934438329,"stall_wait":819611368,"stall_math_pipe_throttle":178807496,
  "stall_selected":274611244}})";

json::Value parsed(const std::string& text) {
  auto v = json::parse(text);
  EXPECT_TRUE(v) << v.error;
  return v ? *v : json::Value();
}

json::Value counters_of(const std::string& candidate_kernels, const std::string& eager_kernels) {
  return parsed(R"({"config":2,"candidate":{"chip":"GH100","passes":14,"dropped":0,
    "unsupported":[],"kernels":[)" +
                candidate_kernels + R"(]},"reference":{"chip":"GH100",
    "passes":14,"dropped":0,"unsupported":[],"kernels":[)" +
                eager_kernels + "]}}");
}

TEST(CounterSummary, PlacesKernelsOnTheRooflineAndNamesTheirStalls) {
  auto s = summarise_counters(counters_of(std::string(kFmaLoop) + "," + kSaxpy, kSaxpy), "big");
  const auto& candidate = s.doc["candidate"];
  EXPECT_EQ(candidate["kernels"].as_int(), 2);
  EXPECT_EQ(candidate["passes"].as_int(), 14);
  EXPECT_NEAR(candidate["ms"].as_number(), 0.293760 + 0.270688, 1e-9);
  // Longest first: the SAXPY (named, its parameter list dropped), then the unnamed FMA loop.
  const auto& saxpy = candidate["top"][0];
  EXPECT_EQ(saxpy["name"].as_string(), "saxpy");
  EXPECT_EQ(candidate["top"][1]["name"].as_string(), "kernel 1");
  EXPECT_NEAR(saxpy["occupancy_pct"].as_number(), 76.24, 1e-9);
  EXPECT_NEAR(saxpy["dram_pct"].as_number(), 82.04, 1e-9);
  // 2 FLOP per element over 12 bytes: far left of the ridge, and its DRAM share is its roof's.
  EXPECT_EQ(saxpy["roofline"]["bound"].as_string(), "memory");
  EXPECT_NEAR(saxpy["roofline"]["pct_of_roof"].as_number(), 82.0, 0.5);
  EXPECT_NEAR(saxpy["arithmetic_intensity"].as_number(), 2.0 * 67108864 / 807859456, 1e-9);
  // Stalls per issued instruction, largest first, "selected" (issuing) not among them.
  ASSERT_EQ(saxpy["stalls"].as_array().size(), 3u);
  EXPECT_EQ(saxpy["stalls"][0]["reason"].as_string(), "long_scoreboard");
  EXPECT_NEAR(saxpy["stalls"][0]["cycles_per_instruction"].as_number(), 81.93, 0.01);
  EXPECT_EQ(saxpy["stalls"][1]["reason"].as_string(), "short_scoreboard");
  EXPECT_EQ(saxpy["stalls"][2]["reason"].as_string(), "wait");
  // 2^33 FMAs in 0.27 ms: 95 % of the H100's FP32 peak at the clock it ran.
  const auto& fma = candidate["top"][1];
  EXPECT_EQ(fma["roofline"]["bound"].as_string(), "compute");
  EXPECT_NEAR(fma["roofline"]["pct_of_roof"].as_number(), 95.0, 0.5);
  EXPECT_EQ(fma["stalls"][0]["reason"].as_string(), "not_selected");
  // One line for prompts: both sides, the longest kernel of each.
  EXPECT_NE(s.brief.find("counters on big: the kernel's saxpy: occupancy 76%, SM 27%, DRAM 82%"),
            std::string::npos)
      << s.brief;
  EXPECT_NE(s.brief.find("memory-bound at 82% of the roofline"), std::string::npos) << s.brief;
  EXPECT_NE(s.brief.find("stalls long_scoreboard 82"), std::string::npos) << s.brief;
  EXPECT_NE(s.brief.find("; eager's saxpy"), std::string::npos) << s.brief;
  // The candidate's memory-bound kernel under the 85 % mark, and the unit busier than DRAM: none
  // (SM 27 %, L2 75 %); eager's gets no such words.
  EXPECT_NE(s.brief.find(" cycles/instruction (below the 85% of DRAM peak a memory-bound kernel "
                         "should reach; no unit is busier than DRAM: it waits on loads without "
                         "keeping DRAM busy (too few in flight)); eager's"),
            std::string::npos)
      << s.brief;
  EXPECT_EQ(s.brief.find("below the", s.brief.find("; eager's")), std::string::npos) << s.brief;
}

// A memory-bound kernel whose L2 is 10 points or more busier than DRAM (KernelBench's depthwise
// convolutions: L2 95-97 %, DRAM 54-83 %) is told so; one at the mark gets no such words.
TEST(CounterSummary, TheBriefNamesTheUnitBusierThanDram) {
  std::string shared = kSaxpy;
  shared.replace(shared.find("\"l2_throughput_pct\":75.33"), 25, "\"l2_throughput_pct\":96.00");
  auto s = summarise_counters(counters_of(shared, kSaxpy), "big");
  EXPECT_NE(s.brief.find("(below the 85% of DRAM peak a memory-bound kernel should reach; L2 is "
                         "busier (96% of peak): more traffic goes through L2 than through DRAM "
                         "(windows its threads share read again, stores that fill part of a "
                         "sector))"),
            std::string::npos)
      << s.brief;
  std::string streaming = kSaxpy;
  streaming.replace(streaming.find("\"dram_throughput_pct\":82.04"), 27,
                    "\"dram_throughput_pct\":88.00");
  EXPECT_EQ(summarise_counters(counters_of(streaming, kSaxpy), "big").brief.find("below the"),
            std::string::npos);
}

TEST(CounterSummary, TensorCoreKernelsAreNotPlacedOnTheFp32Roofline) {
  std::string tensor = kFmaLoop;
  tensor.replace(tensor.find("\"tensor_pipe_pct\":0.09"), 22, "\"tensor_pipe_pct\":61.5");
  auto s = summarise_counters(counters_of(tensor, ""), "big");
  EXPECT_EQ(s.doc["candidate"]["top"][0]["roofline"]["bound"].as_string(), "tensor");
  EXPECT_NEAR(s.doc["candidate"]["top"][0]["roofline"]["pct_of_roof"].as_number(), 61.5, 1e-9);
  EXPECT_NE(s.brief.find("tensor pipe busy 62%"), std::string::npos) << s.brief;
  // Eager launched nothing the profiler could count.
  EXPECT_EQ(s.doc["reference"]["kernels"].as_int(), 0);
  EXPECT_NE(s.brief.find("eager's no kernels"), std::string::npos) << s.brief;
}

TEST(CounterSummary, AKernelWhoseDataStaysInL2IsPlacedUnderTheComputeRoof) {
  // The FMA loop on a config small enough for L2: no DRAM bytes, still 95 % of the FP32 peak.
  std::string cached = kFmaLoop;
  cached.replace(cached.find("\"dram_bytes\":28803840"), 21, "\"dram_bytes\":0");
  auto s = summarise_counters(counters_of(cached, ""), "small");
  const auto& k = s.doc["candidate"]["top"][0];
  EXPECT_EQ(k["roofline"]["bound"].as_string(), "compute") << k.dump();
  EXPECT_NEAR(k["roofline"]["pct_of_roof"].as_number(), 95.0, 0.5) << k.dump();
  EXPECT_FALSE(k.contains("arithmetic_intensity")) << k.dump();
}

TEST(CounterSummary, RefusedCountersAreSaidAndTheRestOfTheProfileStays) {
  auto refused =
      parsed(R"({"error":"enabling the range profiler: CUPTI_ERROR_INSUFFICIENT_PRIVILEGES"})");
  auto s = summarise_counters(refused, "big");
  EXPECT_EQ(s.doc["error"].as_string(), refused["error"].as_string());
  EXPECT_EQ(s.brief,
            "no hardware counters: enabling the range profiler: "
            "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES");
  // In a profile: the timing, the trace and what the counters say, refused or read.
  for (const json::Value& counters : {refused, counters_of(kSaxpy, kSaxpy)}) {
    json::Value record = parsed(
        R"({"index":0,"name":"big","correct":true,"candidate":{"median_ms":0.3},
            "reference":{"median_ms":0.6},"speedup":2.0,"bytes_moved":8e8,
            "speed_of_light_ms":0.25,"trace":{"config":0,"candidate":[],"reference":[]}})");
    record.set("counters", counters);
    auto config = read_config_report(record);
    auto p = make_profile("cuda", {}, {config});
    ASSERT_TRUE(p.doc.contains("counters")) << p.doc.dump();
    EXPECT_NE(p.brief.find("of the speed-of-light bound; trace on big"), std::string::npos)
        << p.brief;
    EXPECT_NE(p.brief.find(counters.contains("error") ? "; no hardware counters: enabling"
                                                      : "; counters on big: the kernel's saxpy"),
              std::string::npos)
        << p.brief;
  }
}

TEST(CounterSummary, ASideThatCouldNotBeCountedIsSaidAndTheOtherSideStays) {
  // The worker records a side whose counting failed as that side's error (the kernel's first
  // profiled call too slow for the passes left) and still counts the other.
  auto record = counters_of(kSaxpy, kSaxpy);
  const std::string why =
      "one profiled call took 41.2 s: the 27 passes left would overrun the "
      "counters budget";
  json::Value failed;
  record.set("candidate", failed.set("error", why));
  auto s = summarise_counters(record, "big");
  EXPECT_FALSE(s.doc.contains("error")) << s.doc.dump();
  EXPECT_EQ(s.doc["candidate"]["error"].as_string(), why);
  EXPECT_FALSE(s.doc["candidate"].contains("top")) << s.doc.dump();
  EXPECT_EQ(s.doc["reference"]["top"][0]["name"].as_string(), "saxpy");
  EXPECT_EQ(
      s.brief.rfind("counters on big: the kernel's not read (" + why + "); eager's saxpy: ", 0), 0u)
      << s.brief;
  EXPECT_EQ(s.brief.find("below the"), std::string::npos) << s.brief;
}

TEST(CounterSummary, KernelNamesAsCuptiDemanglesThem) {
  // Names from the H100's traces: an anonymous namespace before the name, template arguments
  // with parentheses inside, and cuBLAS's long names.
  EXPECT_EQ(short_kernel_name("(anonymous namespace)::softmax_f32_row_per_block(const float *, "
                              "float *, int)",
                              80),
            "softmax_f32_row_per_block");
  EXPECT_EQ(short_kernel_name("void kforge_fixture::gemm_f32_tiled<true>(const float *, int)", 80),
            "kforge_fixture::gemm_f32_tiled<true>");
  EXPECT_EQ(short_kernel_name("void at::native::vectorized_elementwise_kernel<4, "
                              "at::native::launch_clamp_scalar(at::TensorIteratorBase &)::"
                              "{lambda()#1}, at::detail::Array<char *, 2>>(int, T2, T3)",
                              60),
            "at::native::vectorized_elementwise_kernel<4, at::native::...");
  EXPECT_EQ(short_kernel_name("sm80_xmma_gemm_f32f32_f32f32_f32_tn_n", 80),
            "sm80_xmma_gemm_f32f32_f32f32_f32_tn_n");
  EXPECT_EQ(short_kernel_name("(weird)", 80), "(weird)");
}

TEST(CounterSummary, SaysWhichKernelsTheBudgetLeftUncounted) {
  // The kernel's side: SAXPY counted, a later kernel left; eager's: the budget spent before it.
  auto record = parsed(R"({"config":2,"candidate":{"chip":"GH100","passes":14,"dropped":0,
    "unsupported":[],"budget_s":10,"kernels":[)" +
                       std::string(kSaxpy) + R"(],
    "skipped":[{"name":"late","ms":2.5}]},
    "reference":{"budget_s":10,"skipped":[{"name":"a","ms":1},{"name":"b","ms":0.5}]}})");
  auto s = summarise_counters(record, "big");
  EXPECT_EQ(s.doc["candidate"]["kernels"].as_int(), 1);
  EXPECT_EQ(s.doc["candidate"]["skipped"].as_int(), 1);
  EXPECT_DOUBLE_EQ(s.doc["candidate"]["skipped_ms"].as_number(), 2.5);
  EXPECT_EQ(s.doc["reference"]["kernels"].as_int(), 0);
  EXPECT_EQ(s.doc["reference"]["skipped"].as_int(), 2);
  EXPECT_DOUBLE_EQ(s.doc["reference"]["skipped_ms"].as_number(), 1.5);
  // A record without "skipped_why" (written before graphs were told apart) was the budget's.
  EXPECT_EQ(s.doc["candidate"]["skipped_why"].as_string(), "budget");
  EXPECT_NE(s.brief.find("1 later kernel(s), 2.5 ms, not counted: the 10 s counters budget "
                         "(evaluation.counters_budget_s) was spent"),
            std::string::npos)
      << s.brief;
  EXPECT_NE(s.brief.find("eager's no kernels (its 2 kernel(s), 1.5 ms, not counted: the 10 s "
                         "counters budget (evaluation.counters_budget_s) was spent)"),
            std::string::npos)
      << s.brief;
}

TEST(CounterSummary, SaysKernelsThatRanInACudaGraphWereNotCounted) {
  auto record = parsed(R"({"config":0,"candidate":{"budget_s":10,"skipped_why":"graph",
    "skipped":[{"name":"k4_graph","ms":3.4},{"name":"k3_graph","ms":2.4}]},
    "reference":{"chip":"GH100","passes":14,"dropped":0,"unsupported":[],"budget_s":10,
    "kernels":[)" + std::string(kSaxpy) +
                       R"(]}})");
  auto s = summarise_counters(record, "big");
  EXPECT_EQ(s.doc["candidate"]["skipped_why"].as_string(), "graph");
  EXPECT_NE(s.brief.find("the kernel's no kernels (its 2 kernel(s), 5.8 ms, not counted: they ran "
                         "in a CUDA graph, whose kernels CUPTI's range profiler does not count)"),
            std::string::npos)
      << s.brief;
  EXPECT_EQ(s.brief.find("budget"), std::string::npos) << s.brief;
  EXPECT_EQ(s.doc["reference"]["kernels"].as_int(), 1);
}

}  // namespace
}  // namespace kforge::evaluation
