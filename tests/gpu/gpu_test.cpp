// The GPU suite (label `gpu`): every CUDA fixture kernel (bundled tasks, and the test tasks in
// robust-kbench's shape: backward with backward_fn None, a saved tuple, a tensor computed in
// forward) is correct on every config of its task; every CUDA exploit, every backward exploit and
// every overflow exploit is rejected with its reason while the worker keeps serving; each is built
// both ways (kforge's light headers first, and LibTorch's only) with the same verdict, and every
// fixture builds with the light headers. Skips itself where there is no CUDA build or no GPU.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "evaluation/hashing.hpp"

#include "tests/test_support.hpp"

namespace kforge::test {
namespace {

std::string device_arch(evaluation::WorkerClient& worker) {
  std::string cc = worker.ready()["device"]["compute_capability"].as_string("9.0");
  cc.erase(std::remove(cc.begin(), cc.end(), '.'), cc.end());
  return "sm_" + cc;
}

evaluation::WorkerOptions cuda_options() {
  evaluation::WorkerOptions o;
  o.backend = evaluation::Backend::cuda;
  return o;
}

std::vector<std::string> files(const std::string& dir, const std::string& suffix) {
  std::vector<std::string> out;
  if (!std::filesystem::exists(dir)) return out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    std::string p = e.path();
    if (p.size() >= suffix.size() &&
        p.compare(p.size() - suffix.size(), suffix.size(), suffix) == 0)
      out.push_back(p);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// nvcc takes about 20 s for a kernel with LibTorch headers: compile everything at once, in
// parallel.
void precompile(const std::vector<std::string>& kernels, const std::string& arch,
                evaluation::Headers headers) {
  std::vector<std::string> sources;
  for (const auto& k : kernels) sources.push_back(evaluation::read_file(k).text);
  evaluation::CompileOptions o;
  o.backend = evaluation::Backend::cuda;
  o.cache_dir = cache_dir();
  o.cuda_arch = arch;
  o.headers = headers;
  evaluation::compile_all(sources, o, std::max(1u, std::thread::hardware_concurrency()));
}

class Gpu : public testing::TestWithParam<evaluation::Headers> {};

TEST_P(Gpu, FixtureKernelsAreCorrectOnEveryConfig) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA build or no GPU";
  evaluation::WorkerClient worker(cuda_options());
  ASSERT_EQ(worker.ensure_started(), "");
  auto kernels = files(source_dir() + "/tasks", "_cuda.cu");
  for (const auto& k : files(source_dir() + "/tests/tasks", "_cuda.cu")) kernels.push_back(k);
  precompile(kernels, device_arch(worker), GetParam());
  for (const auto& kernel : kernels) {
    std::string task = std::filesystem::path(kernel).parent_path().parent_path();
    const bool bundled = task.rfind(source_dir() + "/tasks/", 0) == 0;
    std::string direction =
        std::filesystem::path(kernel).filename().string().rfind("backward", 0) == 0 ? "backward"
                                                                                    : "forward";
    auto request = test_request(direction, "multi", 3, 0.5);
    request.timing.min_reps = 5;
    request.timing.max_reps = 10;
    auto e = evaluate(worker, evaluation::Backend::cuda, task, kernel, request, device_arch(worker),
                      GetParam());
    ASSERT_TRUE(e.compile.ok) << kernel << "\n" << e.describe();
    EXPECT_EQ(e.verdict(), "correct") << kernel << "\n" << e.describe();
    EXPECT_EQ(e.compile.headers, GetParam() == evaluation::Headers::full ? "full" : "light")
        << kernel << "\n"
        << e.describe();
    EXPECT_GE(e.outcome.result["configs"].as_array().size(), bundled ? 4u : 2u) << kernel;
  }
}

// Kernels written the way robust-kbench's published ones are (tests/light_headers/rkb_style: launch
// configurations, AT_DISPATCH with half, guards, streams, optional arguments, packed accessors),
// each naming its task on its first line, are correct on every config of their tasks.
TEST_P(Gpu, RobustKbenchStyleKernelsAreCorrect) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA build or no GPU";
  evaluation::WorkerClient worker(cuda_options());
  ASSERT_EQ(worker.ensure_started(), "");
  auto kernels = files(source_dir() + "/tests/light_headers/rkb_style", ".cu");
  ASSERT_GE(kernels.size(), 4u);
  precompile(kernels, device_arch(worker), GetParam());
  for (const auto& kernel : kernels) {
    const auto header = kernel_header(kernel);
    ASSERT_EQ(header.words.size(), 2u) << kernel << ": its first line names a task and direction";
    const std::string &task = header.words[0], &direction = header.words[1];
    auto request = test_request(direction, "multi", 2);
    auto e = evaluate(worker, evaluation::Backend::cuda, source_dir() + "/" + task, kernel, request,
                      device_arch(worker), GetParam());
    ASSERT_TRUE(e.compile.ok) << kernel << "\n" << e.describe();
    EXPECT_EQ(e.verdict(), "correct") << kernel << "\n" << e.describe();
    EXPECT_EQ(e.compile.headers, GetParam() == evaluation::Headers::full ? "full" : "light")
        << kernel << "\n"
        << e.describe();
  }
}

/// The exploits of a CPU suite's folder (ATen-based, so they build for either backend) against
/// `task`'s `direction` on the GPU on `configs`: each rejected with its reason, and the task's
/// honest CUDA kernel correct after it.
void expect_cpu_exploits_rejected_on_gpu(const std::string& folder, const std::string& task,
                                         const std::string& direction,
                                         const std::vector<int64_t>& configs,
                                         evaluation::Headers headers) {
  evaluation::WorkerClient worker(cuda_options());
  ASSERT_EQ(worker.ensure_started(), "");
  const std::string arch = device_arch(worker);
  const std::string honest_kernel = task + "/kernels/" + direction + "_cuda.cu";
  auto kernels = files(source_dir() + "/tests/exploits/" + folder, ".cpp");
  ASSERT_FALSE(kernels.empty());
  auto all = kernels;
  all.push_back(honest_kernel);
  precompile(all, arch, headers);
  for (const auto& kernel : kernels) {
    auto expected = kernel_header(kernel).words;
    const auto stem = std::filesystem::path(kernel).stem();
    const bool library_call = stem == "library_call";
    // On the GPU only the first allocations of a call are primed with NaN: this exploit's output
    // is allocated after its ATen temporaries were freed, so its unwritten row holds a freed
    // temporary's values and fails as a mismatch instead.
    if (stem == "unwritten_output") expected.push_back("mismatch");
    auto request = test_request(direction, "multi", 2);
    request.configs = configs;
    request.call_timeout_s = 10;
    request.library_calls = library_call ? LibraryPolicy::forbid : LibraryPolicy::flag;
    auto e = evaluate(worker, evaluation::Backend::cuda, task, kernel, request, arch, headers);
    ASSERT_TRUE(e.compile.ok) << kernel << "\n" << e.describe();
    EXPECT_EQ(e.verdict(), "incorrect") << kernel << "\n" << e.describe();
    EXPECT_NE(std::find(expected.begin(), expected.end(), e.failure_kind()), expected.end())
        << kernel << " rejected as " << e.failure_kind() << "\n"
        << e.describe();
    request.library_calls = LibraryPolicy::flag;
    auto honest =
        evaluate(worker, evaluation::Backend::cuda, task, honest_kernel, request, arch, headers);
    EXPECT_EQ(honest.verdict(), "correct") << "after " << kernel << "\n" << honest.describe();
  }
}

// The backward exploits of the CPU suite against the robust-kbench-shaped LayerNorm backward on
// the GPU.
TEST_P(Gpu, BackwardExploitsAreRejectedWithTheirReasons) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA build or no GPU";
  // Normalised over 8 x 24, and over 3 x 129 with random weights.
  expect_cpu_exploits_rejected_on_gpu("cpu_backward", source_dir() + "/tests/tasks/rkb_layernorm",
                                      "backward", {0, 5}, GetParam());
}

// The overflow exploits of the CPU suite on the GPU, where eager's result and its float64 misses
// are computed on the device (evaluation/worker/checks.cpp's slices).
TEST_P(Gpu, OverflowExploitsAreRejectedWithTheirReasons) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA build or no GPU";
  // exp(x * 40) over 64 x 128 (some 100 infinite elements) and 3 x 17.
  expect_cpu_exploits_rejected_on_gpu("cpu_overflow", source_dir() + "/tests/tasks/overflow",
                                      "forward", {0, 1}, GetParam());
}

TEST_P(Gpu, ExploitsAreRejectedWithTheirReasons) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA build or no GPU";
  evaluation::WorkerOptions o = cuda_options();
  evaluation::WorkerClient worker(o);
  ASSERT_EQ(worker.ensure_started(), "");
  std::string arch = device_arch(worker);
  auto kernels = files(source_dir() + "/tests/exploits/cuda", ".cu");
  kernels.push_back(source_dir() + "/tasks/softmax/kernels/forward_cuda.cu");
  precompile(kernels, arch, GetParam());
  for (const auto& kernel : files(source_dir() + "/tests/exploits/cuda", ".cu")) {
    const auto header = kernel_header(kernel);
    const auto& expected = header.words;
    const std::string& second = header.second_line;
    double min_kernel_ms =
        second.rfind("// min-kernel-ms:", 0) == 0 ? std::stod(second.substr(17)) : 0;
    auto request = test_request("forward", "multi", 2);
    request.configs = {0, 1};
    request.call_timeout_s = 10;
    auto e =
        evaluate(worker, evaluation::Backend::cuda, "softmax", kernel, request, arch, GetParam());
    ASSERT_TRUE(e.compile.ok) << kernel << "\n" << e.describe();
    if (expected == std::vector<std::string>{"correct"}) {
      // A defence that neutralises: the kernel passes, and what it tried to hide is measured.
      EXPECT_EQ(e.verdict(), "correct") << kernel << "\n" << e.describe();
      for (const auto& c : e.outcome.result["configs"].as_array())
        EXPECT_GE(c["candidate"]["median_ms"].as_number(), min_kernel_ms) << kernel << "\n"
                                                                          << e.describe();
      continue;
    }
    EXPECT_EQ(e.verdict(), "incorrect") << kernel << "\n" << e.describe();
    EXPECT_NE(std::find(expected.begin(), expected.end(), e.failure_kind()), expected.end())
        << kernel << " rejected as " << e.failure_kind() << "\n"
        << e.describe();
    // The worker (restarted if the exploit killed it) still evaluates an honest kernel.
    auto honest_request = request;
    auto honest = evaluate(worker, evaluation::Backend::cuda, "softmax",
                           source_dir() + "/tasks/softmax/kernels/forward_cuda.cu", honest_request,
                           arch, GetParam());
    EXPECT_EQ(honest.verdict(), "correct") << "after " << kernel << "\n" << honest.describe();
  }
}

INSTANTIATE_TEST_SUITE_P(BothWays, Gpu, testing::ValuesIn(both_headers),
                         [](const testing::TestParamInfo<evaluation::Headers>& info) {
                           return headers_suffix(info.param);
                         });

}  // namespace
}  // namespace kforge::test
