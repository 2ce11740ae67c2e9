// Building a candidate: compile errors with their log (cached), the command with no shell, the
// codegen flags every candidate is built with; the static source check's readings; the worker
// request's defaults across the pipe.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "common/json.hpp"
#include "evaluation/build_config.hpp"
#include "evaluation/compiler.hpp"
#include "evaluation/hashing.hpp"
#include "evaluation/source_check.hpp"
#include "evaluation/worker_request.hpp"
#include "tests/test_support.hpp"

namespace kforge::test {
namespace {

TEST(SourceCheck, RegisteredFunctionsIgnoreComments) {
  std::string src =
      "// m.def(\"old\", &old);\nPYBIND11_MODULE(x, m) { m.def(\"forward\", &f); m.def( "
      "\"backward\", &b); }";
  EXPECT_EQ(evaluation::registered_functions(src),
            (std::vector<std::string>{"forward", "backward"}));
}

TEST(SourceCheck, LibraryCallsAreFoundAndAllocationsAreNot) {
  std::string src =
      "auto y = torch::empty_like(x);\nauto z = torch::matmul(x, w);\n/* at::softmax(x) */\n"
      "auto s = x.sum(1);\ncublasSgemm(h);";
  auto found = evaluation::library_calls(src);
  ASSERT_EQ(found.size(), 3u);
  EXPECT_EQ(found[0], "line 2: torch::matmul");
  EXPECT_EQ(found[1], "line 4: tensor method .sum()");
  EXPECT_EQ(found[2], "line 5: cublasSgemm");
}

TEST(Compiler, ErrorsComeBackWithTheLogAndAreCached) {
  evaluation::CompileOptions o;
  o.cache_dir = cache_dir();
  std::string bad = "#include <torch/extension.h>\nint broken( { }\n";
  auto first = evaluation::compile_candidate(bad, o);
  EXPECT_FALSE(first.ok);
  EXPECT_NE(first.error.find("error"), std::string::npos) << first.error;
  EXPECT_NE(first.log.find("broken"), std::string::npos) << first.log;
  auto second = evaluation::compile_candidate(bad, o);
  EXPECT_TRUE(second.cache_hit);
  EXPECT_EQ(second.error, first.error);
}

// nvcc 13.0's device compiler (cicc) crashes on the generator's source for KernelBench's
// EfficientNetB0 at -O3 (exit 139, in every build through the compiler pool; not in every one run
// by hand): the build still gives a library, built again with kCompilerCrashFlags, its log saying
// so.
TEST(Compiler, ASourceTheCudaCompilerCrashesOnIsBuiltAgainWithLessOptimisation) {
  if (!std::filesystem::exists(build::nvcc)) GTEST_SKIP() << "no nvcc at " << build::nvcc;
  const std::string source =
      evaluation::read_file(source_dir() + "/tests/compiler/efficientnet_b0_generated.cu").text;
  const auto dir = std::filesystem::path(cache_dir()) / "nvcc_crash";
  std::filesystem::remove_all(dir);
  evaluation::CompileOptions o;
  o.backend = evaluation::Backend::cuda;
  o.cuda_arch = "sm_90";
  o.cache_dir = dir.string();
  const auto r = evaluation::compile_candidate(source, o);
  ASSERT_TRUE(r.ok) << r.error << "\n" << r.log.substr(0, 4000);
  EXPECT_EQ(r.headers, "light");
  std::cout << (evaluation::built_after_compiler_crash(r.log)
                    ? "nvcc crashed; built again with -Xcicc -O1\n"
                    : "nvcc did not crash this time\n");
}

TEST(Compiler, ACrashOfTheCompilerIsToldFromARefusalOfTheSource) {
  evaluation::CompileResult r;
  for (const char* crash : {"compile failed (exit 139)", "compile failed (exit 134): x",
                            "compile failed (killed by signal 11 (SIGSEGV, Segmentation fault))"}) {
    r.error = crash;
    EXPECT_TRUE(evaluation::compiler_crashed(r)) << crash;
  }
  for (const char* refusal : {"compile failed (exit 1): error: expected ';'",
                              "compile failed (exit 2)", "compiler timed out after 300 s",
                              "compile failed (killed by signal 9 (SIGKILL, Killed))"}) {
    r.error = refusal;
    EXPECT_FALSE(evaluation::compiler_crashed(r)) << refusal;
  }
  r.error = "compile failed (exit 139)";
  r.ok = true;
  EXPECT_FALSE(evaluation::compiler_crashed(r));
}

// On the cpu backend the light headers are precompiled once per flag set, as LibTorch's are, and a
// compile reads the precompiled header (g++'s -H lists it with '!') instead of parsing them (about
// half of a light compile's time); without it the same source is built from the headers.
TEST(Compiler, TheLightHeadersAreReadPrecompiledOnTheCpu) {
  const std::string source =
      evaluation::read_file(source_dir() + "/tasks/softmax/kernels/forward_cpu.cpp").text;
  evaluation::CompileOptions o;
  o.cache_dir = cache_dir();
  o.headers = evaluation::Headers::light;
  o.extra_flags = {"-H"};  // the headers g++ reads, on the log
  auto precompiled = evaluation::compile_candidate(source, o);
  ASSERT_TRUE(precompiled.ok) << precompiled.log;
  EXPECT_EQ(precompiled.headers, "light");
  auto read = [](const std::string& log, const std::string& line_start,
                 const std::string& line_end) {
    std::istringstream lines(log);
    for (std::string line; std::getline(lines, line);)
      if (line.rfind(line_start, 0) == 0 && line.size() >= line_end.size() &&
          line.compare(line.size() - line_end.size(), line_end.size(), line_end) == 0)
        return true;
    return false;
  };
  EXPECT_TRUE(read(precompiled.log, "! ", "/torch/extension.h.gch")) << precompiled.log;
  EXPECT_FALSE(read(precompiled.log, ".", "/kforge/light_all.h")) << precompiled.log;
  o.precompiled_header = false;
  auto parsed = evaluation::compile_candidate(source, o);
  ASSERT_TRUE(parsed.ok) << parsed.log;
  EXPECT_EQ(parsed.log.find(".gch"), std::string::npos) << parsed.log;
  EXPECT_TRUE(read(parsed.log, ".", "/kforge/light_all.h")) << parsed.log;
}

TEST(Compiler, CommandUsesTheShimFirstAndNoShell) {
  evaluation::CompileOptions o;
  auto cmd = evaluation::compile_command(o, "k.cpp", "k.so");
  ASSERT_GT(cmd.size(), 3u);
  EXPECT_NE(cmd[0].find("++"), std::string::npos);
  auto shim =
      std::find_if(cmd.begin(), cmd.end(), [](const auto& a) { return a.rfind("-I", 0) == 0; });
  ASSERT_NE(shim, cmd.end());
  EXPECT_NE(shim->find("evaluation/shim"), std::string::npos);
  o.backend = evaluation::Backend::cuda;
  o.cuda_arch = "sm_90";
  auto cuda = evaluation::compile_command(o, "k.cu", "k.so");
  EXPECT_NE(std::find(cuda.begin(), cuda.end(), "-gencode=arch=compute_90,code=sm_90"), cuda.end());
}

// What decides a candidate's code is one list, which `kforge best` writes into its package too.
TEST(Compiler, EveryCandidateIsBuiltWithTheCodegenFlags) {
  for (auto backend : {evaluation::Backend::cpu, evaluation::Backend::cuda}) {
    evaluation::CompileOptions o;
    o.backend = backend;
    const auto cmd = evaluation::compile_command(o, "k", "k.so");
    const auto flags = evaluation::codegen_flags(backend);
    EXPECT_FALSE(flags.compile.empty());
    for (const auto& f : flags.compile)
      EXPECT_NE(std::find(cmd.begin(), cmd.end(), f), cmd.end()) << f;
    for (const auto& f : flags.link)
      EXPECT_NE(std::find(cmd.begin(), cmd.end(), f), cmd.end()) << f;
  }
  const auto cpu = evaluation::codegen_flags(evaluation::Backend::cpu).compile;
  for (const char* f : {"-O3", "-march=native", "-fopenmp"})
    EXPECT_NE(std::find(cpu.begin(), cpu.end(), f), cpu.end()) << f;
}

}  // namespace
}  // namespace kforge::test

namespace kforge::evaluation {
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
  r.library_calls = LibraryPolicy::forbid;
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
}  // namespace kforge::evaluation
