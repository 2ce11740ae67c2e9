// The worker's protocol as the supervisor enforces it (evaluation/worker_protocol.hpp): stage
// limits are the supervisor's, lines only move an evaluation forward and never past the request's
// total, and an infrastructure error once candidate code ran counts against the candidate. Then, on
// a real worker, a speedup above the request's flag is measured again in a fresh worker, and a
// wrong value in any slice of a large output is found; a GPU out of memory others filled is no
// verdict; a device that breaks after every check passed, or a worker lost while recording the
// trace or counters of a kernel every config of which was correct, is judged again in a fresh
// worker.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "evaluation/hashing.hpp"
#include "evaluation/worker_client.hpp"
#include "evaluation/worker_protocol.hpp"
#include "tests/test_support.hpp"

namespace kforge::test {
namespace {

using evaluation::ProtocolMonitor;
using evaluation::Stage;
using evaluation::step_event;

evaluation::WorkerRequest request_with(double call_timeout_s, int seeds) {
  evaluation::WorkerRequest r;
  r.call_timeout_s = call_timeout_s;
  r.seeds = seeds;
  return r;
}

TEST(WorkerProtocol, AStageTakesTheSupervisorsLimitWhateverTheWorkerClaims) {
  ProtocolMonitor monitor(request_with(5, 2), {0, 3});
  EXPECT_EQ(monitor.accept(step_event(Stage::load_task, "load")), "");
  auto claim = step_event(Stage::candidate, "config 0 seed 0: candidate", 0, 0);
  claim.set("timeout_ms", 9000000000.0);
  EXPECT_EQ(monitor.accept(claim), "");
  EXPECT_DOUBLE_EQ(monitor.stage_limit_s(), 5);
  // Comparing outputs is kforge's code alone, with a float64 reference maybe: its own stage, a
  // longer limit than the candidate's call.
  EXPECT_EQ(monitor.accept(step_event(Stage::compare, "config 0 seed 0: compare", 0, 0)), "");
  EXPECT_DOUBLE_EQ(monitor.stage_limit_s(), 2 * 5 + 60);
  EXPECT_EQ(monitor.accept(step_event(Stage::candidate_again, "", 0, 0)), "");
  EXPECT_DOUBLE_EQ(monitor.stage_limit_s(), 5);
  // A plan may shorten the timing stage, never lengthen it past what the request allows.
  ProtocolMonitor timing(request_with(5, 1), {0});
  auto huge_plan = step_event(Stage::timing, "timing", 0, std::nullopt, 1e9);
  EXPECT_EQ(timing.accept(huge_plan), "");
  const double cap = timing.stage_limit_s();
  EXPECT_LT(cap, 1000);
  ProtocolMonitor planned(request_with(5, 1), {0});
  EXPECT_EQ(planned.accept(step_event(Stage::timing, "timing", 0, std::nullopt, 2)), "");
  EXPECT_LT(planned.stage_limit_s(), cap);
  // So may the counters' plan (from the config's timed calls): 20 calls at the call timeout
  // otherwise, over 20 minutes at the default 60 s.
  auto r = request_with(60, 1);
  r.counters = true;
  ProtocolMonitor unplanned(r, {0});
  EXPECT_EQ(unplanned.accept(step_event(Stage::counters, "counters", 0)), "");
  EXPECT_DOUBLE_EQ(unplanned.stage_limit_s(), 20 * 60 + 120 + r.counters_budget_s);
  ProtocolMonitor counted(r, {0});
  EXPECT_EQ(counted.accept(step_event(Stage::counters, "counters", 0, std::nullopt, 30)), "");
  EXPECT_DOUBLE_EQ(counted.stage_limit_s(), 3 * 30 + 60 + 60);
  ProtocolMonitor overplanned(r, {0});
  EXPECT_EQ(overplanned.accept(step_event(Stage::counters, "counters", 0, std::nullopt, 1e6)), "");
  EXPECT_DOUBLE_EQ(overplanned.stage_limit_s(), unplanned.stage_limit_s());
}

// Every stage has a name its events carry, read back to the same stage, and a group `kforge
// eval`'s time line shows it under (the checker's own comparison under "checker", not checks).
TEST(WorkerProtocol, EveryStageHasANameReadBackAndAGroup) {
  const std::set<std::string_view> groups{"loading", "checks",       "checker",
                                          "timing",  "kernel trace", "hardware counters"};
  for (int i = static_cast<int>(Stage::load_task); i <= static_cast<int>(Stage::counters); ++i) {
    const auto stage = static_cast<Stage>(i);
    const auto name = evaluation::stage_name(stage);
    EXPECT_NE(name, "?") << i;
    EXPECT_EQ(evaluation::stage_named(name), stage) << name;
    EXPECT_TRUE(groups.count(evaluation::stage_group(stage))) << name;
  }
  EXPECT_EQ(evaluation::stage_group(Stage::checker_compare), "checker");
  EXPECT_EQ(evaluation::stage_group(Stage::compare_again), "checks");
  EXPECT_EQ(evaluation::stage_group(Stage::refilled), "timing");
  EXPECT_FALSE(evaluation::stage_named("start"));  // the supervisor's own, before any step
}

TEST(WorkerProtocol, StepsOnlyMoveForwardOverTheConfigsAndSeedsRequested) {
  ProtocolMonitor monitor(request_with(5, 2), {0, 3});
  EXPECT_EQ(monitor.accept(step_event(Stage::load_task, "")), "");
  EXPECT_EQ(monitor.accept(step_event(Stage::load_candidate, "")), "");
  EXPECT_EQ(monitor.accept(step_event(Stage::draw, "", 0, 0)), "");
  EXPECT_EQ(monitor.accept(step_event(Stage::candidate, "", 0, 0)), "");
  // Back to an earlier stage of the same seed: a line the worker does not write.
  EXPECT_NE(monitor.accept(step_event(Stage::draw, "", 0, 0)), "");

  ProtocolMonitor other(request_with(5, 2), {0, 3});
  EXPECT_NE(other.accept(step_event(Stage::draw, "", 1, 0)), "") << "config 1 is not requested";
  EXPECT_NE(other.accept(step_event(Stage::draw, "", 3, 2)), "") << "two seeds: 0 and 1";
  auto no_stage = step_event(Stage::draw, "", 0, 0);
  no_stage.set("stage", "sleep");
  EXPECT_NE(other.accept(no_stage), "");
  json::Value unknown;
  unknown.set("event", "note");
  EXPECT_NE(other.accept(unknown), "");
  EXPECT_NE(other.accept(json::Value(std::string("verdict: correct"))), "");

  // The whole order of an evaluation of two configs, timed, traced and counted, is accepted.
  auto r = request_with(5, 2);
  r.trace = r.counters = true;
  ProtocolMonitor full(r, {0, 3});
  EXPECT_EQ(full.accept(step_event(Stage::load_task, "")), "");
  EXPECT_EQ(full.accept(step_event(Stage::load_candidate, "")), "");
  for (size_t config : {0, 3}) {
    for (int seed : {0, 1})
      for (Stage s : {Stage::draw, Stage::candidate, Stage::synchronise, Stage::reference,
                      Stage::compare, Stage::candidate_again, Stage::compare_again})
        EXPECT_EQ(full.accept(step_event(s, "", config, seed)), "");
    for (Stage s :
         {Stage::prepare_timing, Stage::compiled_baseline, Stage::warm_up, Stage::timing,
          Stage::timed_output, Stage::refilled, Stage::refilled_compare, Stage::cold_timing})
      EXPECT_EQ(full.accept(step_event(s, "", config)), "");
    json::Value result;
    result.set("event", "config").set("index", static_cast<int64_t>(config));
    EXPECT_EQ(full.accept(result), "");
  }
  EXPECT_EQ(full.accept(step_event(Stage::trace, "", 3)), "");
  EXPECT_EQ(full.accept(step_event(Stage::counters, "", 3)), "");

  // Timing, the trace and the counters come only when the request asks for them.
  auto untimed = request_with(5, 1);
  untimed.time = false;
  ProtocolMonitor checks_only(untimed, {0});
  EXPECT_NE(checks_only.accept(step_event(Stage::timing, "", 0)), "");
  EXPECT_NE(checks_only.accept(step_event(Stage::trace, "", 0)), "");
  auto traced = request_with(5, 1);
  traced.trace = true;
  ProtocolMonitor trace_only(traced, {0});
  EXPECT_NE(trace_only.accept(step_event(Stage::counters, "", 0)), "");
  EXPECT_EQ(trace_only.accept(step_event(Stage::trace, "", 0)), "");
}

TEST(WorkerProtocol, NoLineTakesTheEvaluationPastTheRequestsTotal) {
  // Forged steps can walk an evaluation forward stage by stage, each with a fresh limit; the
  // total of all of them is fixed by the request before the first line arrives.
  auto r = request_with(5, 2);
  ProtocolMonitor monitor(r, {0, 3});
  const double total = monitor.total_limit_s();
  double walked = 0;
  auto take = [&](const json::Value& e) {
    ASSERT_EQ(monitor.accept(e), "");
    walked += monitor.stage_limit_s();
  };
  take(step_event(Stage::load_task, ""));
  take(step_event(Stage::load_candidate, ""));
  for (size_t config : {0, 3}) {
    for (int seed : {0, 1})
      for (Stage s : {Stage::draw, Stage::candidate, Stage::synchronise, Stage::reference,
                      Stage::compare, Stage::candidate_again, Stage::compare_again})
        take(step_event(s, "", config, seed));
    for (Stage s :
         {Stage::prepare_timing, Stage::compiled_baseline, Stage::warm_up, Stage::timing,
          Stage::timed_output, Stage::refilled, Stage::refilled_compare, Stage::cold_timing})
      take(step_event(s, "", config));
  }
  EXPECT_LE(walked, total);
  EXPECT_LT(total, 3 * 3600) << "two configs, two seeds, 5 s calls";
}

TEST(WorkerProtocol, AnInfrastructureErrorAfterCandidateCodeRanCountsAgainstTheCandidate) {
  json::Value error;
  error.set("event", "result").set("verdict", "error");
  ProtocolMonitor before(request_with(5, 1), {0});
  EXPECT_EQ(before.accept(step_event(Stage::load_task, "")), "");
  EXPECT_EQ(before.accept(error), "") << "the task failed to load: kforge's error";
  ProtocolMonitor after(request_with(5, 1), {0});
  EXPECT_EQ(after.accept(step_event(Stage::load_task, "")), "");
  EXPECT_EQ(after.accept(step_event(Stage::load_candidate, "")), "");
  EXPECT_NE(after.accept(error), "");
  json::Value fatal;
  fatal.set("event", "fatal").set("kind", "infrastructure");
  EXPECT_NE(after.accept(fatal), "");
}

// With the flag at 1.0x, an honest kernel faster than eager is measured twice: the result
// reported is the fresh worker's, and says what the first one measured.
TEST(WorkerRetiming, ASpeedupAboveTheFlagIsMeasuredAgainInAFreshWorker) {
  evaluation::WorkerClient worker(evaluation::WorkerOptions{});
  auto request = test_request("forward", "multi", 1);
  request.configs = {0};
  request.speedup_flag = 1e-6;
  auto e = evaluate(worker, evaluation::Backend::cpu, "softmax",
                    source_dir() + "/tasks/softmax/kernels/forward_cpu.cpp", request);
  ASSERT_EQ(e.verdict(), "correct") << e.describe();
  const auto& retimed = e.outcome.result["retimed_in_fresh_worker"];
  ASSERT_TRUE(retimed.is_object()) << e.describe();
  EXPECT_EQ(retimed["first_speedups"].as_array().size(), 1u);
  EXPECT_GT(e.outcome.result["configs"][0]["speedup"].as_number(), 0);
}

// The checker starts beside the worker and confirms the first result: it is not started again
// after the worker's evaluation. (Started from a thread of its own, it died with that thread, its
// parent-death signal's, and a second one started once the result was in: each checker process
// started twice, the second start, a CUDA context's seconds on a GPU, after the result.) A checker
// started after the result starts at least the worker's start and evaluation after the worker; one
// started beside it, within half that. (The timing's plan comes from one warm-up call: on a busy
// machine a slow one left the 1.5 s of timing at 0.4 s, so the bound counts the worker's start,
// its libraries' second or more, too.)
TEST(WorkerChecker, StartsBesideTheWorkerAndConfirmsItsFirstResult) {
  evaluation::WorkerClient worker(evaluation::WorkerOptions{});
  auto request = test_request("forward", "multi", 2, 1.5);  // timed for 1.5 s
  request.configs = {0, 1};                                 // 128 x 999 and 3 x 17
  request.timing.min_reps = 1000000;
  request.timing.max_reps = 1000000;
  auto e = evaluate(worker, evaluation::Backend::cpu, "softmax",
                    source_dir() + "/tasks/softmax/kernels/forward_cpu.cpp", request);
  ASSERT_EQ(e.verdict(), "correct") << e.describe();
  double evaluating = 0;  // the worker's start and stages until its result, the checker's aside
  for (const auto& [stage, seconds] : e.outcome.result["stage_seconds"].as_object())
    if (stage != "checker") evaluating += seconds.as_number();
  ASSERT_GT(evaluating, 1.0) << e.outcome.result["stage_seconds"].dump();
  const auto worker_pid = static_cast<pid_t>(worker.ready()["pid"].as_int());
  double worker_start = 0;
  std::vector<double> checker_starts;
  for (const auto& p : live_processes()) {
    if (p.pid == worker_pid) worker_start = p.started_s;
    if (p.parent == ::getpid() && p.command.find("--checker") != std::string::npos)
      checker_starts.push_back(p.started_s);
  }
  ASSERT_EQ(checker_starts.size(), 1u);
  ASSERT_GT(worker_start, 0);
  const double checker_start = checker_starts[0];
  ASSERT_GT(checker_start, 0);
  EXPECT_LT(checker_start - worker_start, evaluating / 2)
      << "the checker that confirmed the result started " << checker_start - worker_start
      << " s after the worker, whose start and evaluation took " << evaluating << " s";
}

// A GPU's outputs are compared in slices of 2^24 elements (a whole-tensor comparison ran out of GPU
// memory on KernelBench's largest outputs), a CPU's in one pass over chunks in parallel
// (checks.cpp): on this CPU worker, a wrong value or a NaN far past the first 2^24 elements of
// 67M is still counted, once, through the whole protocol; WorkerChecks compares both passes.
TEST(WorkerComparison, AWrongValueInAnySliceOfALargeOutputIsFound) {
  const std::string fixture =
      evaluation::read_file(source_dir() + "/tasks/softmax/kernels/forward_cpu.cpp").text;
  const std::string end = "  return out;\n}";
  ASSERT_NE(fixture.find(end), std::string::npos);
  auto variant = [&](const std::string& name, const std::string& statement) {
    std::string source = fixture;
    source.replace(source.find(end), end.size(), "  " + statement + "\n" + end);
    const auto path = std::filesystem::temp_directory_path() / ("kforge_slices_" + name + ".cpp");
    std::ofstream(path) << source;
    return path.string();
  };
  evaluation::WorkerClient worker(evaluation::WorkerOptions{});
  auto request = test_request("forward", "multi", 1);
  request.configs = {3};  // 8192 x 8192: four slices
  // With the default call limit (60 s): comparing 67M values once shared the reference's stage
  // and its limit of a call, and on a loaded 2-core CI machine passed it (a timeout verdict, two
  // CI runs of 2026-11-29); it is a stage of its own now (worker_protocol.cpp, stage_limit).
  auto last = evaluate(worker, evaluation::Backend::cpu, source_dir() + "/tasks/softmax",
                       variant("last", "o[rows * cols - 1] += 1.0f;"), request);
  EXPECT_EQ(last.failure_kind(), "mismatch") << last.describe();
  EXPECT_NE(last.outcome.result["failure"]["message"].as_string().find("1 of 67108864 values"),
            std::string::npos)
      << last.describe();
  auto nan = evaluate(worker, evaluation::Backend::cpu, source_dir() + "/tasks/softmax",
                      variant("nan", "o[(int64_t{1} << 24) + 5] = NAN;"), request);
  EXPECT_EQ(nan.failure_kind(), "unwritten_output") << nan.describe();
  EXPECT_NE(nan.outcome.result["failure"]["message"].as_string().find("1 of 67108864 values"),
            std::string::npos)
      << nan.describe();
  EXPECT_NE(nan.outcome.result["failure"]["message"].as_string().find(
                "1 of them NaN in the kernel's output only"),
            std::string::npos)
      << nan.describe();
}

// A worker that cannot start says nothing about the candidate: the evaluation is tried once more
// with a fresh worker (as the evaluator actor and `kforge eval` both do), and the error reported is
// the infrastructure's, never a verdict on the kernel.
TEST(WorkerRetry, AnInfrastructureFailureIsTriedOnceMoreWithAFreshWorker) {
  evaluation::WorkerOptions o;
  o.worker_path = "/nonexistent/kforge-worker";
  o.allow_unconfined = true;
  evaluation::WorkerClient worker(o);
  std::vector<std::string> retries;
  auto outcome =
      evaluation::evaluate_candidate(worker, test_request("forward", "single", 1), {},
                                     [&](const std::string& why) { retries.push_back(why); });
  ASSERT_EQ(retries.size(), 1u);
  EXPECT_NE(retries[0].find("/nonexistent/kforge-worker"), std::string::npos) << retries[0];
  EXPECT_EQ(outcome.result["verdict"].as_string(), "error") << outcome.result.dump();
  EXPECT_EQ(outcome.result["failure"]["kind"].as_string(), "infrastructure");
}

// The stand-in worker (tests/fakes/faulting_worker.cpp) in a scratch folder of its own, and a
// request for softmax's single configs that it answers.
struct StandIn {
  std::filesystem::path scratch;
  evaluation::WorkerOptions options;
  evaluation::WorkerRequest request = test_request("forward", "single", 1);
  explicit StandIn(const std::string& name)
      : scratch(std::filesystem::temp_directory_path() / (name + std::to_string(::getpid()))) {
    std::filesystem::create_directories(scratch);
    options.worker_path = KFORGE_FAULTING_WORKER;
    options.scratch_dir = scratch.string();
    options.allow_unconfined = true;
    options.verify = false;
    request.export_dir = exported(source_dir() + "/tasks/softmax").dir;
  }
  ~StandIn() { std::filesystem::remove_all(scratch); }
};

// A device fault found after a correct result came from the calls that record the kernel's trace
// or counters (a counters pass under another process's load failed a correct kernel on the GPU
// host): judged again in a fresh worker, one clean evaluation makes it correct with a flag, and
// the same fault twice makes it incorrect, saying so. The worker here is a stand-in whose device
// breaks on the supervisor's sync after the result, in as many processes as `faults_left` says.
TEST(WorkerRetry, ADeviceFaultAfterEveryCheckPassedIsJudgedInAFreshWorker) {
  StandIn stand_in("kforge_faulting_worker_");
  const auto& scratch = stand_in.scratch;
  const auto& o = stand_in.options;
  auto request = stand_in.request;
  auto judge = [&](int faults, std::vector<std::string>& retries) {
    std::ofstream(scratch / "faults_left") << faults;
    evaluation::WorkerClient worker(o);
    return evaluation::evaluate_candidate(worker, request, {},
                                          [&](const std::string& why) { retries.push_back(why); })
        .result;
  };
  std::vector<std::string> none, once, twice;
  EXPECT_EQ(judge(0, none)["verdict"].as_string(), "correct");
  EXPECT_TRUE(none.empty());

  auto clean_second = judge(1, once);
  EXPECT_EQ(clean_second["verdict"].as_string(), "correct") << clean_second.dump();
  ASSERT_EQ(once.size(), 1u);
  EXPECT_NE(once[0].find("after every check passed"), std::string::npos) << once[0];
  ASSERT_EQ(clean_second["flags"].as_array().size(), 1u) << clean_second.dump();
  const std::string flag = clean_second["flags"][0].as_string();
  EXPECT_EQ(flag.rfind(evaluation::kDeviceFaultOnceFlag, 0), 0u) << flag;
  EXPECT_NE(flag.find("cudaErrorLaunchFailure"), std::string::npos) << flag;

  auto both = judge(2, twice);
  EXPECT_EQ(twice.size(), 1u) << "one more evaluation, not more";
  EXPECT_EQ(both["verdict"].as_string(), "incorrect") << both.dump();
  EXPECT_EQ(both["failure"]["kind"].as_string(), "illegal_memory_access");
  EXPECT_NE(both["failure"]["message"].as_string().find("; the first worker failed the same way ("),
            std::string::npos)
      << both.dump();

  // A fault at the counters (or at the trace), which would come again with them: the fresh
  // worker's evaluation records no counters (neither trace nor counters), and its clean verdict
  // stands.
  std::ofstream(scratch / "faults_need_profiler") << "";
  for (const auto& [trace, words] :
       {std::pair{false,
                  "at `counters`); a fresh worker's evaluation without the hardware "
                  "counters was clean"},
        std::pair{true,
                  "at `trace`); a fresh worker's evaluation without the kernel trace and "
                  "the hardware counters was clean"}}) {
    request.trace = trace;
    request.counters = !trace;
    std::vector<std::string> profiled;
    auto counted = judge(2, profiled);
    EXPECT_EQ(counted["verdict"].as_string(), "correct") << counted.dump();
    EXPECT_EQ(profiled.size(), 1u);
    ASSERT_EQ(counted["flags"].as_array().size(), 1u) << counted.dump();
    EXPECT_NE(counted["flags"][0].as_string().find(words), std::string::npos) << counted.dump();
    int left = 0;
    std::ifstream(scratch / "faults_left") >> left;
    EXPECT_EQ(left, 1) << "the second worker was asked for no profile";
  }
}

// A worker lost while it recorded the kernel trace or the hardware counters, after every config
// was reported correct (the full-size 36_LSTMHn's counters ran for minutes on an H100 after its
// correct timing, past any wait a user would make), is judged again in a fresh worker without
// what it was recording: the verdict is the clean second evaluation's, with a flag that says what
// the first worker met. The stand-in dies of SIGSEGV at the first such step.
TEST(WorkerRetry, AWorkerLostWhileRecordingACorrectKernelIsJudgedAgainWithoutTheRecord) {
  StandIn stand_in("kforge_lost_worker_");
  const auto& scratch = stand_in.scratch;
  const auto& o = stand_in.options;
  auto request = stand_in.request;
  request.configs = {0};
  // One evaluation whose first worker dies at the trace or counters step.
  auto judge = [&](std::vector<std::string>& retries) {
    std::ofstream(scratch / "lost_at_profiler") << 1;
    evaluation::WorkerClient worker(o);
    return evaluation::evaluate_candidate(worker, request, {},
                                          [&](const std::string& why) { retries.push_back(why); })
        .result;
  };
  for (const auto& [counters_only, words] :
       {std::pair{false,
                  "a fresh worker's evaluation without the kernel trace and the hardware "
                  "counters was clean"},
        std::pair{true, "a fresh worker's evaluation without the hardware counters was clean"}}) {
    request.trace = !counters_only;
    request.counters = true;
    std::vector<std::string> retries;
    auto result = judge(retries);
    EXPECT_EQ(result["verdict"].as_string(), "correct") << result.dump();
    ASSERT_EQ(retries.size(), 1u);
    EXPECT_NE(retries[0].find("the worker was lost after every check passed"), std::string::npos)
        << retries[0];
    EXPECT_NE(retries[0].find(counters_only ? "during \"counters\"" : "during \"trace\""),
              std::string::npos)
        << retries[0];
    ASSERT_EQ(result["flags"].as_array().size(), 1u) << result.dump();
    const std::string flag = result["flags"][0].as_string();
    EXPECT_EQ(flag.rfind(evaluation::kWorkerLostOnceFlag, 0), 0u) << flag;
    EXPECT_NE(flag.find("SIGSEGV"), std::string::npos) << flag;
    EXPECT_NE(flag.find(words), std::string::npos) << flag;
    int left = 1;
    std::ifstream(scratch / "lost_at_profiler") >> left;
    EXPECT_EQ(left, 0);
  }
  // Lost before every config was reported (no config listed, so none was), the crash is the
  // candidate's, as anywhere else.
  request.configs = {};
  request.trace = true;
  std::vector<std::string> retries;
  auto result = judge(retries);
  EXPECT_EQ(result["verdict"].as_string(), "incorrect") << result.dump();
  EXPECT_EQ(result["failure"]["kind"].as_string(), "crash") << result.dump();
  EXPECT_TRUE(retries.empty());
}

// Out of GPU memory is the kernel's verdict only when the memory was the worker's: with more than
// the limit held outside its allocator (another process's torch.compile build filled the GPU on
// KernelBench level 1), it is no verdict.
TEST(WorkerRetry, OutOfMemoryOnAGpuOthersFilledIsNoVerdict) {
  auto result = [](const char* kind, int64_t others, const char* message = "CUDA out of memory") {
    json::Value memory;
    memory.set("total_bytes", int64_t{80} << 30)
        .set("free_bytes", int64_t{1} << 30)
        .set("worker_bytes", (int64_t{79} << 30) - others)
        .set("others_bytes", others);
    json::Value failure;
    failure.set("kind", kind).set("message", message);
    json::Value r;
    r.set("verdict", "incorrect").set("failure", failure).set("device_memory", memory);
    return r;
  };
  const int64_t limit = int64_t{4} << 30;
  const std::string crowded =
      evaluation::crowded_out_of_memory(result("out_of_memory", int64_t{60} << 30), limit);
  EXPECT_NE(crowded.find("60.0 GiB of its 80.0 GiB were held outside the worker's allocator"),
            std::string::npos)
      << crowded;
  EXPECT_EQ(evaluation::crowded_out_of_memory(result("out_of_memory", int64_t{1} << 30), limit), "")
      << "the worker's own memory: the kernel's verdict";
  EXPECT_EQ(evaluation::crowded_out_of_memory(result("mismatch", int64_t{60} << 30), limit), "");
  EXPECT_EQ(evaluation::crowded_out_of_memory(
                result("out_of_memory", int64_t{60} << 30,
                       "CUDA out of memory. Tried to allocate 4.00 TiB. GPU 0 has ..."),
                limit),
            "")
      << "a request the GPU could not serve with the others gone: the kernel's verdict";
  EXPECT_NE(evaluation::crowded_out_of_memory(
                result("out_of_memory", int64_t{60} << 30,
                       "CUDA out of memory. Tried to allocate 6.00 GiB. GPU 0 has ..."),
                limit),
            "");
  json::Value host;  // the host's memory limit: no device_memory
  host.set("verdict", "incorrect").set("failure", result("out_of_memory", 0)["failure"]);
  EXPECT_EQ(evaluation::crowded_out_of_memory(host, limit), "");
}

// The architecture kernels are compiled for is the one the worker's device reports, never a guess.
TEST(WorkerProtocol, KernelsAreBuiltForTheArchitectureTheDeviceReports) {
  json::Value h100, none, odd;
  h100.set("name", "NVIDIA H100 80GB HBM3").set("compute_capability", "9.0");
  EXPECT_EQ(*evaluation::cuda_arch_of(h100), "sm_90");
  json::Value a100;
  a100.set("compute_capability", "8.0");
  EXPECT_EQ(*evaluation::cuda_arch_of(a100), "sm_80");
  json::Value blackwell;
  blackwell.set("compute_capability", "12.0");
  EXPECT_EQ(*evaluation::cuda_arch_of(blackwell), "sm_120");
  none.set("name", "cpu");
  auto missing = evaluation::cuda_arch_of(none);
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error.find("reported no compute capability"), std::string::npos);
  odd.set("compute_capability", "sm_90; rm -rf");
  EXPECT_FALSE(evaluation::cuda_arch_of(odd));
}

}  // namespace
}  // namespace kforge::test
