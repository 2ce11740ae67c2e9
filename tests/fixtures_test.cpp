// Every bundled CPU fixture kernel (tasks/<task>/kernels/*_cpu.cpp), and every CPU template of the
// built-in proposer with its defaults (llm/builtin/templates/*_cpu*.cpp), is correct on its task.
#include <gtest/gtest.h>

#include <filesystem>

#include "tests/test_support.hpp"

namespace kforge::test {
namespace {

struct Fixture {
  std::string task, kernel, direction;
};

std::vector<Fixture> fixtures(const std::string& suffix) {
  std::vector<Fixture> out;
  for (const auto& task : std::filesystem::directory_iterator(source_dir() + "/tasks")) {
    auto kernels = task.path() / "kernels";
    if (!std::filesystem::exists(kernels)) continue;
    for (const auto& k : std::filesystem::directory_iterator(kernels)) {
      std::string name = k.path().filename();
      if (name.size() < suffix.size() ||
          name.compare(name.size() - suffix.size(), suffix.size(), suffix))
        continue;
      out.push_back({task.path().filename(), k.path(),
                     name.rfind("backward", 0) == 0 ? "backward" : "forward"});
    }
  }
  std::sort(out.begin(), out.end(),
            [](const auto& a, const auto& b) { return a.kernel < b.kernel; });
  return out;
}

/// The built-in proposer's CPU templates, each on the bundled task of its family (the file name
/// starts with the family: softmax_f32_cpu_rows.cpp -> tasks/softmax).
std::vector<Fixture> cpu_templates() {
  std::vector<Fixture> out;
  for (const auto& f :
       std::filesystem::directory_iterator(source_dir() + "/llm/builtin/templates")) {
    std::string name = f.path().filename();
    if (f.path().extension() != ".cpp") continue;
    out.push_back({name.substr(0, name.find("_f32")), f.path(), "forward"});
  }
  std::sort(out.begin(), out.end(),
            [](const auto& a, const auto& b) { return a.kernel < b.kernel; });
  return out;
}

void PrintTo(const Fixture& f, std::ostream* os) {
  *os << f.kernel;
}

std::string name_of(const testing::TestParamInfo<Fixture>& info) {
  return info.param.task + "_" + std::filesystem::path(info.param.kernel).stem().string();
}

class CpuFixture : public testing::TestWithParam<Fixture> {};

TEST_P(CpuFixture, IsCorrectOnTheSingleConfigs) {
  const auto& f = GetParam();
  gpu::WorkerClient worker(gpu::WorkerOptions{});
  json::Value request;
  request.set("direction", f.direction).set("mode", "single").set("seeds", 3);
  json::Value timing;
  timing.set("max_seconds", 0.3).set("min_reps", 3).set("max_reps", 5);
  request.set("timing", timing);
  auto e = evaluate(worker, gpu::Backend::cpu, f.task, f.kernel, request);
  ASSERT_TRUE(e.compile.ok) << e.describe();
  EXPECT_EQ(e.verdict(), "correct") << e.describe();
  for (const auto& c : e.outcome.result["configs"].as_array()) {
    EXPECT_EQ(c["seeds_passed"].as_int(), 3);
    EXPECT_GT(c["candidate"]["median_ms"].as_number(), 0);
    EXPECT_GT(c["reference"]["median_ms"].as_number(), 0);
  }
}

INSTANTIATE_TEST_SUITE_P(Bundled, CpuFixture, testing::ValuesIn(fixtures("_cpu.cpp")), name_of);
INSTANTIATE_TEST_SUITE_P(BuiltinTemplate, CpuFixture, testing::ValuesIn(cpu_templates()), name_of);

}  // namespace
}  // namespace kforge::test
