// Linear backward on the GPU as robust-kbench's linear task calls it: backward(grad_output, x,
// weights) -> {dx = g @ W, dW = g^T @ x, db = column sums of g}. One thread per output element,
// each summing over the reduction dimension in order.
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>

#include <vector>

namespace {

// dx[i][k] = sum_j g[i][j] * w[j][k]
__global__ void grad_x(const float* g, const float* w, float* dx, int M, int N, int K) {
  const int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= M * K) return;
  const int i = idx / K, k = idx % K;
  float s = 0;
  for (int j = 0; j < N; ++j) s += g[i * N + j] * w[j * K + k];
  dx[idx] = s;
}

// dw[j][k] = sum_i g[i][j] * x[i][k]; db[j] = sum_i g[i][j]
__global__ void grad_w(const float* g, const float* x, float* dw, float* db, int M, int N, int K) {
  const int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= N * K) return;
  const int j = idx / K, k = idx % K;
  float s = 0, b = 0;
  for (int i = 0; i < M; ++i) {
    s += g[i * N + j] * x[i * K + k];
    b += g[i * N + j];
  }
  dw[idx] = s;
  if (k == 0) db[j] = b;
}

}  // namespace

std::vector<torch::Tensor> backward(torch::Tensor grad_output, torch::Tensor x,
                                    torch::Tensor weights) {
  auto g = grad_output.contiguous(), xc = x.contiguous(), wc = weights.contiguous();
  const int M = xc.size(0), K = xc.size(1), N = wc.size(0);
  auto dx = torch::empty({M, K}, xc.options());
  auto dw = torch::empty({N, K}, xc.options());
  auto db = torch::empty({N}, xc.options());
  auto stream = at::cuda::getCurrentCUDAStream();
  if (M * K > 0)
    grad_x<<<(M * K + 255) / 256, 256, 0, stream>>>(g.data_ptr<float>(), wc.data_ptr<float>(),
                                                    dx.data_ptr<float>(), M, N, K);
  if (N * K > 0)
    grad_w<<<(N * K + 255) / 256, 256, 0, stream>>>(g.data_ptr<float>(), xc.data_ptr<float>(),
                                                    dw.data_ptr<float>(), db.data_ptr<float>(), M,
                                                    N, K);
  return {dx, dw, db};
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("backward", &backward, "linear backward (CUDA)");
}
