// Reads a float tensor as double: LibTorch refuses with its own message, whichever headers built
// it.
#include <torch/extension.h>

torch::Tensor forward(torch::Tensor x, int64_t dim) {
  TORCH_CHECK(dim == -1 || dim == 1, "softmax over the last dimension, not ", dim);
  const double* wrong = x.data_ptr<double>();
  (void)wrong;
  return torch::empty_like(x);
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("forward", &forward);
}
