// kforge's light headers (evaluation/shim_light) against LibTorch's own: a kernel that uses the
// LibTorch surface kernels use gets the same verdict and LibTorch's own errors whichever built it;
// one that needs more of LibTorch is built with LibTorch's headers, and what a user (or an LLM
// fixing the kernel) reads then is LibTorch's compile error, never the light headers'; the two
// builds are cached apart. And what an error raised through them shows.
#include <gtest/gtest.h>

#include "evaluation/hashing.hpp"
#include "tests/test_support.hpp"

namespace kforge::test {
namespace {

std::string kernel(const std::string& name) {
  return source_dir() + "/tests/light_headers/" + name;
}

evaluation::WorkerRequest softmax_request() {
  auto request = test_request("forward", "multi", 2, 0.2);
  request.configs = {0, 1};  // 128 x 999 and 3 x 17
  return request;
}

evaluation::CompileResult compile(const std::string& name, evaluation::Headers headers) {
  evaluation::CompileOptions options;
  options.backend = evaluation::Backend::cpu;
  options.cache_dir = cache_dir();
  options.headers = headers;
  return evaluation::compile_candidate(evaluation::read_file(kernel(name)).text, options);
}

class LightHeaders : public testing::TestWithParam<evaluation::Headers> {};

TEST_P(LightHeaders, TheSurfaceKernelsUseGivesLibTorchsResults) {
  evaluation::WorkerClient worker(evaluation::WorkerOptions{});
  auto e = evaluate(worker, evaluation::Backend::cpu, "softmax", kernel("surface_cpu.cpp"),
                    softmax_request(), "sm_90", GetParam());
  ASSERT_TRUE(e.compile.ok) << e.describe();
  EXPECT_EQ(e.compile.headers, GetParam() == evaluation::Headers::full ? "full" : "light")
      << e.describe();
  EXPECT_EQ(e.verdict(), "correct") << e.describe();
  EXPECT_EQ(e.outcome.result["flags"].dump().find("library"), std::string::npos) << e.describe();
}

TEST_P(LightHeaders, LibTorchsErrorsReachTheVerdict) {
  evaluation::WorkerClient worker(evaluation::WorkerOptions{});
  auto dtype = evaluate(worker, evaluation::Backend::cpu, "softmax", kernel("wrong_dtype_cpu.cpp"),
                        softmax_request(), "sm_90", GetParam());
  ASSERT_TRUE(dtype.compile.ok) << dtype.describe();
  EXPECT_EQ(dtype.verdict(), "incorrect") << dtype.describe();
  EXPECT_EQ(dtype.failure_kind(), "candidate_error") << dtype.describe();
  EXPECT_NE(dtype.outcome.result["failure"]["message"].as_string().find(
                "expected scalar type Double but found Float"),
            std::string::npos)
      << dtype.describe();

  auto check = evaluate(worker, evaluation::Backend::cpu, "softmax", kernel("failed_check_cpu.cpp"),
                        softmax_request(), "sm_90", GetParam());
  ASSERT_TRUE(check.compile.ok) << check.describe();
  EXPECT_EQ(check.failure_kind(), "candidate_error") << check.describe();
  EXPECT_NE(check.outcome.result["failure"]["message"].as_string().find(
                "kforge light test: wanted 3 dimensions, got 2 of ["),
            std::string::npos)
      << check.describe();
  EXPECT_NE(check.outcome.result["failure"]["message"].as_string().find("] Float"),
            std::string::npos)
      << check.describe();
}

// A function of 1300 tensors (a generated kernel's forward takes a network's parameters and
// buffers: KernelBench's level-3 ResNet101, 1257) builds with the light headers: its arguments
// are held without std::tuple, whose constraints recurse once an element past g++'s template
// depth of 900.
TEST(LightHeaders, AFunctionOfManyTensorsBuilds) {
  std::string parameters;
  for (int i = 0; i < 1300; ++i)
    parameters += (i ? ", torch::Tensor t" : "torch::Tensor t") + std::to_string(i);
  const std::string source =
      "#include <torch/extension.h>\ntorch::Tensor forward(" + parameters +
      ") {\n  return t0 + t1299;\n}\nPYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {\n"
      "  m.def(\"forward\", &forward, \"the first and last added\");\n}\n";
  evaluation::CompileOptions options;
  options.backend = evaluation::Backend::cpu;
  options.cache_dir = cache_dir();
  options.headers = evaluation::Headers::light;
  const auto r = evaluation::compile_candidate(source, options);
  EXPECT_TRUE(r.ok) << r.error.substr(0, 2000);
}

// Whether an error says the memory ran out is read from all of it, and what is shown keeps its
// end: the TorchScript interpreter (a task's reference) puts the cause after a long traceback.
TEST(RaisedErrors, OutOfMemoryAtTheEndOfALongMessageIsSeenAndShown) {
  evaluation::WorkerClient worker(evaluation::WorkerOptions{});
  auto e = evaluate(worker, evaluation::Backend::cpu, "softmax", kernel("long_error_cpu.cpp"),
                    softmax_request(), "sm_90", evaluation::Headers::automatic);
  ASSERT_TRUE(e.compile.ok) << e.describe();
  EXPECT_EQ(e.failure_kind(), "out_of_memory") << e.describe();
  const auto message = e.outcome.result["failure"]["message"].as_string();
  EXPECT_NE(message.find("failed in the TorchScript interpreter"), std::string::npos) << message;
  EXPECT_NE(message.find("CUDA out of memory. Tried to allocate 16.00 GiB"), std::string::npos)
      << message;
  EXPECT_LT(message.size(), 800u) << message;
}

INSTANTIATE_TEST_SUITE_P(BothWays, LightHeaders, testing::ValuesIn(both_headers),
                         [](const testing::TestParamInfo<evaluation::Headers>& info) {
                           return headers_suffix(info.param);
                         });

TEST(LightHeadersFallback, AKernelThatNeedsMoreOfLibTorchIsBuiltWithItsHeaders) {
  auto r = compile("needs_aten_cpu.cpp", evaluation::Headers::automatic);
  ASSERT_TRUE(r.ok) << r.error << "\n" << r.log;
  EXPECT_EQ(r.headers, "full");
  EXPECT_NE(r.light_error.find("_softmax"), std::string::npos) << r.light_error;
  EXPECT_EQ(r.log.find("shim_light"), std::string::npos) << r.log;

  auto light_only = compile("needs_aten_cpu.cpp", evaluation::Headers::light);
  EXPECT_FALSE(light_only.ok);
  EXPECT_EQ(light_only.headers, "light");
}

TEST(LightHeadersFallback, TheCompileErrorShownIsLibTorchsHeaders) {
  auto r = compile("syntax_error_cpu.cpp", evaluation::Headers::automatic);
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.headers, "full");
  EXPECT_NE(r.error.find("ouput"), std::string::npos) << r.error;
  EXPECT_FALSE(r.light_error.empty());
  // Nothing of the light headers in what the user or an LLM reads.
  EXPECT_EQ(r.log.find("shim_light"), std::string::npos) << r.log;
  EXPECT_EQ(r.error.find("shim_light"), std::string::npos) << r.error;
  EXPECT_EQ(r.log.find("kforge/light_"), std::string::npos) << r.log;

  // Cached, the same answer.
  auto again = compile("syntax_error_cpu.cpp", evaluation::Headers::automatic);
  EXPECT_TRUE(again.cache_hit);
  EXPECT_EQ(again.headers, "full");
  EXPECT_EQ(again.error, r.error);
}

TEST(LightHeadersFallback, EachBuildIsCachedUnderItsHeaders) {
  auto light = compile("surface_cpu.cpp", evaluation::Headers::light);
  auto full = compile("surface_cpu.cpp", evaluation::Headers::full);
  ASSERT_TRUE(light.ok) << light.log;
  ASSERT_TRUE(full.ok) << full.log;
  EXPECT_NE(light.key, full.key);
  EXPECT_NE(light.library_path, full.library_path);
  auto automatic = compile("surface_cpu.cpp", evaluation::Headers::automatic);
  EXPECT_TRUE(automatic.cache_hit);
  EXPECT_EQ(automatic.key, light.key);
  EXPECT_EQ(automatic.headers, "light");
}

}  // namespace
}  // namespace kforge::test
