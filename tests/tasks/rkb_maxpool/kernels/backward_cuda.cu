// 2x2 max-pool backward on the GPU, taking its arguments as robust-kbench's published kernel
// does: the saved tensors as one Python tuple, then grad_output. One thread per output element
// routes its gradient to the first maximum of its window (PyTorch's choice on ties).
#include <pybind11/pybind11.h>
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>

namespace py = pybind11;

namespace {

__global__ void maxpool2_backward(const float* x, const float* go, float* gi, int64_t planes, int h,
                                  int w, int oh, int ow) {
  const int64_t idx = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx >= planes * oh * ow) return;
  const int j = idx % ow, i = (idx / ow) % oh;
  const int64_t p = idx / (static_cast<int64_t>(oh) * ow);
  const int64_t base = p * h * w + static_cast<int64_t>(2 * i) * w + 2 * j;
  const int64_t offsets[4] = {0, 1, w, w + 1};
  int64_t best = base;
  for (int k = 0; k < 4; ++k)
    if (x[base + offsets[k]] > x[best]) best = base + offsets[k];
  gi[best] = go[idx];
}

}  // namespace

torch::Tensor backward(py::tuple saved, torch::Tensor grad_output) {
  TORCH_CHECK(saved.size() == 1, "expected a single saved tensor");
  torch::Tensor x = saved[0].cast<torch::Tensor>().contiguous();
  auto go = grad_output.contiguous();
  const int64_t planes = x.size(0) * x.size(1);
  const int h = x.size(2), w = x.size(3), oh = go.size(2), ow = go.size(3);
  auto gi = torch::zeros_like(x);
  const int64_t total = planes * oh * ow;
  if (total == 0) return gi;
  maxpool2_backward<<<(total + 255) / 256, 256, 0, at::cuda::getCurrentCUDAStream()>>>(
      x.data_ptr<float>(), go.data_ptr<float>(), gi.data_ptr<float>(), planes, h, w, oh, ow);
  return gi;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("backward", &backward, "2x2 max-pool backward (CUDA)");
}
