// kforge:template rmsnorm_f32_cpu_rows
// kforge:family rmsnorm
// kforge:backend cpu
// RMSNorm over the last dimension in float32 on the CPU, as LLaMA computes it:
// y = (x * rsqrt(mean(x^2) + eps)) * w. OpenMP over rows in chunks; the sum of squares in float
// or in double, in one vectorisable pass, then one pass that scales.
#include <torch/extension.h>

#include <cmath>
#include <type_traits>

namespace {

constexpr int kRowsPerChunk = 8;  // kforge:param rows_per_chunk 1 4 8 32
constexpr int kDoubleSum = 1;     // kforge:param double_sum 0 1

using Sum = std::conditional_t<kDoubleSum != 0, double, float>;

void rmsnorm_row(const float* in, const float* w, float* out, int64_t cols, float eps) {
  Sum sq = 0;
#pragma omp simd reduction(+ : sq)
  for (int64_t c = 0; c < cols; ++c) sq += static_cast<Sum>(in[c]) * in[c];
  const float rstd = 1.f / std::sqrt(static_cast<float>(sq / static_cast<Sum>(cols)) + eps);
#pragma omp simd
  for (int64_t c = 0; c < cols; ++c) out[c] = (in[c] * rstd) * w[c];
}

}  // namespace

torch::Tensor forward(torch::Tensor x, torch::Tensor w, double eps) {
  TORCH_CHECK(x.scalar_type() == torch::kFloat32 && w.scalar_type() == torch::kFloat32,
              "float32 tensors");
  TORCH_CHECK(x.dim() >= 1 && w.dim() == 1 && w.size(0) == x.size(-1),
              "a weight over the last dimension");
  auto xc = x.contiguous();
  auto wc = w.contiguous();
  const int64_t cols = xc.size(-1);
  const int64_t rows = cols ? xc.numel() / cols : 0;
  auto y = torch::empty_like(xc);
  const float *in = xc.data_ptr<float>(), *wp = wc.data_ptr<float>();
  float* out = y.data_ptr<float>();
  const float e = static_cast<float>(eps);
#pragma omp parallel for schedule(static, kRowsPerChunk)
  for (int64_t r = 0; r < rows; ++r) rmsnorm_row(in + r * cols, wp, out + r * cols, cols, e);
  return y;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("forward", &forward, "RMSNorm forward (CPU, built-in template)");
}
