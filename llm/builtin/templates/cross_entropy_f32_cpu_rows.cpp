// kforge:template cross_entropy_f32_cpu_rows
// kforge:family cross_entropy
// kforge:backend cpu
// Mean cross-entropy of float32 logits against int64 targets (ignore_index -100, no weights, no
// label smoothing) on the CPU: each row's log-sum-exp (two passes, or one online pass), minus the
// target's logit; the row losses are added in row order, so the result does not depend on the
// number of threads.
#include <torch/extension.h>

#include <cmath>
#include <vector>

namespace {

constexpr int kRowsPerChunk = 8;  // kforge:param rows_per_chunk 1 4 8 32
constexpr int kOnline = 1;        // kforge:param online 0 1
constexpr int64_t kIgnoreIndex = -100;

double log_sum_exp(const float* in, int64_t cols) {
  if (kOnline) {
    float m = -INFINITY;
    double s = 0;
    for (int64_t c = 0; c < cols; ++c) {
      if (in[c] > m) {
        s = (m == -INFINITY ? 0.0 : s * std::exp(static_cast<double>(m - in[c]))) + 1;
        m = in[c];
      } else {
        s += std::exp(in[c] - m);
      }
    }
    return m + std::log(s);
  }
  float m = -INFINITY;
#pragma omp simd reduction(max : m)
  for (int64_t c = 0; c < cols; ++c) m = std::max(m, in[c]);
  double s = 0;
#pragma omp simd reduction(+ : s)
  for (int64_t c = 0; c < cols; ++c) s += std::exp(in[c] - m);
  return m + std::log(s);
}

}  // namespace

torch::Tensor forward(torch::Tensor logits, torch::Tensor targets) {
  TORCH_CHECK(logits.scalar_type() == torch::kFloat32 && logits.dim() == 2, "2-D float32 logits");
  TORCH_CHECK(targets.scalar_type() == torch::kInt64 && targets.dim() == 1 &&
                  targets.size(0) == logits.size(0),
              "one int64 target per row");
  auto x = logits.contiguous();
  auto t = targets.contiguous();
  const int64_t rows = x.size(0), cols = x.size(1);
  const float* in = x.data_ptr<float>();
  const int64_t* tp = t.data_ptr<int64_t>();
  std::vector<double> loss(static_cast<size_t>(rows), 0.0);
  bool bad_target = false;
#pragma omp parallel for schedule(static, kRowsPerChunk) reduction(|| : bad_target)
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t target = tp[r];
    if (target == kIgnoreIndex) continue;
    if (target < 0 || target >= cols) {
      bad_target = true;
      continue;
    }
    loss[static_cast<size_t>(r)] = log_sum_exp(in + r * cols, cols) - in[r * cols + target];
  }
  TORCH_CHECK(!bad_target, "a target is out of range");
  double sum = 0;
  int64_t counted = 0;
  for (int64_t r = 0; r < rows; ++r) {
    sum += loss[static_cast<size_t>(r)];
    counted += tp[r] != kIgnoreIndex;
  }
  auto out = torch::empty({}, x.options());
  *out.data_ptr<float>() = static_cast<float>(sum / static_cast<double>(counted));
  return out;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("forward", &forward, "cross-entropy forward (CPU, built-in template)");
}
