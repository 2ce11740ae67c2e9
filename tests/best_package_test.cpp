// The package `kforge best` writes (tools/kforge/best_package.hpp): here, that a kernel nvcc's
// device compiler crashed on is packaged with the flags the compiler pool built and timed it with,
// in both of the package's ways of building it, and that the other direction's kernel is not.
#include <gtest/gtest.h>

#include <filesystem>

#include "common/json.hpp"
#include "evaluation/compiler.hpp"
#include "evaluation/hashing.hpp"
#include "tools/kforge/best_package.hpp"

namespace kforge::test {
namespace {

cli::BestKernel kernel(int64_t candidate) {
  cli::BestKernel k;
  k.candidate_id = candidate;
  k.source = "// kernel " + std::to_string(candidate) + "\n";
  k.speedup = 1.5;
  k.results.array();
  return k;
}

TEST(BestPackage, AKernelNvccCrashedOnIsBuiltWithTheFlagsItWasTimedWith) {
  auto doc =
      json::parse(R"({"directions": {"forward": {"configs": [{"args": [{"name": "x"}]}]}}})");
  ASSERT_TRUE(doc.value) << doc.error;
  cli::BestPackage p;
  p.task = "t";
  p.backend = "cuda";
  p.archive_path = "/archive.db";
  p.experiment_id = 1;
  p.export_doc = *doc.value;
  p.forward = kernel(3);
  p.forward->extra_cuda_flags = evaluation::kCompilerCrashFlags;
  const auto dir = std::filesystem::temp_directory_path() / "kforge_best_package_test" / "crashed";
  std::filesystem::remove_all(dir);
  auto written = cli::write_best_package(p, dir.string());
  ASSERT_TRUE(written) << written.error;
  const auto init = evaluation::read_file((dir / "__init__.py").string()).text;
  EXPECT_NE(init.find(R"(_EXTRA_CUDA_CFLAGS = {"forward": ["-Xcicc", "-O1"]})"), std::string::npos)
      << init;
  EXPECT_NE(init.find("extra_cuda_cflags=_CUDA_CFLAGS + _EXTRA_CUDA_CFLAGS.get(direction, [])"),
            std::string::npos)
      << init;
  const auto setup = evaluation::read_file((dir / "setup.py").string()).text;
  EXPECT_NE(setup.find(R"(-D__CUDA_NO_HALF2_OPERATORS__", "-Xcicc", "-O1"])"), std::string::npos)
      << setup;

  // A kernel built with the codegen flags alone is packaged with them alone.
  p.forward->extra_cuda_flags.clear();
  std::filesystem::remove_all(dir);
  written = cli::write_best_package(p, dir.string());
  ASSERT_TRUE(written) << written.error;
  EXPECT_NE(
      evaluation::read_file((dir / "__init__.py").string()).text.find("_EXTRA_CUDA_CFLAGS = {}"),
      std::string::npos);
  EXPECT_EQ(evaluation::read_file((dir / "setup.py").string()).text.find("-Xcicc"),
            std::string::npos);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace kforge::test
