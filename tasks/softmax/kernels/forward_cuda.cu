// Row softmax on CUDA: one block of 256 threads per row; a max reduction, then a sum of
// exponentials, then the normalised write.
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>

namespace {

template <bool Max>
__device__ float block_reduce(float v, float* shared) {
  for (int offset = 16; offset > 0; offset /= 2) {
    float o = __shfl_xor_sync(0xffffffff, v, offset);
    v = Max ? fmaxf(v, o) : v + o;
  }
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  __syncthreads();
  if (lane == 0) shared[warp] = v;
  __syncthreads();
  float r = shared[0];
  for (int w = 1; w < blockDim.x / 32; ++w) r = Max ? fmaxf(r, shared[w]) : r + shared[w];
  return r;
}

__global__ void softmax_f32_row_per_block(const float* __restrict__ x, float* __restrict__ y,
                                          int cols) {
  __shared__ float shared[32];
  const float* row = x + static_cast<size_t>(blockIdx.x) * cols;
  float* out = y + static_cast<size_t>(blockIdx.x) * cols;
  float m = -INFINITY;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, row[c]);
  m = block_reduce<true>(m, shared);
  float s = 0;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) s += expf(row[c] - m);
  const float inv = 1.0f / block_reduce<false>(s, shared);
  for (int c = threadIdx.x; c < cols; c += blockDim.x) out[c] = expf(row[c] - m) * inv;
}

}  // namespace

torch::Tensor forward(torch::Tensor x, int64_t dim) {
  TORCH_CHECK(x.is_cuda() && x.dim() == 2 && (dim == -1 || dim == 1),
              "2-D CUDA tensor, last dimension");
  auto xc = x.contiguous();
  auto y = torch::empty_like(xc);
  if (xc.size(0) == 0) return y;
  softmax_f32_row_per_block<<<xc.size(0), 256, 0, at::cuda::getCurrentCUDAStream()>>>(
      xc.data_ptr<float>(), y.data_ptr<float>(), static_cast<int>(xc.size(1)));
  return y;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("forward", &forward, "softmax forward (CUDA)");
}
