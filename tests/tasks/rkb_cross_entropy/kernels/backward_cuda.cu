// Mean cross-entropy backward on the GPU: one warp per row computes the row's maximum and sum of
// exponentials, then (softmax - onehot(target)) * grad_output / batch.
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>

namespace {

__global__ void cross_entropy_backward(const float* go, const float* p, const int64_t* t, float* d,
                                       int rows, int cols) {
  const int row = blockIdx.x * 4 + threadIdx.x / 32, lane = threadIdx.x % 32;
  if (row >= rows) return;
  const float* pr = p + static_cast<size_t>(row) * cols;
  float m = -INFINITY;
  for (int c = lane; c < cols; c += 32) m = fmaxf(m, pr[c]);
  for (int o = 16; o > 0; o /= 2) m = fmaxf(m, __shfl_xor_sync(0xffffffff, m, o));
  float s = 0;
  for (int c = lane; c < cols; c += 32) s += expf(pr[c] - m);
  for (int o = 16; o > 0; o /= 2) s += __shfl_xor_sync(0xffffffff, s, o);
  const float scale = go[0] / rows;
  for (int c = lane; c < cols; c += 32)
    d[static_cast<size_t>(row) * cols + c] =
        (expf(pr[c] - m) / s - (c == t[row] ? 1.f : 0.f)) * scale;
}

}  // namespace

torch::Tensor backward(torch::Tensor grad_output, torch::Tensor predictions,
                       torch::Tensor targets) {
  auto p = predictions.contiguous();
  auto t = targets.contiguous();
  const int rows = p.size(0), cols = p.size(1);
  auto d = torch::empty_like(p);
  cross_entropy_backward<<<(rows + 3) / 4, 128, 0, at::cuda::getCurrentCUDAStream()>>>(
      grad_output.contiguous().data_ptr<float>(), p.data_ptr<float>(), t.data_ptr<int64_t>(),
      d.data_ptr<float>(), rows, cols);
  return d;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("backward", &backward, "cross-entropy backward (CUDA)");
}
