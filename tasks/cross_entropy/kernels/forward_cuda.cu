// Mean cross-entropy forward on CUDA: one block per row computes logsumexp - logit[target]; a
// second, single-block kernel averages the row losses in double, so the result is deterministic.
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

__global__ void row_losses(const float* __restrict__ logits, const int64_t* __restrict__ targets,
                           float* __restrict__ losses, int classes) {
  __shared__ float shared[32];
  const float* row = logits + static_cast<size_t>(blockIdx.x) * classes;
  float m = -INFINITY;
  for (int c = threadIdx.x; c < classes; c += blockDim.x) m = fmaxf(m, row[c]);
  m = block_reduce<true>(m, shared);
  float s = 0;
  for (int c = threadIdx.x; c < classes; c += blockDim.x) s += expf(row[c] - m);
  s = block_reduce<false>(s, shared);
  if (threadIdx.x == 0) losses[blockIdx.x] = logf(s) + m - row[targets[blockIdx.x]];
}

__global__ void mean_of(const float* __restrict__ losses, float* __restrict__ out, int n) {
  __shared__ double partial[256];
  double s = 0;
  for (int i = threadIdx.x; i < n; i += blockDim.x) s += losses[i];
  partial[threadIdx.x] = s;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[0] = static_cast<float>(partial[0] / n);
}

}  // namespace

torch::Tensor forward(torch::Tensor logits, torch::Tensor targets) {
  auto lc = logits.contiguous();
  auto tc = targets.contiguous();
  const int rows = lc.size(0), classes = lc.size(1);
  auto stream = at::cuda::getCurrentCUDAStream();
  auto losses = torch::empty({rows}, lc.options());
  auto out = torch::empty({}, lc.options());
  row_losses<<<rows, 256, 0, stream>>>(lc.data_ptr<float>(), tc.data_ptr<int64_t>(),
                                       losses.data_ptr<float>(), classes);
  mean_of<<<1, 256, 0, stream>>>(losses.data_ptr<float>(), out.data_ptr<float>(), rows);
  return out;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("forward", &forward, "cross-entropy forward (CUDA)");
}
