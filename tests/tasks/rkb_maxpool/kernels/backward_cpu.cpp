// 2x2 max-pool backward on the CPU, written as robust-kbench's published kernel takes its
// arguments: the saved tensors as one Python tuple, then grad_output. The gradient goes to the
// first maximum of each window (PyTorch's choice on ties); everything else is zero.
#include <pybind11/pybind11.h>
#include <torch/extension.h>

namespace py = pybind11;

torch::Tensor backward(py::tuple saved, torch::Tensor grad_output) {
  TORCH_CHECK(saved.size() == 1, "expected a single saved tensor");
  torch::Tensor x = saved[0].cast<torch::Tensor>().contiguous();
  auto go = grad_output.contiguous();
  const int64_t planes = x.size(0) * x.size(1), h = x.size(2), w = x.size(3);
  const int64_t oh = go.size(2), ow = go.size(3);
  auto grad_in = torch::zeros_like(x);
  const float* X = x.data_ptr<float>();
  const float* G = go.data_ptr<float>();
  float* D = grad_in.data_ptr<float>();
  for (int64_t p = 0; p < planes; ++p)
    for (int64_t i = 0; i < oh; ++i)
      for (int64_t j = 0; j < ow; ++j) {
        const int64_t base = p * h * w + 2 * i * w + 2 * j;
        const int64_t offsets[4] = {0, 1, w, w + 1};
        int64_t best = base;
        for (int64_t o : offsets)
          if (X[base + o] > X[best]) best = base + o;
        D[best] += G[p * oh * ow + i * ow + j];
      }
  return grad_in;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("backward", &backward, "2x2 max-pool backward (CPU)");
}
