// kforge:template softmax_f32_cpu_rows
// kforge:family softmax
// kforge:backend cpu
// Row softmax over the last dimension of a 2-D float32 tensor on the CPU: OpenMP over rows, in
// chunks of rows; either three passes (max, exponentials and sum, scale) or an online max/sum
// pass followed by one write pass; std::exp or a polynomial exp that vectorises.
#include <torch/extension.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace {

constexpr int kRowsPerChunk = 8;  // kforge:param rows_per_chunk 1 4 8 32
constexpr int kOnline = 0;        // kforge:param online 0 1
constexpr int kDoubleSum = 1;     // kforge:param double_sum 0 1
constexpr int kExpPoly = 1;       // kforge:param exp_poly 0 1

using Sum = std::conditional_t<kDoubleSum != 0, double, float>;

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

void softmax_row(const float* in, float* out, int64_t cols) {
  if (kOnline) {
    float m = -INFINITY;
    Sum s = 0;
    for (int64_t c = 0; c < cols; ++c) {
      if (in[c] > m) {
        s = (m == -INFINITY ? Sum(0) : s * exp_f32(m - in[c])) + 1;
        m = in[c];
      } else {
        s += exp_f32(in[c] - m);
      }
    }
    const float inv = static_cast<float>(1 / s);
#pragma omp simd
    for (int64_t c = 0; c < cols; ++c) out[c] = exp_f32(in[c] - m) * inv;
    return;
  }
  float m = -INFINITY;
#pragma omp simd reduction(max : m)
  for (int64_t c = 0; c < cols; ++c) m = std::max(m, in[c]);
  Sum s = 0;
#pragma omp simd reduction(+ : s)
  for (int64_t c = 0; c < cols; ++c) {
    out[c] = exp_f32(in[c] - m);
    s += out[c];
  }
  const float inv = static_cast<float>(1 / s);
#pragma omp simd
  for (int64_t c = 0; c < cols; ++c) out[c] *= inv;
}

}  // namespace

torch::Tensor forward(torch::Tensor x, int64_t dim) {
  TORCH_CHECK(x.scalar_type() == torch::kFloat32 && x.dim() == 2, "a 2-D float32 tensor");
  TORCH_CHECK(dim == -1 || dim == 1, "softmax over the last dimension");
  auto xc = x.contiguous();
  auto y = torch::empty_like(xc);
  const int64_t rows = xc.size(0), cols = xc.size(1);
  const float* in = xc.data_ptr<float>();
  float* out = y.data_ptr<float>();
#pragma omp parallel for schedule(static, kRowsPerChunk)
  for (int64_t r = 0; r < rows; ++r) softmax_row(in + r * cols, out + r * cols, cols);
  return y;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("forward", &forward, "softmax forward (CPU, built-in template)");
}
