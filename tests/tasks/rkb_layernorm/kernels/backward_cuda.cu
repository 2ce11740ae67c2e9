// LayerNorm backward over the trailing dimensions on the GPU, as robust-kbench's layernorm task
// calls it: backward(grad_output, x, weight, bias, eps, normalized_shape) -> {dx, dweight, dbias}.
// One block per row recomputes mean and rstd and writes dx; one thread per column sums dweight and
// dbias over the rows in order.
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>

#include <vector>

namespace {

constexpr int kThreads = 256;

__device__ float block_sum(float v, float* shared) {
  for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffff, v, o);
  __syncthreads();
  if (threadIdx.x % 32 == 0) shared[threadIdx.x / 32] = v;
  __syncthreads();
  float r = threadIdx.x < kThreads / 32 ? shared[threadIdx.x] : 0.f;
  if (threadIdx.x < 32)
    for (int o = 16; o > 0; o /= 2) r += __shfl_xor_sync(0xffffffff, r, o);
  if (threadIdx.x == 0) shared[0] = r;
  __syncthreads();
  return shared[0];
}

__global__ void row_stats(const float* x, float* mean_out, float* rstd_out, int n, float eps) {
  __shared__ float shared[32];
  const float* xr = x + static_cast<size_t>(blockIdx.x) * n;
  float s = 0;
  for (int i = threadIdx.x; i < n; i += kThreads) s += xr[i];
  const float mean = block_sum(s, shared) / n;
  float sq = 0;
  for (int i = threadIdx.x; i < n; i += kThreads) sq += (xr[i] - mean) * (xr[i] - mean);
  const float rstd = rsqrtf(block_sum(sq, shared) / n + eps);
  if (threadIdx.x == 0) {
    mean_out[blockIdx.x] = mean;
    rstd_out[blockIdx.x] = rstd;
  }
}

__global__ void grad_input(const float* g, const float* x, const float* w, const float* mean,
                           const float* rstd, float* dx, int n) {
  __shared__ float shared[32];
  const size_t off = static_cast<size_t>(blockIdx.x) * n;
  const float mu = mean[blockIdx.x], rs = rstd[blockIdx.x];
  float sg = 0, sgx = 0;
  for (int i = threadIdx.x; i < n; i += kThreads) {
    const float gw = g[off + i] * w[i];
    sg += gw;
    sgx += gw * (x[off + i] - mu) * rs;
  }
  sg = block_sum(sg, shared);
  sgx = block_sum(sgx, shared);
  for (int i = threadIdx.x; i < n; i += kThreads) {
    const float xhat = (x[off + i] - mu) * rs;
    dx[off + i] = rs / n * (n * g[off + i] * w[i] - sg - xhat * sgx);
  }
}

__global__ void grad_params(const float* g, const float* x, const float* mean, const float* rstd,
                            float* dw, float* db, int rows, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float sw = 0, sb = 0;
  for (int r = 0; r < rows; ++r) {
    const size_t k = static_cast<size_t>(r) * n + i;
    sw += g[k] * (x[k] - mean[r]) * rstd[r];
    sb += g[k];
  }
  dw[i] = sw;
  db[i] = sb;
}

}  // namespace

std::vector<torch::Tensor> backward(torch::Tensor grad_output, torch::Tensor x,
                                    torch::Tensor weight, torch::Tensor bias, double eps,
                                    std::vector<int64_t> normalized_shape) {
  int64_t n = 1;
  for (auto d : normalized_shape) n *= d;
  auto g = grad_output.contiguous(), xc = x.contiguous(), wc = weight.contiguous();
  const int rows = static_cast<int>(xc.numel() / n);
  auto stats = torch::empty({2, rows}, xc.options());
  auto dx = torch::empty_like(xc);
  auto dw = torch::empty_like(wc), db = torch::empty_like(bias);
  auto stream = at::cuda::getCurrentCUDAStream();
  float* mean = stats.data_ptr<float>();
  float* rstd = mean + rows;
  row_stats<<<rows, kThreads, 0, stream>>>(xc.data_ptr<float>(), mean, rstd, n,
                                           static_cast<float>(eps));
  grad_input<<<rows, kThreads, 0, stream>>>(g.data_ptr<float>(), xc.data_ptr<float>(),
                                            wc.data_ptr<float>(), mean, rstd, dx.data_ptr<float>(),
                                            n);
  grad_params<<<(n + 255) / 256, 256, 0, stream>>>(g.data_ptr<float>(), xc.data_ptr<float>(), mean,
                                                   rstd, dw.data_ptr<float>(), db.data_ptr<float>(),
                                                   rows, n);
  return {dx, dw, db};
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("backward", &backward, "LayerNorm backward over trailing dimensions (CUDA)");
}
