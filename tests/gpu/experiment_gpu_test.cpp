// The GPU suite's experiment (label `gpu`): `kforge run` with the built-in proposer on the cuda
// backend, every multi config of every bundled forward task and of the forward tasks in
// robust-kbench's shape (layernorm over trailing dimensions with eps only, RMSNorm, a plain
// linear, a linear on tokens), a few candidates each; every task must end with a correct kernel,
// and the archive must hold the profiles (registers from ptxas, the kernel trace and the
// hardware counters that `kforge show` prints). Skips itself where there is no CUDA build or no
// GPU.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "archive/archive.hpp"
#include "common/json.hpp"
#include "evaluation/process.hpp"
#include "tests/test_support.hpp"

namespace kforge::test {
namespace {

namespace fs = std::filesystem;

TEST(GpuExperiment, EveryBundledForwardTaskGetsACorrectKernel) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA build or no GPU";
  fs::path dir =
      fs::temp_directory_path() / ("kforge_gpu_experiment_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "experiment.json")
      << R"({"name": "gpu-suite", "seed": 3, "tasks": ["tasks/softmax", "tasks/layernorm",
      "tasks/cross_entropy", "tasks/linear_relu", "tests/tasks/rkb_layernorm",
      "tests/tasks/rkb_rmsnorm", "tests/tasks/rkb_linear", "tests/tasks/rkb_linear_tokens"],
      "directions": ["forward"],
      "backends": ["cuda"], "config_set": "multi",
      "budget": {"candidates_per_target": 2},
      "evaluation": {"seeds": 2, "timing_seconds": 0.2, "confirm_top": 1},
      "search": {"pipeline_depth": 12}})";
  evaluation::SpawnOptions o;
  // As from a shell: a PID namespace whose /proc is not its own stops the CUDA driver.
  o.own_pid_namespace = false;
  o.argv = {KFORGE_CLI_PATH, "run", (dir / "experiment.json").string(), "--archive",
            (dir / "archive.db").string()};
  o.set_env = {{"KFORGE_CACHE", cache_dir()}};
  o.working_dir = source_dir();
  o.isolate_network = false;
  auto r = evaluation::run(o, std::chrono::minutes(12));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  auto opened = archive::Archive::open((dir / "archive.db").string());
  ASSERT_TRUE(opened) << opened.error;
  auto& db = *opened;
  for (const char* task : {"softmax", "layernorm", "cross_entropy", "linear_relu", "rkb_layernorm",
                           "rkb_rmsnorm", "rkb_linear", "rkb_linear_tokens"}) {
    auto best = test::must(db->best(task, "forward", "cuda", "multi", 1));
    ASSERT_TRUE(best) << task << " has no correct kernel\n" << r.output;
    EXPECT_GT(best->geomean_speedup, 0) << task;
    auto profile = test::must(db->profile(best->candidate.id));
    ASSERT_TRUE(profile) << task;
    EXPECT_NE(profile->find("\"registers\""), std::string::npos) << *profile;
    // The kernel trace: the candidate's launches and eager PyTorch's, with grid and block, on
    // the config that moves the most bytes; `kforge show` prints it.
    auto doc = json::parse(*profile);
    ASSERT_TRUE(doc.value) << *profile;
    const auto& trace = (*doc.value)["trace"];
    ASSERT_FALSE(trace.contains("error")) << trace.dump();
    for (const char* side : {"candidate", "reference"}) {
      EXPECT_GE(trace[side]["launches"].as_int(), 1) << task << " " << trace.dump();
      EXPECT_GT(trace[side]["ms"].as_number(), 0) << task << " " << trace.dump();
      // At least one kernel with its launch configuration (copies and sets have none).
      bool kernel = false;
      for (const auto& g : trace[side]["top"].as_array())
        kernel |= !g["name"].as_string().empty() && g["grid"][0].as_int() >= 1 &&
                  g["block"][0].as_int() >= 1;
      EXPECT_TRUE(kernel) << task << " " << side << ": " << trace.dump();
    }
    // The hardware counters of the same launches: the longest kernel of each side with its
    // occupancy, DRAM share and place on the roofline, named as the trace names it.
    const auto& counters = (*doc.value)["counters"];
    ASSERT_FALSE(counters.contains("error")) << task << " " << counters.dump();
    for (const char* side : {"candidate", "reference"}) {
      const auto& s = counters[side];
      EXPECT_GE(s["kernels"].as_int(), 1) << task << " " << counters.dump();
      EXPECT_GE(s["passes"].as_int(), 1) << task << " " << counters.dump();
      ASSERT_FALSE(s["top"].as_array().empty()) << task << " " << counters.dump();
      const auto& k = s["top"][0];
      EXPECT_GT(k["ms"].as_number(), 0) << task << " " << counters.dump();
      EXPECT_GT(k["occupancy_pct"].as_number(), 0) << task << " " << counters.dump();
      EXPECT_LE(k["occupancy_pct"].as_number(), 100.5) << task << " " << counters.dump();
      EXPECT_GT(k["sm_pct"].as_number() + k["dram_pct"].as_number(), 0) << task;
      EXPECT_GT(k["roofline"]["pct_of_roof"].as_number(), 0) << task << " " << counters.dump();
      EXPECT_EQ(k["name"].as_string().rfind("kernel ", 0), std::string::npos)
          << task << " " << side << " kernels were not named after the trace: " << counters.dump();
    }
    evaluation::SpawnOptions so;
    so.own_pid_namespace = false;
    so.argv = {KFORGE_CLI_PATH, "show", std::to_string(best->candidate.id), "--archive",
               (dir / "archive.db").string()};
    so.isolate_network = false;
    auto shown = evaluation::run(so, std::chrono::minutes(1));
    EXPECT_NE(shown.output.find("kernel trace on "), std::string::npos) << shown.output;
    EXPECT_NE(shown.output.find("eager PyTorch: "), std::string::npos) << shown.output;
    EXPECT_NE(shown.output.find("hardware counters on "), std::string::npos) << shown.output;
    EXPECT_NE(shown.output.find("warp stalls, cycles per issued instruction: "), std::string::npos)
        << shown.output;
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace kforge::test
