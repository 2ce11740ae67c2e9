// RMSNorm backward on the GPU, given the reciprocal RMS per row that the task's forward saved:
// dx = rstd * (g * w) - x * rstd^3 / n * sum(g * w * x) (one warp per row), and
// dw = sum over rows of g * x * rstd (one thread per column, rows in order).
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>

#include <vector>

namespace {

__global__ void grad_input(const float* g, const float* x, const float* w, const float* rstd,
                           float* dx, int rows, int n) {
  const int row = blockIdx.x * 4 + threadIdx.x / 32, lane = threadIdx.x % 32;
  if (row >= rows) return;
  const size_t off = static_cast<size_t>(row) * n;
  float dot = 0;
  for (int i = lane; i < n; i += 32) dot += g[off + i] * w[i] * x[off + i];
  for (int o = 16; o > 0; o /= 2) dot += __shfl_xor_sync(0xffffffff, dot, o);
  const float s = rstd[row];
  for (int i = lane; i < n; i += 32)
    dx[off + i] = s * g[off + i] * w[i] - x[off + i] * s * s * s / n * dot;
}

__global__ void grad_weight(const float* g, const float* x, const float* rstd, float* dw, int rows,
                            int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float s = 0;
  for (int r = 0; r < rows; ++r)
    s += g[static_cast<size_t>(r) * n + i] * x[static_cast<size_t>(r) * n + i] * rstd[r];
  dw[i] = s;
}

}  // namespace

std::vector<torch::Tensor> backward(torch::Tensor grad_output, torch::Tensor x, torch::Tensor w,
                                    torch::Tensor rstd) {
  auto g = grad_output.contiguous(), xc = x.contiguous(), wc = w.contiguous(),
       rc = rstd.contiguous();
  const int n = xc.size(-1), rows = xc.numel() / n;
  auto dx = torch::empty_like(xc);
  auto dw = torch::empty_like(wc);
  auto stream = at::cuda::getCurrentCUDAStream();
  grad_input<<<(rows + 3) / 4, 128, 0, stream>>>(g.data_ptr<float>(), xc.data_ptr<float>(),
                                                 wc.data_ptr<float>(), rc.data_ptr<float>(),
                                                 dx.data_ptr<float>(), rows, n);
  grad_weight<<<(n + 255) / 256, 256, 0, stream>>>(g.data_ptr<float>(), xc.data_ptr<float>(),
                                                   rc.data_ptr<float>(), dw.data_ptr<float>(), rows,
                                                   n);
  return {dx, dw};
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("backward", &backward, "RMSNorm backward (CUDA)");
}
