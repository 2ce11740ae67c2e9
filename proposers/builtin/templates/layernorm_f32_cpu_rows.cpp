// kforge:template layernorm_f32_cpu_rows
// kforge:family layernorm
// kforge:backend cpu
// LayerNorm over the trailing dimensions that weight and bias have (a row is weight.numel()
// values), float32, on the CPU: OpenMP over rows in chunks; the mean
// and variance either in two passes over the row or in one pass of Welford updates.
#include <torch/extension.h>

#include <cmath>

// 1: the task passes normalized_shape before eps; 0: eps only, as robust-kbench's layernorm does
// (lines marked `kforge:if shape_arg` are left out then; a marked statement stays on one line).
#define KFORGE_SHAPE_ARG 1  // kforge:trait shape_arg 0 1

namespace {

constexpr int kRowsPerChunk = 8;  // kforge:param rows_per_chunk 1 4 8 32
constexpr int kWelford = 0;       // kforge:param welford 0 1
constexpr int kDoubleSum = 1;     // kforge:param double_sum 0 1

using Sum = std::conditional_t<kDoubleSum != 0, double, float>;

void layernorm_row(const float* in, const float* w, const float* b, float* out, int64_t cols,
                   float eps) {
  Sum mean = 0, m2 = 0;
  if (kWelford) {
    for (int64_t c = 0; c < cols; ++c) {
      const Sum d = in[c] - mean;
      mean += d / static_cast<Sum>(c + 1);
      m2 += d * (in[c] - mean);
    }
  } else {
#pragma omp simd reduction(+ : mean)
    for (int64_t c = 0; c < cols; ++c) mean += in[c];
    mean /= static_cast<Sum>(cols);
#pragma omp simd reduction(+ : m2)
    for (int64_t c = 0; c < cols; ++c) m2 += (in[c] - mean) * (in[c] - mean);
  }
  const float mu = static_cast<float>(mean);
  const float rstd = 1.f / std::sqrt(static_cast<float>(m2 / static_cast<Sum>(cols)) + eps);
#pragma omp simd
  for (int64_t c = 0; c < cols; ++c) out[c] = (in[c] - mu) * rstd * w[c] + b[c];
}

}  // namespace

torch::Tensor forward(torch::Tensor x, torch::Tensor weight, torch::Tensor bias,
                      std::vector<int64_t> normalized_shape,  // kforge:if shape_arg
                      double eps) {
  int64_t shape_numel = 1;                                         // kforge:if shape_arg
  for (auto d : normalized_shape) shape_numel *= d;                // kforge:if shape_arg
  TORCH_CHECK(shape_numel == weight.numel(), "normalized_shape");  // kforge:if shape_arg
  TORCH_CHECK(x.scalar_type() == torch::kFloat32, "a float32 tensor");
  TORCH_CHECK(
      weight.numel() == bias.numel() && weight.numel() > 0 && x.numel() % weight.numel() == 0,
      "normalisation over the trailing dimensions of the weight's shape");
  auto xc = x.contiguous();
  auto wc = weight.contiguous(), bc = bias.contiguous();
  const int64_t cols = weight.numel();
  const int64_t rows = cols ? xc.numel() / cols : 0;
  auto y = torch::empty_like(xc);
  const float *in = xc.data_ptr<float>(), *w = wc.data_ptr<float>(), *b = bc.data_ptr<float>();
  float* out = y.data_ptr<float>();
  const float e = static_cast<float>(eps);
#pragma omp parallel for schedule(static, kRowsPerChunk)
  for (int64_t r = 0; r < rows; ++r) layernorm_row(in + r * cols, w, b, out + r * cols, cols, e);
  return y;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("forward", &forward, "LayerNorm forward (CPU, built-in template)");
}
