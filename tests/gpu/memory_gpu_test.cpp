// Out of GPU memory on a GPU another process filled (as torch.compile baseline builds filled it on
// KernelBench level 1 at full size) is no verdict on the kernel: an error that gives the numbers,
// after a fresh worker tried again. With the GPU free, the same kernel on the same task is correct.
#include <gtest/gtest.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>

#include "evaluation/baseline_gpus.hpp"
#include "evaluation/process.hpp"
#include "evaluation/task_export.hpp"
#include "tests/test_support.hpp"

namespace kforge::test {
namespace {

namespace fs = std::filesystem;

// The bundled softmax task at 32768 x 32768: 4 GiB a tensor.
std::string large_softmax_task() {
  const fs::path dir = fs::temp_directory_path() / "kforge_gpu_memory" / "softmax_4gib";
  fs::create_directories(dir);
  fs::copy_file(source_dir() + "/tasks/softmax/func_forward.py", dir / "func_forward.py",
                fs::copy_options::overwrite_existing);
  std::ofstream(dir / "config_forward.json")
      << R"({"single_input_configs": [{"batch_size": 32768, "num_features": 32768}],
             "single_init_configs": [{"dim": -1}], "single_shared_configs": [{}]})";
  return dir.string();
}

// Another process holding all but `left` bytes of the GPU until it is destroyed; "" or why not.
std::string fill_gpu(evaluation::Child& holder, int64_t left) {
  evaluation::SpawnOptions o;
  o.argv = {evaluation::task_python(), "-c",
            "import time, torch\n"
            "free, total = torch.cuda.mem_get_info()\n"
            "held = torch.empty(max(0, free - " +
                std::to_string(left) +
                "), dtype=torch.uint8, device='cuda')\n"
                "print('held', held.numel(), flush=True)\n"
                "time.sleep(900)\n"};
  o.isolate_network = false;
  o.own_pid_namespace = false;
  auto started = evaluation::spawn(o);
  if (!started.child) return started.error;
  holder = std::move(*started.child);
  std::string output;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (output.find("held ") == std::string::npos) {
    if (std::chrono::steady_clock::now() > deadline || holder.try_wait())
      return "the holder did not say it holds the memory: " + output;
    pollfd p{holder.output_fd(), POLLIN, 0};
    if (poll(&p, 1, 1000) > 0) {
      char buffer[512];
      const ssize_t n = read(holder.output_fd(), buffer, sizeof buffer);
      if (n > 0) output.append(buffer, static_cast<size_t>(n));
    }
  }
  return "";
}

// What lets torch.compile baseline builds of large tasks share a GPU (BaselineGpus).
TEST(GpuMemory, TheGpusMemoryIsKnownByItsIndexAndItsUuid) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA build or no GPU";
  const auto by_index = evaluation::gpu_memory_bytes({"0"});
  ASSERT_EQ(by_index.size(), 1u);
  EXPECT_GT(by_index[0], int64_t{8} << 30) << "nvidia-smi's memory.total of GPU 0";
  evaluation::SpawnOptions o;
  o.argv = {"nvidia-smi", "--query-gpu=uuid", "--format=csv,noheader", "--id=0"};
  const auto uuid = evaluation::run(o, std::chrono::seconds(20));
  ASSERT_TRUE(uuid.ok()) << uuid.output;
  const std::string name = uuid.output.substr(0, uuid.output.find_first_of("\r\n"));
  EXPECT_EQ(evaluation::gpu_memory_bytes({name}), by_index) << name;
}

TEST(GpuMemory, OutOfMemoryOnAGpuAnotherProcessFilledIsNoVerdictOnTheKernel) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA build or no GPU";
  const std::string task = large_softmax_task();
  const std::string kernel = source_dir() + "/tasks/softmax/kernels/forward_cuda.cu";
  evaluation::WorkerOptions o;
  o.backend = evaluation::Backend::cuda;
  o.crowded_retries = 1;
  o.crowded_wait = std::chrono::seconds(1);
  evaluation::WorkerClient worker(o);
  ASSERT_EQ(worker.ensure_started(), "");
  std::string cc = worker.ready()["device"]["compute_capability"].as_string("9.0");
  cc.erase(std::remove(cc.begin(), cc.end(), '.'), cc.end());
  const std::string arch = "sm_" + cc;
  const auto request = test_request("forward", "single", 1);

  auto alone = evaluate(worker, evaluation::Backend::cuda, task, kernel, request, arch);
  ASSERT_EQ(alone.verdict(), "correct") << alone.describe();
  worker.stop();

  evaluation::Child holder;
  ASSERT_EQ(fill_gpu(holder, int64_t{6} << 30), "");
  auto crowded = evaluate(worker, evaluation::Backend::cuda, task, kernel, request, arch);
  holder.kill_group();
  holder.wait();
  EXPECT_EQ(crowded.verdict(), "error") << crowded.describe();
  EXPECT_EQ(crowded.failure_kind(), "infrastructure") << crowded.describe();
  const std::string message = crowded.outcome.result["failure"]["message"].as_string();
  EXPECT_NE(message.find("were held outside the worker's allocator"), std::string::npos) << message;
  EXPECT_NE(message.find("2 times: no verdict on the kernel"), std::string::npos) << message;
}

}  // namespace
}  // namespace kforge::test
