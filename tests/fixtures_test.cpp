// Every bundled CPU fixture kernel (tasks/<task>/kernels/*_cpu.cpp), every kernel of the test tasks
// in robust-kbench's shape (tests/tasks/<task>/kernels/*_cpu.cpp: backward tasks whose backward_fn
// is None, a saved tuple, a tensor computed in forward, a reference that starts threads), and every
// CPU template of the built-in proposer with its defaults (proposers/builtin/templates/*_cpu*.cpp), is
// correct on its task, rendered with the traits its task fixes.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "proposers/builtin/kernel_template.hpp"
#include "proposers/builtin/task_family.hpp"
#include "tests/test_support.hpp"

namespace kforge::test {
namespace {

struct Fixture {
  std::string task, kernel, direction;
};

std::vector<Fixture> fixtures(const std::string& tasks_dir, const std::string& suffix) {
  std::vector<Fixture> out;
  for (const auto& task : std::filesystem::directory_iterator(tasks_dir)) {
    auto kernels = task.path() / "kernels";
    if (!std::filesystem::exists(kernels)) continue;
    for (const auto& k : std::filesystem::directory_iterator(kernels)) {
      std::string name = k.path().filename();
      if (name.size() < suffix.size() ||
          name.compare(name.size() - suffix.size(), suffix.size(), suffix))
        continue;
      out.push_back(
          {task.path(), k.path(), name.rfind("backward", 0) == 0 ? "backward" : "forward"});
    }
  }
  std::sort(out.begin(), out.end(),
            [](const auto& a, const auto& b) { return a.kernel < b.kernel; });
  return out;
}

/// Forward tasks the built-in proposer has templates for: the bundled ones and robust-kbench's
/// shapes of layernorm (three trailing dimensions, eps only), RMSNorm, a plain linear and a
/// linear on batch x tokens x features.
std::vector<std::string> template_tasks() {
  return {"softmax",
          "layernorm",
          "cross_entropy",
          "linear_relu",
          source_dir() + "/tests/tasks/rkb_layernorm",
          source_dir() + "/tests/tasks/rkb_rmsnorm",
          source_dir() + "/tests/tasks/rkb_linear",
          source_dir() + "/tests/tasks/rkb_linear_tokens"};
}

void PrintTo(const Fixture& f, std::ostream* os) {
  *os << f.kernel;
}

using FixtureAndHeaders = std::tuple<Fixture, evaluation::Headers>;

std::string name_of(const testing::TestParamInfo<FixtureAndHeaders>& info) {
  const auto& [f, headers] = info.param;
  return std::filesystem::path(f.task).filename().string() + "_" +
         std::filesystem::path(f.kernel).stem().string() + "_" + headers_suffix(headers);
}

// Each kernel is built both ways (the light headers first, and LibTorch's only) with the same
// verdict; built light-first, every fixture takes the light path.
class CpuFixture : public testing::TestWithParam<FixtureAndHeaders> {};

TEST_P(CpuFixture, IsCorrectOnTheSingleConfigs) {
  const auto& [f, headers] = GetParam();
  evaluation::WorkerClient worker(evaluation::WorkerOptions{});
  auto request = test_request(f.direction, "single", 3);
  auto e = evaluate(worker, evaluation::Backend::cpu, f.task, f.kernel, request, "sm_90", headers);
  ASSERT_TRUE(e.compile.ok) << e.describe();
  EXPECT_EQ(e.verdict(), "correct") << e.describe();
  EXPECT_EQ(e.compile.headers, headers == evaluation::Headers::full ? "full" : "light")
      << e.describe();
  for (const auto& c : e.outcome.result["configs"].as_array()) {
    EXPECT_EQ(c["seeds_passed"].as_int(), 3);
    EXPECT_GT(c["candidate"]["median_ms"].as_number(), 0);
    EXPECT_GT(c["reference"]["median_ms"].as_number(), 0);
  }
}

// robust-kbench's cross-entropy kernels return the loss with shape [1] where the reference's is []:
// the same element, accepted and flagged; a loss of another shape is rejected.
TEST(CpuFixtureShapes, AOneElementLossOfShapeOneIsAcceptedAndFlagged) {
  evaluation::WorkerClient worker(evaluation::WorkerOptions{});
  auto request = test_request("forward", "multi", 2);
  request.time = false;
  const std::string task = source_dir() + "/tests/tasks/rkb_cross_entropy";
  auto e =
      evaluate(worker, evaluation::Backend::cpu, task, task + "/kernels/forward_cpu.cpp", request);
  ASSERT_EQ(e.verdict(), "correct") << e.describe();
  std::string flags = e.outcome.result["flags"].dump();
  EXPECT_NE(flags.find("has shape [1], the reference []"), std::string::npos) << flags;

  std::ifstream in(task + "/kernels/forward_cpu.cpp");
  std::string source((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  source.replace(source.find("torch::empty({1}"), 16, "torch::zeros({2}");
  auto path = std::filesystem::temp_directory_path() / "kforge_fixture_loss_of_two.cpp";
  std::ofstream(path) << source;
  auto two = evaluate(worker, evaluation::Backend::cpu, task, path, request);
  EXPECT_EQ(two.failure_kind(), "shape_mismatch") << two.describe();
}

// The reference of reference_threads forks work onto LibTorch's inter-op pool on its large config,
// which creates that pool's threads between the kernel's calls (seen: 2 threads, then 5); the
// honest single-threaded kernel is not blamed for them (the thread count alone used to blame it).
TEST(CpuFixtureThreads, ThreadsTheReferenceStartsAreNotTheKernels) {
  evaluation::WorkerClient worker(evaluation::WorkerOptions{});
  auto request = test_request("forward", "multi", 3, 0.2);
  const std::string task = source_dir() + "/tests/tasks/reference_threads";
  auto e =
      evaluate(worker, evaluation::Backend::cpu, task, task + "/kernels/forward_cpu.cpp", request);
  EXPECT_EQ(e.verdict(), "correct") << e.describe();
  EXPECT_EQ(e.outcome.result["configs"].as_array().size(), 2u) << e.describe();
}

INSTANTIATE_TEST_SUITE_P(Bundled, CpuFixture,
                         testing::Combine(testing::ValuesIn(fixtures(source_dir() + "/tasks",
                                                                     "_cpu.cpp")),
                                          testing::ValuesIn(both_headers)),
                         name_of);
INSTANTIATE_TEST_SUITE_P(TestTask, CpuFixture,
                         testing::Combine(testing::ValuesIn(fixtures(source_dir() + "/tests/tasks",
                                                                     "_cpu.cpp")),
                                          testing::ValuesIn(both_headers)),
                         name_of);
// Every CPU template of the task's recognised family, with its defaults and the traits the task
// fixes (its signature, its epilogue), is correct on the task: what `kforge run` proposes first.
// Built both ways, as the fixtures are.
class CpuTemplate : public testing::TestWithParam<std::tuple<std::string, evaluation::Headers>> {};

TEST_P(CpuTemplate, DefaultsAreCorrectOnTheTask) {
  const auto& [task, headers] = GetParam();
  const auto& t = exported(task);
  ASSERT_TRUE(t.ok);
  auto family = builtin::recognise_family(t.doc["directions"]["forward"], "forward");
  ASSERT_FALSE(family.family.empty()) << family.why_not;
  const builtin::ParamValues traits(family.traits.begin(), family.traits.end());
  evaluation::WorkerClient worker(evaluation::WorkerOptions{});
  auto request = test_request("forward", "single", 3);
  int tried = 0;
  for (const auto& tpl : builtin::builtin_templates()) {
    if (tpl.family() != family.family || tpl.backend() != "cpu" || !tpl.supports(traits)) continue;
    ++tried;
    auto path = std::filesystem::temp_directory_path() /
                ("kforge_template_" + std::to_string(::getpid()) + "_" + tpl.name() + ".cpp");
    std::ofstream(path) << tpl.render(tpl.defaults(), traits);
    auto e = evaluate(worker, evaluation::Backend::cpu, task, path, request, "sm_90", headers);
    EXPECT_EQ(e.verdict(), "correct") << tpl.name() << "\n" << e.describe();
    EXPECT_EQ(e.compile.headers, headers == evaluation::Headers::full ? "full" : "light")
        << tpl.name() << "\n"
        << e.describe();
    std::filesystem::remove(path);
  }
  EXPECT_GT(tried, 0) << "no CPU template for " << family.family;
}

INSTANTIATE_TEST_SUITE_P(
    BuiltinTemplate, CpuTemplate,
    testing::Combine(testing::ValuesIn(template_tasks()), testing::ValuesIn(both_headers)),
    [](const testing::TestParamInfo<std::tuple<std::string, evaluation::Headers>>& info) {
      return std::filesystem::path(std::get<0>(info.param)).filename().string() + "_" +
             headers_suffix(std::get<1>(info.param));
    });

// Each family of CPU templates has a task above (a new template needs a task to be checked on).
TEST(CpuTemplateCoverage, EveryFamilyHasATask) {
  std::set<std::string> families, covered;
  for (const auto& tpl : builtin::builtin_templates())
    if (tpl.backend() == "cpu") families.insert(tpl.family());
  for (const auto& task : template_tasks())
    covered.insert(
        builtin::recognise_family(exported(task).doc["directions"]["forward"], "forward").family);
  for (const auto& f : families) EXPECT_TRUE(covered.count(f)) << f;
}

}  // namespace
}  // namespace kforge::test
