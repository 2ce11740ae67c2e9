// kforge-compare-bench: the worker's output comparison (evaluation/worker/checks.hpp) of CPU
// float32 outputs against their reference, its one pass and ATen's sliced operations side by side
// in one run, at sizes from a small config's to KernelBench's 8192 x 8192 softmax (67M values),
// each the median of `--reps` comparisons of an output within the tolerance of its reference (the
// common case: every element is looked at). ATen's intra-op threads as the worker has them
// (`--threads` sets them; 0 leaves ATen's default).
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

double median_seconds(int reps, const at::Tensor& got, const at::Tensor& expected, ErrorPass pass) {
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    const auto start = std::chrono::steady_clock::now();
    const auto c = compare_outputs({got}, {expected}, std::nullopt, {"out"}, pass);
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    if (c.failure) {
      std::fprintf(stderr, "unexpected failure: %s\n", c.failure->message.c_str());
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
  return 0;
}
