// Mean cross-entropy backward on CUDA: one block per row writes
// (softmax(logits) - one_hot(target)) * grad / rows.
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

__global__ void grad_rows(const float* __restrict__ logits, const int64_t* __restrict__ targets,
                          const float* __restrict__ grad_loss, float* __restrict__ grad, int rows,
                          int classes) {
  __shared__ float shared[32];
  const float* row = logits + static_cast<size_t>(blockIdx.x) * classes;
  float* out = grad + static_cast<size_t>(blockIdx.x) * classes;
  float m = -INFINITY;
  for (int c = threadIdx.x; c < classes; c += blockDim.x) m = fmaxf(m, row[c]);
  m = block_reduce<true>(m, shared);
  float s = 0;
  for (int c = threadIdx.x; c < classes; c += blockDim.x) s += expf(row[c] - m);
  const float scale = grad_loss[0] / rows;
  const float inv = scale / block_reduce<false>(s, shared);
  const int64_t target = targets[blockIdx.x];
  for (int c = threadIdx.x; c < classes; c += blockDim.x)
    out[c] = expf(row[c] - m) * inv - (c == target ? scale : 0.0f);
}

}  // namespace

torch::Tensor backward(torch::Tensor grad_output, torch::Tensor logits, torch::Tensor targets) {
  auto lc = logits.contiguous();
  auto tc = targets.contiguous();
  const int rows = lc.size(0), classes = lc.size(1);
  auto grad = torch::empty_like(lc);
  grad_rows<<<rows, 256, 0, at::cuda::getCurrentCUDAStream()>>>(
      lc.data_ptr<float>(), tc.data_ptr<int64_t>(), grad_output.contiguous().data_ptr<float>(),
      grad.data_ptr<float>(), rows, classes);
  return grad;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("backward", &backward, "cross-entropy backward (CUDA)");
}
