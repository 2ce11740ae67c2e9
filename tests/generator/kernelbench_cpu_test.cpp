// KernelBench's level 1 and 2 problems (tests/kernelbench/upstream: the public files, unchanged),
// imported at small sizes (--shrink 16), on the CPU backend: the kernel generator writes a kernel
// for each that the evaluator finds correct. CI runs every tenth problem of each level (1, 11, 21,
// ...: 20 of 200, to keep the suite's time); KFORGE_KERNELBENCH_ALL=1 runs all 200. What the
// generator cannot do yet is listed below with the reason the test expects to see.
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>

#include "evaluation/build_config.hpp"
#include "evaluation/process.hpp"
#include "evaluation/python_scripts.hpp"
#include "evaluation/task_export.hpp"
#include "tests/generator/op_cases.hpp"

namespace kforge::test {
namespace {

struct Problem {
  std::string level, file, name;
};

void PrintTo(const Problem& p, std::ostream* os) {
  *os << p.level << "/" << p.name;
}

std::vector<Problem> problems() {
  const bool all = std::getenv("KFORGE_KERNELBENCH_ALL") != nullptr;
  std::vector<Problem> out;
  for (const char* level : {"level1", "level2"}) {
    const auto dir = std::filesystem::path(source_dir()) / "tests/kernelbench/upstream" / level;
    if (!std::filesystem::exists(dir)) continue;
    for (const auto& e : std::filesystem::directory_iterator(dir)) {
      const std::string name = e.path().stem();
      const int number = std::atoi(name.c_str());
      if (e.path().extension() == ".py" && (all || number % 10 == 1))
        out.push_back({level, e.path().string(), name});
    }
  }
  std::sort(out.begin(), out.end(), [](const Problem& a, const Problem& b) {
    return a.level != b.level ? a.level < b.level
                              : std::atoi(a.name.c_str()) < std::atoi(b.name.c_str());
  });
  return out;
}

/// What the generator cannot do yet (or what cannot be a task at small sizes on this torch), with
/// the words the failure must contain.
const std::map<std::string, std::string>& known_limits() {
  static const std::map<std::string, std::string> limits = {
      // dropout in training mode draws new values each call: no reference reproduces it
      {"level2/66_Matmul_Dropout_Softmax", "does not reproduce"},
      // F.scaled_dot_product_attention is newer than Debian's torch 1.13
      {"level1/97_ScaledDotProductAttention", "scaled_dot_product_attention"},
      // dropout after a clamp to [0, 1] of min(x, 0): zeros, so the export stands, but the
      // generator does not lower the random draw
      {"level2/83_Conv3d_GroupNorm_Min_Clamp_Dropout", "aten.bernoulli_"},
      // shrinking the sizes breaks these problems: LayerNorm's normalized_shape is a literal
      {"level2/3_ConvTranspose3d_Sum_LayerNorm_AvgPool_GELU", "normalized_shape"},
      {"level2/34_ConvTranspose3d_LayerNorm_GELU_Scaling", "normalized_shape"},
  };
  return limits;
}

class KernelBenchCpu : public testing::TestWithParam<Problem> {};

TEST_P(KernelBenchCpu, GeneratedKernelIsCorrectAtSmallSizes) {
  const auto& p = GetParam();
  const auto root = std::filesystem::temp_directory_path() / "kforge_kernelbench_cpu" / p.level;
  std::filesystem::create_directories(root);
  auto spawn = evaluation::task_script("", build::kernelbench_importer,
                                       {"--out", root.string(), "--shrink", "16", p.file});
  // Through the suite's warm interpreter where one serves (about 2.5 s less a problem).
  auto imported = evaluation::run_script(spawn, std::chrono::minutes(5));
  const auto known = known_limits().find(p.level + "/" + p.name);
  std::string problem;
  if (imported.exit_code != 0)
    problem = "import failed: " + imported.output;
  else
    problem = check_generated((root / p.name).string(), evaluation::Backend::cpu);
  if (known != known_limits().end()) {
    EXPECT_NE(problem.find(known->second), std::string::npos)
        << "listed as not yet possible (" << known->second
        << "), but: " << (problem.empty() ? "it is correct now: take it off the list" : problem);
    return;
  }
  EXPECT_EQ(problem, "");
}

INSTANTIATE_TEST_SUITE_P(Problems, KernelBenchCpu, testing::ValuesIn(problems()),
                         [](const auto& info) {
                           std::string n = info.param.level + "_" + info.param.name;
                           for (auto& c : n)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return n;
                         });

}  // namespace
}  // namespace kforge::test
