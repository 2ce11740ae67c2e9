// Linear + ReLU backward on CUDA: g = grad_output masked where the forward output is zero, then two
// launches of one strided, 32x32-tiled fp32 matrix product (grad_x = g @ W; grad_w = g^T @ x) and
// a column sum for grad_b.
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>

namespace {

constexpr int kTile = 32;

struct Operand {
  const float* data;
  long row_stride;
  long col_stride;
  __device__ float at(long r, long c) const { return data[r * row_stride + c * col_stride]; }
};

// C[m][n] = sum_k A(m,k) B(k,n).
__global__ void gemm_f32_tiled(Operand a, Operand b, float* __restrict__ c, int m, int n, int k) {
  __shared__ float as[kTile][kTile + 1];
  __shared__ float bs[kTile][kTile + 1];
  const int row = blockIdx.y * kTile + threadIdx.y;
  const int col = blockIdx.x * kTile + threadIdx.x;
  float acc = 0;
  for (int k0 = 0; k0 < k; k0 += kTile) {
    const int ak = k0 + threadIdx.x, bk = k0 + threadIdx.y;
    as[threadIdx.y][threadIdx.x] = row < m && ak < k ? a.at(row, ak) : 0.0f;
    bs[threadIdx.y][threadIdx.x] = bk < k && col < n ? b.at(bk, col) : 0.0f;
    __syncthreads();
#pragma unroll 8
    for (int t = 0; t < kTile; ++t) acc += as[threadIdx.y][t] * bs[t][threadIdx.x];
    __syncthreads();
  }
  if (row < m && col < n) c[static_cast<long>(row) * n + col] = acc;
}

__global__ void relu_mask(const float* __restrict__ grad, const float* __restrict__ output,
                          float* __restrict__ g, long n) {
  const long i = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x;
  if (i < n) g[i] = output[i] > 0 ? grad[i] : 0.0f;
}

__global__ void column_sum(const float* __restrict__ g, float* __restrict__ out, int rows,
                           int cols) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (col >= cols) return;
  float s = 0;
  for (int r = 0; r < rows; ++r) s += g[static_cast<long>(r) * cols + col];
  out[col] = s;
}

dim3 grid_for(int m, int n) {
  return dim3((n + kTile - 1) / kTile, (m + kTile - 1) / kTile);
}

}  // namespace

std::vector<torch::Tensor> backward(torch::Tensor grad_output, torch::Tensor x,
                                    torch::Tensor weight, torch::Tensor output) {
  auto go = grad_output.contiguous(), xc = x.contiguous(), wc = weight.contiguous(),
       oc = output.contiguous();
  const int batch = xc.size(0), in = xc.size(1), out = wc.size(0);
  auto stream = at::cuda::getCurrentCUDAStream();
  const dim3 block(kTile, kTile);
  auto g = torch::empty({batch, out}, xc.options());
  const long n = static_cast<long>(batch) * out;
  relu_mask<<<(n + 255) / 256, 256, 0, stream>>>(go.data_ptr<float>(), oc.data_ptr<float>(),
                                                 g.data_ptr<float>(), n);
  auto grad_x = torch::empty({batch, in}, xc.options());
  gemm_f32_tiled<<<grid_for(batch, in), block, 0, stream>>>(
      Operand{g.data_ptr<float>(), out, 1}, Operand{wc.data_ptr<float>(), in, 1},
      grad_x.data_ptr<float>(), batch, in, out);
  auto grad_w = torch::empty({out, in}, xc.options());
  gemm_f32_tiled<<<grid_for(out, in), block, 0, stream>>>(Operand{g.data_ptr<float>(), 1, out},
                                                          Operand{xc.data_ptr<float>(), in, 1},
                                                          grad_w.data_ptr<float>(), out, in, batch);
  auto grad_b = torch::empty({out}, xc.options());
  column_sum<<<(out + 255) / 256, 256, 0, stream>>>(g.data_ptr<float>(), grad_b.data_ptr<float>(),
                                                    batch, out);
  return {grad_x, grad_w, grad_b};
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("backward", &backward, "Linear+ReLU backward (CUDA)");
}
