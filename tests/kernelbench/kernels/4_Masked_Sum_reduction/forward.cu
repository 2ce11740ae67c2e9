// A CUDA kernel for tests/kernelbench/4_Masked_Sum_reduction.py as imported by kforge: forward
// receives the problem's inputs A and B (no parameters or buffers); reduce_dim=1 is a constant.
#include <torch/extension.h>

__global__ void masked_sum(const float* a, const float* b, float* out, int64_t n, int64_t rows,
                           int64_t cols) {
  const int64_t idx = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (idx >= n * cols) return;
  const int64_t i = idx / cols, k = idx % cols;
  float s = 0.f;
  for (int64_t r = 0; r < rows; ++r)
    s += a[(i * rows + r) * cols + k] * b[(i * rows + r) * cols + k];
  out[idx] = s;
}

torch::Tensor forward(torch::Tensor A, torch::Tensor B) {
  TORCH_CHECK(A.is_cuda() && B.is_cuda() && A.dim() == 3 && A.sizes() == B.sizes());
  auto a = A.contiguous(), b = B.contiguous();
  const int64_t n = a.size(0), rows = a.size(1), cols = a.size(2);
  auto out = torch::empty({n, 1, cols}, a.options());
  const int threads = 256;
  const int64_t blocks = (n * cols + threads - 1) / threads;
  masked_sum<<<blocks, threads>>>(a.data_ptr<float>(), b.data_ptr<float>(), out.data_ptr<float>(),
                                  n, rows, cols);
  return out;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("forward", &forward, "sum of A*B over dim 1");
}
