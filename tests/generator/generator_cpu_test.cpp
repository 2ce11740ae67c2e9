// The kernel generator on the CPU backend: every case of the op table
// (tests/generator/op_cases.hpp) gets a generated kernel that the evaluator finds correct on all
// its shape sets; an operator the generator does not know yet is named, never computed wrongly.
#include <gtest/gtest.h>

#include "generator/generate.hpp"
#include "tests/generator/op_cases.hpp"

namespace kforge::test {
namespace {

class GeneratedCpu : public testing::TestWithParam<OpCase> {};

TEST_P(GeneratedCpu, IsCorrectOnEveryShapeSet) {
  const auto root = std::filesystem::temp_directory_path() / "kforge_generator_cpu_cases";
  const auto dir = write_op_task(GetParam(), root);
  EXPECT_EQ(check_generated(dir, evaluation::Backend::cpu), "");
}

INSTANTIATE_TEST_SUITE_P(Ops, GeneratedCpu, testing::ValuesIn(op_cases()),
                         [](const auto& info) { return info.param.name; });

TEST(GeneratedCpuLimits, AnOperatorItCannotLowerIsNamedWithTheConfig) {
  const auto root = std::filesystem::temp_directory_path() / "kforge_generator_cpu_cases";
  const auto dir = write_op_task(
      {"sort", "x", "torch.sort(x, dim=1).values * 2", {"[torch.randn(3, 4)]"}}, root);
  const auto& task = exported(dir);
  ASSERT_TRUE(task.ok) << task.error;
  auto g = generator::generate_kernel(
      {task.dir, task.doc["directions"]["forward"], "forward", "cpu", {}});
  ASSERT_FALSE(g);
  EXPECT_NE(g.error.find("aten.sort"), std::string::npos) << g.error;
  EXPECT_NE(g.error.find("config 0 (shape_set=0)"), std::string::npos) << g.error;
}

}  // namespace
}  // namespace kforge::test
