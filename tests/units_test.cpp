// Unit tests of the host-side pieces: JSON, the static source check, processes and the compiler.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <cmath>
#include <fstream>
#include <thread>

#include <filesystem>

#include "common/json.hpp"
#include "common/numbers.hpp"
#include "common/statistics.hpp"
#include "gpu/compiler.hpp"
#include "gpu/process.hpp"
#include "gpu/source_check.hpp"
#include "gpu/worker_request.hpp"
#include "tests/test_support.hpp"

namespace kforge::test {
namespace {

TEST(Json, AKeyGivenTwiceInAnObjectIsRefusedWithItsPath) {
  auto top = json::parse(R"({"seed": 1, "name": "x", "seed": 2})");
  EXPECT_FALSE(top.value);
  EXPECT_EQ(top.error, "the key \"seed\" appears twice in the top-level object");
  auto nested = json::parse(R"({"tasks": [{"a": 1}, {"b": {"c": 1, "c": 2}}]})");
  EXPECT_FALSE(nested.value);
  EXPECT_EQ(nested.error, "the key \"c\" appears twice in tasks[1].b");
  EXPECT_TRUE(json::parse(R"({"a": {"k": 1}, "b": {"k": 2}})").value);  // same key, two objects
}

TEST(Json, RoundTripKeepsOrderTypesAndEscapes) {
  auto parsed = json::parse(R"({"b":1,"a":[true,null,"x\"y\n"],"c":{"d":2.5}})");
  ASSERT_TRUE(parsed.value) << parsed.error;
  EXPECT_EQ(parsed.value->dump(), R"({"b":1,"a":[true,null,"x\"y\n"],"c":{"d":2.5}})");
  EXPECT_EQ((*parsed.value)["c"]["d"].as_number(), 2.5);
  EXPECT_TRUE((*parsed.value)["missing"]["deeper"].is_null());
  EXPECT_FALSE(json::parse("{nope").value);
}

// Seeds and ids are 64-bit integers: parsed, built and printed exactly (the review saw a seed come
// out as 1.3483273760790274e+19 when every number was a double).
TEST(Json, IntegersStayExact) {
  const std::string text =
      R"({"seed":13483273760790274049,"max":18446744073709551615,"id":9223372036854775807,)"
      R"("negative":-9223372036854775808,"ratio":1.5,"zero":0})";
  auto parsed = json::parse(text);
  ASSERT_TRUE(parsed.value) << parsed.error;
  const auto& doc = *parsed.value;
  EXPECT_EQ(doc.dump(), text);
  EXPECT_EQ(doc["seed"].as_uint(), 13483273760790274049ull);
  EXPECT_EQ(doc["max"].as_uint(), UINT64_MAX);
  EXPECT_EQ(doc["max"].as_int(-1), -1) << "too large for int64: the fallback, not a wrap";
  EXPECT_EQ(doc["id"].as_int(), INT64_MAX);
  EXPECT_EQ(doc["negative"].as_int(), INT64_MIN);
  EXPECT_EQ(doc["negative"].as_uint(7), 7u);
  EXPECT_TRUE(doc["seed"].is_integer() && doc["seed"].is_number());
  EXPECT_FALSE(doc["ratio"].is_integer());
  EXPECT_EQ(doc["ratio"].as_int(), 2);  // a double rounds
  json::Value built;
  built.set("seed", uint64_t{13483273760790274049ull}).set("n", int64_t{-3}).set("i", 7);
  EXPECT_EQ(built.dump(), R"({"seed":13483273760790274049,"n":-3,"i":7})");
}

// A copy is a value of its own. The worker client set the staged library's path in the request it
// was given, and the caller's request (a shallow copy) changed with it: evaluating the same
// request twice on one worker then tried to stage the staged copy and failed.
TEST(Json, ACopyChangesAloneAtEveryDepth) {
  auto parsed = json::parse(R"({"library":"a.so","configs":[0,1],"timing":{"reps":3}})");
  ASSERT_TRUE(parsed.value) << parsed.error;
  const json::Value original = *parsed.value;
  json::Value copy = original;
  copy.set("library", "staged.so");
  EXPECT_EQ(original["library"].as_string(), "a.so");
  json::Value nested = original;
  for (auto& [key, value] : nested.object()) {
    if (key == "configs") value.push(2);
    if (key == "timing") value.set("reps", 9);
  }
  EXPECT_EQ(original.dump(), R"({"library":"a.so","configs":[0,1],"timing":{"reps":3}})");
  EXPECT_EQ(nested.dump(), R"({"library":"a.so","configs":[0,1,2],"timing":{"reps":9}})");
  json::Value array = original["configs"];
  array.array().clear();
  EXPECT_EQ(original["configs"].as_array().size(), 2u);
}

// Numbers users and clients type: whole strings only, in range, or nothing.
// One geometric mean for the coordinator's, the archive's and the views' speedups: none without
// values, none when one value is not a positive finite number.
TEST(Statistics, TheGeometricMeanNeedsPositiveValues) {
  EXPECT_NEAR(geometric_mean({2.0, 8.0}).value(), 4.0, 1e-12);
  EXPECT_NEAR(geometric_mean({3.0}).value(), 3.0, 1e-12);
  EXPECT_FALSE(geometric_mean({}));
  EXPECT_FALSE(geometric_mean({2.0, 0.0}));
  EXPECT_FALSE(geometric_mean({2.0, -1.0}));
  EXPECT_FALSE(geometric_mean({2.0, std::nan("")}));
  EXPECT_FALSE(geometric_mean({2.0, HUGE_VAL}));
}

TEST(Numbers, IntegersAreWholeAndInRange) {
  EXPECT_EQ(parse_integer("42"), 42);
  EXPECT_EQ(parse_integer("-7", -10, 10), -7);
  EXPECT_EQ(parse_integer("9223372036854775807"), INT64_MAX);
  EXPECT_EQ(parse_integer("-9223372036854775808"), INT64_MIN);
  for (const char* bad : {"", "-", "+1", " 1", "1 ", "1x", "0x10", "1e3", "1.0", "abc",
                          "9223372036854775808", "99999999999999999999", "-9223372036854775809"})
    EXPECT_FALSE(parse_integer(bad)) << bad;
  EXPECT_FALSE(parse_integer("0", 1, 10));
  EXPECT_FALSE(parse_integer("11", 1, 10));
  EXPECT_EQ(integer_error("--seeds", "abc", 1, 100),
            "--seeds needs a whole number from 1 to 100, not 'abc'");
  // What a client sent is echoed short and printable.
  EXPECT_EQ(integer_error("id", std::string(50, '7') + "\n", 1, 2).size(),
            std::string("id needs a whole number from 1 to 2, not '").size() + 40 + 4);
}

TEST(Numbers, RealsAreFiniteWholeAndInRange) {
  EXPECT_EQ(parse_real("0.5"), 0.5);
  EXPECT_EQ(parse_real("1e-3"), 1e-3);
  EXPECT_EQ(parse_real("-2", -5, 5), -2);
  for (const char* bad : {"", "nan", "inf", "-inf", "1e309", "0.5s", " 1", "1,5", "x"})
    EXPECT_FALSE(parse_real(bad)) << bad;
  EXPECT_FALSE(parse_real("0", 0.001, 10));
  EXPECT_EQ(real_error("--max-seconds", "x", 0.001, 3600),
            "--max-seconds needs a number from 0.001 to 3600, not 'x'");
}

TEST(SourceCheck, RegisteredFunctionsIgnoreComments) {
  std::string src =
      "// m.def(\"old\", &old);\nPYBIND11_MODULE(x, m) { m.def(\"forward\", &f); m.def( "
      "\"backward\", &b); }";
  EXPECT_EQ(gpu::registered_functions(src), (std::vector<std::string>{"forward", "backward"}));
}

TEST(SourceCheck, LibraryCallsAreFoundAndAllocationsAreNot) {
  std::string src =
      "auto y = torch::empty_like(x);\nauto z = torch::matmul(x, w);\n/* at::softmax(x) */\n"
      "auto s = x.sum(1);\ncublasSgemm(h);";
  auto found = gpu::library_calls(src);
  ASSERT_EQ(found.size(), 3u);
  EXPECT_EQ(found[0], "line 2: torch::matmul");
  EXPECT_EQ(found[1], "line 4: tensor method .sum()");
  EXPECT_EQ(found[2], "line 5: cublasSgemm");
}

TEST(Process, CapturesOutputExitCodesSignalsAndTimeouts) {
  gpu::SpawnOptions o;
  o.argv = {"sh", "-c", "echo out; echo err >&2; exit 3"};
  auto r = gpu::run(o, std::chrono::seconds(10));
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.output, "out\nerr\n");
  o.argv = {"sh", "-c", "kill -SEGV $$"};
  r = gpu::run(o, std::chrono::seconds(10));
  EXPECT_EQ(r.signal, SIGSEGV);
  EXPECT_NE(r.describe().find("SIGSEGV"), std::string::npos) << r.describe();
  o.argv = {"sleep", "30"};
  r = gpu::run(o, std::chrono::milliseconds(300));
  EXPECT_TRUE(r.timed_out);
  EXPECT_LT(r.seconds, 5);
  o.argv = {"/no/such/program"};
  r = gpu::run(o, std::chrono::seconds(1));
  EXPECT_FALSE(r.started);
  EXPECT_NE(r.start_error.find("/no/such/program"), std::string::npos);
}

/// Processes whose command line contains `marker`.
std::vector<pid_t> processes_with(const std::string& marker) {
  std::vector<pid_t> out;
  for (const auto& p : live_processes())
    if (p.command.find(marker) != std::string::npos) out.push_back(p.pid);
  return out;
}

// A program kforge starts, and everything that program starts in turn, dies when the process
// that started it is killed with SIGKILL (here a forked helper plays kforge).
TEST(Process, WhatAChildStartsDiesWithTheProcessThatStartedIt) {
  if (!pid_namespaces_work())
    GTEST_SKIP() << "no PID namespaces here (not root, no unprivileged user namespaces): a "
                    "program's own children are not tied to kforge";
  const std::string marker = "3000." + std::to_string(::getpid());
  pid_t helper = ::fork();
  ASSERT_GE(helper, 0);
  if (helper == 0) {
    gpu::SpawnOptions o;
    o.argv = {"sh", "-c", "sleep " + marker + " & sleep " + marker + "; wait"};
    o.isolate_network = false;
    auto started = gpu::spawn(o);
    ::pause();
    ::_exit(0);
  }
  std::vector<pid_t> running;
  for (int i = 0; i < 200 && running.size() < 3; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    running = processes_with(marker);
  }
  EXPECT_EQ(running.size(), 3u);  // the shell and its two sleeps
  ::kill(helper, SIGKILL);
  ::waitpid(helper, nullptr, 0);
  for (int i = 0; i < 200 && !running.empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    running = processes_with(marker);
  }
  EXPECT_TRUE(running.empty()) << running.size() << " of them outlived it";
  for (pid_t p : running) ::kill(p, SIGKILL);
}

TEST(Process, NetworkNamespaceHasOnlyLoopbackWhenAvailable) {
  gpu::SpawnOptions o;
  o.argv = {"cat", "/proc/net/dev"};
  auto r = gpu::run(o, std::chrono::seconds(10));
  ASSERT_TRUE(r.ok()) << r.describe();
  if (!r.network_isolated) GTEST_SKIP() << "this machine does not allow network namespaces";
  EXPECT_NE(r.output.find("lo:"), std::string::npos);
  EXPECT_EQ(r.output.find("eth0"), std::string::npos) << r.output;
}

TEST(Compiler, ErrorsComeBackWithTheLogAndAreCached) {
  gpu::CompileOptions o;
  o.cache_dir = cache_dir();
  std::string bad = "#include <torch/extension.h>\nint broken( { }\n";
  auto first = gpu::compile_candidate(bad, o);
  EXPECT_FALSE(first.ok);
  EXPECT_NE(first.error.find("error"), std::string::npos) << first.error;
  EXPECT_NE(first.log.find("broken"), std::string::npos) << first.log;
  auto second = gpu::compile_candidate(bad, o);
  EXPECT_TRUE(second.cache_hit);
  EXPECT_EQ(second.error, first.error);
}

TEST(Compiler, CommandUsesTheShimFirstAndNoShell) {
  gpu::CompileOptions o;
  auto cmd = gpu::compile_command(o, "k.cpp", "k.so");
  ASSERT_GT(cmd.size(), 3u);
  EXPECT_NE(cmd[0].find("++"), std::string::npos);
  auto shim =
      std::find_if(cmd.begin(), cmd.end(), [](const auto& a) { return a.rfind("-I", 0) == 0; });
  ASSERT_NE(shim, cmd.end());
  EXPECT_NE(shim->find("gpu/shim"), std::string::npos);
  o.backend = gpu::Backend::cuda;
  o.cuda_arch = "sm_90";
  auto cuda = gpu::compile_command(o, "k.cu", "k.so");
  EXPECT_NE(std::find(cuda.begin(), cuda.end(), "-gencode=arch=compute_90,code=sm_90"), cuda.end());
}

// What decides a candidate's code is one list, which `kforge best` writes into its package too.
TEST(Compiler, EveryCandidateIsBuiltWithTheCodegenFlags) {
  for (auto backend : {gpu::Backend::cpu, gpu::Backend::cuda}) {
    gpu::CompileOptions o;
    o.backend = backend;
    const auto cmd = gpu::compile_command(o, "k", "k.so");
    const auto flags = gpu::codegen_flags(backend);
    EXPECT_FALSE(flags.compile.empty());
    for (const auto& f : flags.compile)
      EXPECT_NE(std::find(cmd.begin(), cmd.end(), f), cmd.end()) << f;
    for (const auto& f : flags.link)
      EXPECT_NE(std::find(cmd.begin(), cmd.end(), f), cmd.end()) << f;
  }
  const auto cpu = gpu::codegen_flags(gpu::Backend::cpu).compile;
  for (const char* f : {"-O3", "-march=native", "-fopenmp"})
    EXPECT_NE(std::find(cpu.begin(), cpu.end(), f), cpu.end()) << f;
}

}  // namespace
}  // namespace kforge::test

namespace kforge::gpu {
namespace {

// The worker request's one set of defaults survives the pipe, and every field set comes back.
TEST(WorkerRequest, DefaultsAndEveryFieldSurviveTheRoundTrip) {
  const auto plain = WorkerRequest::from_json(WorkerRequest{}.to_json());
  EXPECT_EQ(plain.seeds, kDefaultSeeds);
  EXPECT_EQ(plain.function, "forward");  // the direction's name when none is given
  EXPECT_EQ(WorkerRequest::from_json(json::Value(json::Object{})).seeds, kDefaultSeeds);
  WorkerRequest r;
  r.export_dir = "/e";
  r.library = "/l.so";
  r.direction = "backward";
  r.mode = "single";
  r.configs = {0, 5};
  r.seeds = 7;
  r.seed = 13483273760790274051u;  // above 2^63: every bit reaches the worker
  r.library_calls = "forbid";
  r.call_timeout_s = 10;
  r.time = false;
  r.stop_on_failure = true;
  r.atol = 1e-3;
  r.compiled_dir = "/c";
  r.timing.max_seconds = 0.5;
  r.timing.refill_max_bytes = 0;
  const auto back = WorkerRequest::from_json(r.to_json());
  EXPECT_EQ(back.to_json().dump(), r.to_json().dump());
  EXPECT_EQ(back.function, "backward");
  EXPECT_EQ(back.configs, (std::vector<int64_t>{0, 5}));
  EXPECT_EQ(back.seed, r.seed);
  EXPECT_FALSE(back.rtol.has_value());
  EXPECT_EQ(back.timing.refill_max_bytes, 0.0);
  EXPECT_FALSE(back.timing.min_reps.has_value());
}

}  // namespace
}  // namespace kforge::gpu
