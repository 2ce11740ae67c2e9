// kforge-compare-bench: the worker's output comparison (evaluation/worker/checks.hpp) of CPU
// float32 outputs against their reference, its one pass and ATen's sliced operations side by side
// in one run, at sizes from a small config's to KernelBench's 8192 x 8192 softmax (67M values),
// each the median of `--reps` comparisons of an output within the tolerance of its reference (the
// common case: every element is looked at). ATen's intra-op threads as the worker has them
// (`--threads` sets them; 0 leaves ATen's default). Then the same for an output that misses its
// float32 reference at one element and is judged against the float64 one (eager's float32 result
// and the kernel each against it: what a mismatch costs beyond the comparison, the float64 run
// left out).
//
//   build/bench/kforge-compare-bench --reps 5 --threads 0
#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "evaluation/worker/checks.hpp"

using namespace kforge::worker;

namespace {

/// The median time of `reps` comparisons; with `exact`, judged against it, and the verdict must be
/// a failure (the bench's output misses by 1 where float64 agrees with eager).
double median_seconds(int reps, const at::Tensor& got, const at::Tensor& expected, ErrorPass pass,
                      const at::Tensor& exact = {}) {
  std::vector<double> t;
  const ExactReference reference = [&] { return std::vector<at::Tensor>{exact}; };
  for (int r = 0; r < reps; ++r) {
    const auto start = std::chrono::steady_clock::now();
    const auto c = exact.defined()
                       ? compare_outputs({got}, {expected}, std::nullopt, {"out"}, reference, pass)
                       : compare_outputs({got}, {expected}, std::nullopt, {"out"}, pass);
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    if (c.failure.has_value() != exact.defined()) {
      std::fprintf(stderr, "unexpected verdict: %s\n",
                   c.failure ? c.failure->message.c_str() : "within the tolerance");
      std::exit(1);
    }
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 5, threads = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--reps"))
      reps = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--threads"))
      threads = std::atoi(argv[i + 1]);
    else {
      std::fprintf(stderr, "usage: %s [--reps N] [--threads N]\n", argv[0]);
      return 2;
    }
  }
  if (reps < 1) reps = 1;
  if (threads > 0) at::set_num_threads(threads);
  std::printf("ATen threads: %d, median of %d\n", at::get_num_threads(), reps);
  std::printf("%12s %12s %12s %10s\n", "values", "one pass s", "ATen s", "ratio");
  for (int64_t n : {int64_t{1} << 16, int64_t{1} << 20, int64_t{1} << 24, int64_t{8192} * 8192}) {
    at::manual_seed(1);
    const auto expected = at::randn({n});
    const auto got = expected + at::randn({n}) * 1e-7;
    const double fused = median_seconds(reps, got, expected, ErrorPass::fused);
    const double aten = median_seconds(reps, got, expected, ErrorPass::aten);
    std::printf("%12lld %12.4f %12.4f %9.1fx\n", static_cast<long long>(n), fused, aten,
                aten / fused);
  }
  std::printf("judged against float64 (one element off by 1):\n");
  std::printf("%12s %12s %12s %10s\n", "values", "one pass s", "ATen s", "ratio");
  for (int64_t n : {int64_t{1} << 16, int64_t{1} << 20, int64_t{1} << 24, int64_t{8192} * 8192}) {
    at::manual_seed(1);
    const auto exact = at::randn({n}, at::kDouble);
    const auto expected = exact.to(at::kFloat);
    auto got = expected.clone();
    got[n - 1] += 1.0f;
    const double fused = median_seconds(reps, got, expected, ErrorPass::fused, exact);
    const double aten = median_seconds(reps, got, expected, ErrorPass::aten, exact);
    std::printf("%12lld %12.4f %12.4f %9.1fx\n", static_cast<long long>(n), fused, aten,
                aten / fused);
  }
  return 0;
}
