// Calls an ATen operator the light headers do not offer: built with LibTorch's headers.
#include <torch/extension.h>

torch::Tensor forward(torch::Tensor x, int64_t dim) {
  return at::_softmax(x, dim, false);
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("forward", &forward);
}
