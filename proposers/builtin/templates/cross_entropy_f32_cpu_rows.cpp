// kforge:template cross_entropy_f32_cpu_rows
// kforge:family cross_entropy
// kforge:backend cpu
// Mean cross-entropy of float32 logits against int64 targets (ignore_index -100, no weights, no
// label smoothing) on the CPU: each row's log-sum-exp (two passes, or one online pass), minus the
// target's logit; the row losses are added in row order, so the result does not depend on the
// number of threads.
#include <torch/extension.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

namespace {

constexpr int kRowsPerChunk = 8;  // kforge:param rows_per_chunk 1 4 8 32
constexpr int kOnline = 0;        // kforge:param online 0 1
constexpr int kExpPoly = 1;       // kforge:param exp_poly 0 1
constexpr int64_t kIgnoreIndex = -100;

// exp(x) for the arguments softmax and log-sum-exp take (x <= 0): 2^n p(r) with r = x - n ln 2
// and the minimax polynomial of Cephes' expf (relative error under 2e-7). Unlike std::exp it has
// no call and no errno, so `omp simd` loops over it vectorise.
inline float exp_poly(float x) {
  x = std::max(x, -87.0f);
  const float n = std::floor(x * 1.44269504088896341f + 0.5f);
  const float r = x - n * 0.693359375f + n * 2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.0f;
  const uint32_t bits = static_cast<uint32_t>(static_cast<int32_t>(n) + 127) << 23;
  float scale;
  std::memcpy(&scale, &bits, sizeof scale);
  return p * scale;
}

inline float exp_f32(float x) {
  return kExpPoly ? exp_poly(x) : std::exp(x);
}

double log_sum_exp(const float* in, int64_t cols) {
  if (kOnline) {
    float m = -INFINITY;
    double s = 0;
    for (int64_t c = 0; c < cols; ++c) {
      if (in[c] > m) {
        s = (m == -INFINITY ? 0.0 : s * std::exp(static_cast<double>(m - in[c]))) + 1;
        m = in[c];
      } else {
        s += exp_f32(in[c] - m);
      }
    }
    return m + std::log(s);
  }
  float m = -INFINITY;
#pragma omp simd reduction(max : m)
  for (int64_t c = 0; c < cols; ++c) m = std::max(m, in[c]);
  double s = 0;
#pragma omp simd reduction(+ : s)
  for (int64_t c = 0; c < cols; ++c) s += exp_f32(in[c] - m);
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
