// Where torch.compile baseline builds run: spread over the GPUs, large tasks a GPU while three
// times their tensors fit in 40 % of its memory (one at a time where it is not known).
#include "evaluation/baseline_gpus.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <future>

namespace kforge::evaluation {
namespace {

constexpr int64_t kLarge = int64_t{1} << 30;

// A build of `bytes` asked for while `holder` is held: it waits (200 ms), and once `holder` is
// released it gets a GPU; that GPU's name, or "still waiting".
std::string device_once_released(BaselineGpus& gpus, int64_t bytes, BaselineGpus::Lease& holder) {
  auto waiting = std::async(std::launch::async, [&] { return gpus.acquire(bytes).device(); });
  EXPECT_EQ(waiting.wait_for(std::chrono::milliseconds(200)), std::future_status::timeout);
  holder = BaselineGpus::Lease();
  if (waiting.wait_for(std::chrono::seconds(10)) != std::future_status::ready)
    return "still waiting";
  return waiting.get();
}

TEST(BaselineGpus, BuildsGoToTheLeastBusyGpu) {
  BaselineGpus gpus({"2", "3"});
  auto a = gpus.acquire(1000);
  auto b = gpus.acquire(1000);
  auto c = gpus.acquire(1000);
  EXPECT_EQ(a.device(), "2");
  EXPECT_EQ(b.device(), "3");
  EXPECT_EQ(c.device(), "2");
  b = BaselineGpus::Lease();  // released
  EXPECT_EQ(gpus.acquire(1000).device(), "3");
}

TEST(BaselineGpus, WhereTheMemoryIsNotKnownALargeTaskWaitsUntilAGpuHasNoLargeBuild) {
  BaselineGpus gpus({"0", "1"});
  auto small = gpus.acquire(1000);
  auto first = gpus.acquire(kLarge);
  auto second = gpus.acquire(5 * kLarge);
  EXPECT_EQ(first.device(), "1");  // the GPU without a build
  EXPECT_EQ(second.device(), "0");
  // Small tasks still go anywhere; a third large one waits for the first.
  EXPECT_FALSE(gpus.acquire(1000).device().empty());
  EXPECT_EQ(device_once_released(gpus, kLarge, first), "1");
}

TEST(BaselineGpus, LargeTasksShareAGpuWhileThriceTheirTensorsFitIn40PercentOfItsMemory) {
  BaselineGpus gpus({"0"}, {100 * kLarge});
  auto a = gpus.acquire(10 * kLarge);
  auto b = gpus.acquire(3 * kLarge);  // 3 x 13 GiB of 40: fits
  EXPECT_EQ(b.device(), "0");
  EXPECT_EQ(gpus.acquire(1000).device(), "0");  // small tasks do not count
  EXPECT_EQ(device_once_released(gpus, kLarge, a), "0");  // 3 x 14 GiB would not fit beside a
}

TEST(BaselineGpus, ATaskTooLargeToShareBuildsAlone) {
  BaselineGpus gpus({"0"}, {100 * kLarge});
  auto huge = gpus.acquire(20 * kLarge);
  EXPECT_EQ(huge.device(), "0");
  EXPECT_EQ(device_once_released(gpus, kLarge, huge), "0");
}

TEST(BaselineGpus, TheMemoryOfAGpuNobodyHasIsNotKnown) {
  // No nvidia-smi (CI), or no GPU of that name: 0, one large build at a time.
  EXPECT_EQ(gpu_memory_bytes({"no-such-gpu"}), std::vector<int64_t>{0});
  EXPECT_TRUE(gpu_memory_bytes({}).empty());
}

TEST(BaselineGpus, WithoutGpusNothingWaitsAndNoDeviceIsChosen) {
  BaselineGpus gpus({});
  auto a = gpus.acquire(kLarge);
  auto b = gpus.acquire(kLarge);
  EXPECT_EQ(a.device(), "");
  EXPECT_EQ(b.device(), "");
}

TEST(BaselineGpus, ATasksSizeIsItsLargestConfigsTensors) {
  auto doc = json::parse(R"({"directions": {
    "forward": {"configs": [
      {"args": [{"name": "x", "dtype": "float32", "shape": [4096, 393216]}, {"name": "dim", "value": 1}],
       "outputs": [{"dtype": "float32", "shape": [4096, 393216]}]},
      {"args": [{"name": "x", "dtype": "float32", "shape": [2, 3]}],
       "outputs": [{"dtype": "int64", "shape": [2]}]}]},
    "backward": {"error": "no func_backward.py"}}})");
  ASSERT_TRUE(doc.value);
  EXPECT_EQ(largest_config_bytes(*doc.value),
            int64_t{2} * 4096 * 393216 * 4);  // KernelBench's ReLU
  EXPECT_EQ(largest_config_bytes(json::Value{}), 0);
}

}  // namespace
}  // namespace kforge::evaluation
