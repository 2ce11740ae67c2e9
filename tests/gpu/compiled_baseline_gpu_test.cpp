// The torch.compile baseline on the GPU (label `gpu`): `kforge eval --compiled` builds the
// AOTInductor libraries of a task's configs and the worker times them next to the kernel, forward
// (forward_fn compiled) and backward (AOTAutograd's backward graph compiled, timed alone as the
// eager backward is). Every config must have a compiled time and a speedup over it, and the
// compiled code must agree with the reference (a config where it does not says so instead).
// Skips itself where there is no CUDA build or no GPU.
#include <gtest/gtest.h>

#include "evaluation/process.hpp"
#include "tests/test_support.hpp"

namespace kforge::test {
namespace {

TEST(GpuCompiledBaseline, ForwardAndBackwardConfigsAreTimedAgainstTorchCompile) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA build or no GPU";
  const std::string task = source_dir() + "/tasks/linear_relu";
  for (const char* direction : {"forward", "backward"}) {
    evaluation::SpawnOptions o;
    // As from a shell: a PID namespace whose /proc is not its own stops the CUDA driver.
    o.own_pid_namespace = false;
    o.argv = {KFORGE_CLI_PATH, "eval",
              "--task",        task,
              "--kernel",      task + "/kernels/" + direction + "_cuda.cu",
              "--backend",     "cuda",
              "--configs",     "single",
              "--seeds",       "2",
              "--max-seconds", "0.5",
              "--compiled",    "default",
              "--cache",       cache_dir(),
              "--json"};
    o.isolate_network = false;
    auto r = evaluation::run(o, std::chrono::minutes(10));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    auto doc = json::parse(r.output.substr(r.output.find('{')));
    ASSERT_TRUE(doc.value) << doc.error << "\n" << r.output;
    ASSERT_FALSE((*doc.value)["configs"].as_array().empty()) << r.output;
    for (const auto& c : (*doc.value)["configs"].as_array()) {
      EXPECT_FALSE(c.contains("compiled_unavailable")) << direction << ": " << c.dump();
      EXPECT_GT(c["compiled_ms"].as_number(), 0) << direction << ": " << c.dump();
      EXPECT_GT(c["speedup_compiled"].as_number(), 0) << direction << ": " << c.dump();
      EXPECT_GT(c["compiled"]["reps"].as_int(), 0) << direction << ": " << c.dump();
    }
  }
}

}  // namespace
}  // namespace kforge::test
