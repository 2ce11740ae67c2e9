// kforge:template linear_f32_cpu_blocked
// kforge:family linear
// kforge:backend cpu
// x @ weight^T + bias, with a ReLU after it where the task has one (trait relu), in float32 on
// the CPU. Both operands are K-major, so every output is
// a dot product of two contiguous rows. Outputs are computed in register blocks of ROWS x COLS
// dot products (each loaded x and weight value is used several times), over K in steps that fit
// the cache; OpenMP over blocks of output rows.
#include <torch/extension.h>

#include <algorithm>

#define KFORGE_RELU 1  // kforge:trait relu 0 1

namespace {

constexpr int kRows = 2;         // kforge:param block_rows 1 2 4
constexpr int kCols = 4;         // kforge:param block_cols 1 2 4 8
constexpr int kKStep = 512;      // kforge:param k_step 128 512 4096
constexpr int kRowsPerTask = 8;  // kforge:param rows_per_task 4 8 32

}  // namespace

// y = x @ weight^T + bias for a 2-D x.
torch::Tensor linear_2d(torch::Tensor x, torch::Tensor weight, torch::Tensor bias) {
  TORCH_CHECK(x.scalar_type() == torch::kFloat32 && x.dim() == 2, "2-D float32 input");
  TORCH_CHECK(weight.dim() == 2 && weight.size(1) == x.size(1) && bias.dim() == 1 &&
                  bias.size(0) == weight.size(0),
              "weight [out, in] and bias [out]");
  auto xc = x.contiguous(), wc = weight.contiguous(), bc = bias.contiguous();
  const int64_t M = xc.size(0), K = xc.size(1), N = wc.size(0);
  auto y = torch::empty({M, N}, xc.options());
  const float *xp = xc.data_ptr<float>(), *wp = wc.data_ptr<float>(), *bp = bc.data_ptr<float>();
  float* yp = y.data_ptr<float>();
  const int64_t tasks = (M + kRowsPerTask - 1) / kRowsPerTask;
#pragma omp parallel for schedule(dynamic, 1)
  for (int64_t task = 0; task < tasks; ++task) {
    const int64_t m_end = std::min(M, (task + 1) * kRowsPerTask);
    for (int64_t m0 = task * kRowsPerTask; m0 < m_end; m0 += kRows) {
      for (int64_t n0 = 0; n0 < N; n0 += kCols) {
        float acc[kRows][kCols] = {};
        for (int64_t k0 = 0; k0 < K; k0 += kKStep) {
          const int64_t k1 = std::min(K, k0 + kKStep);
          for (int i = 0; i < kRows; ++i) {
            if (m0 + i >= m_end) break;
            const float* xr = xp + (m0 + i) * K;
            for (int j = 0; j < kCols; ++j) {
              if (n0 + j >= N) break;
              const float* wr = wp + (n0 + j) * K;
              float s = 0;
#pragma omp simd reduction(+ : s)
              for (int64_t k = k0; k < k1; ++k) s += xr[k] * wr[k];
              acc[i][j] += s;
            }
          }
        }
        for (int i = 0; i < kRows && m0 + i < m_end; ++i)
          for (int j = 0; j < kCols && n0 + j < N; ++j)
            yp[(m0 + i) * N + n0 + j] =
                KFORGE_RELU ? std::max(acc[i][j] + bp[n0 + j], 0.f) : acc[i][j] + bp[n0 + j];
      }
    }
  }
  return y;
}

// x of any rank >= 2: its leading dimensions are rows, as F.linear treats them.
torch::Tensor forward(torch::Tensor x, torch::Tensor weight, torch::Tensor bias) {
  TORCH_CHECK(x.scalar_type() == torch::kFloat32 && x.dim() >= 2,
              "float32 input of rank 2 or more");
  auto sizes = x.sizes().vec();
  sizes.back() = weight.size(0);
  return linear_2d(x.reshape({-1, x.size(-1)}), weight, bias).view(sizes);
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("forward", &forward, "linear forward (CPU, built-in template)");
}
