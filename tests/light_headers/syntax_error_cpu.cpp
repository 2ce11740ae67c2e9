// A source neither set of headers can build: a misspelt variable.
#include <torch/extension.h>

torch::Tensor forward(torch::Tensor x, int64_t dim) {
  auto out = torch::empty_like(x);
  return ouput;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("forward", &forward);
}
