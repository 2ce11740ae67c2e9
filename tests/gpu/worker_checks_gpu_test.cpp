// The worker's output comparison on a GPU's tensors (evaluation/worker/checks.hpp): ATen's sliced
// operations on the device must reach the verdict, the message, the largest errors and the notes
// that the one pass reaches over the same values in CPU memory, for the comparison with eager's
// result and for the judgement against the float64 reference. A CUDA kernel's outputs are checked
// this way on the GPU host; tests/worker_checks_test.cpp checks the same ATen code on the CPU.
#include <gtest/gtest.h>

#include <ATen/ATen.h>

#include <cmath>
#include <limits>

#include "evaluation/worker/checks.hpp"
#include "tests/test_support.hpp"

namespace kforge::worker {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

/// Skips without a GPU; fails where there is one and ATen cannot reach it (the test would pass
/// without comparing anything).
bool gpu_ready() {
  if (!test::cuda_available()) return false;
  EXPECT_TRUE(at::hasCUDA()) << "a GPU is present, but this build's ATen has no CUDA";
  return at::hasCUDA();
}

/// The comparison of `got` with `expected` (and `exact`, if defined) in CPU memory, one pass, and
/// on the GPU, ATen's slices: the same verdict, words and errors.
void expect_same_on_gpu(const at::Tensor& got, const at::Tensor& expected, const std::string& what,
                        const at::Tensor& exact = {}) {
  const Tolerance tolerance{1e-5, 1e-5};
  auto compare = [&](const at::Tensor& g, const at::Tensor& e, const at::Tensor& x) {
    if (!x.defined()) return compare_outputs({g}, {e}, tolerance, {"x"}, ErrorPass::fused);
    const ExactReference reference = [x] { return std::vector<at::Tensor>{x}; };
    return compare_outputs({g}, {e}, tolerance, {"x"}, reference, ErrorPass::fused);
  };
  const auto cpu = compare(got, expected, exact);
  const auto gpu = compare(got.cuda(), expected.cuda(), exact.defined() ? exact.cuda() : exact);
  ASSERT_EQ(cpu.failure.has_value(), gpu.failure.has_value()) << what;
  if (cpu.failure) {
    EXPECT_EQ(cpu.failure->kind, gpu.failure->kind) << what;
    EXPECT_EQ(cpu.failure->message, gpu.failure->message) << what;
  }
  EXPECT_EQ(cpu.max_abs_error, gpu.max_abs_error) << what;
  EXPECT_EQ(cpu.max_rel_error, gpu.max_rel_error) << what;
  EXPECT_EQ(cpu.notes, gpu.notes) << what;
}

TEST(WorkerChecksGpu, TheDevicesSlicesAgreeWithTheOnePassOnEveryKindOfValue) {
  if (!gpu_ready()) GTEST_SKIP() << "no CUDA device";
  at::manual_seed(7);
  // Past one slice of 2^24 elements, so that the last slice is short.
  const int64_t n = (int64_t{1} << 24) + 1001;
  auto expected = at::randn({n});
  auto got = expected + at::randn({n}) * 1e-7;
  expect_same_on_gpu(got, expected, "within the tolerance");
  for (int64_t i : {int64_t{0}, int64_t{1} << 24, n - 1}) {
    got[i] = kInf;
    expected[i] = kInf;
  }
  got[18] = kNan;
  expected[18] = kNan;
  expect_same_on_gpu(got, expected, "equal infinities and NaN on both sides");
  auto edge = got.clone();
  edge[1000] = expected[1000].item<double>() + 2e-5;
  edge[(int64_t{1} << 24) + 5] = 1e6;
  expect_same_on_gpu(edge, expected, "outside the tolerance");
  auto infinite = got.clone();
  infinite[5] = -kInf;
  expected[5] = kInf;
  infinite[6] = 3;
  expected[6] = -kInf;
  expect_same_on_gpu(infinite, expected, "infinities that differ");
  auto unwritten = got.clone();
  unwritten[(int64_t{1} << 24) + 7] = kNan;
  expect_same_on_gpu(unwritten, expected, "NaN where the reference has a number");
}

TEST(WorkerChecksGpu, TheFloat64JudgementIsTheSameOnTheDevice) {
  if (!gpu_ready()) GTEST_SKIP() << "no CUDA device";
  at::manual_seed(11);
  const int64_t n = (int64_t{1} << 24) + 3;
  auto exact = at::randn({n}, at::kDouble);
  auto eager = exact.to(at::kFloat);
  eager[70000] = eager[70000].item<double>() + 1e-3;  // eager misses float64 here
  exact[5] = kNan;
  eager[5] = kNan;
  auto kernel = exact.to(at::kFloat);
  kernel[n - 2] = kernel[n - 2].item<double>() + 1.5e-3;  // as far as eager, in the last slice
  kernel[5] = kNan;
  expect_same_on_gpu(kernel, eager, "a kernel about as far as eager", exact);
  auto far = kernel.clone();
  far[124] = far[124].item<double>() + 3e-3;
  expect_same_on_gpu(far, eager, "a kernel three times as far", exact);
  auto overflowing = exact.to(at::kFloat);
  overflowing[9] = kInf;
  expect_same_on_gpu(exact.to(at::kFloat), overflowing, "exact where eager overflows", exact);
  auto zeros = at::zeros_like(overflowing);
  zeros[5] = kNan;
  expect_same_on_gpu(zeros, overflowing, "zeros where eager overflows", exact);
  auto elsewhere = exact.to(at::kFloat);
  elsewhere[n - 1] = -kInf;
  expect_same_on_gpu(elsewhere, overflowing, "infinite where eager is not", exact);
}

}  // namespace
}  // namespace kforge::worker
