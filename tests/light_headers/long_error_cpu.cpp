// Raises as the TorchScript interpreter does when the operation it ran failed: a long traceback
// first, the error that stopped it (here, running out of memory) last.
#include <torch/extension.h>

#include <string>

torch::Tensor forward(torch::Tensor x, int64_t dim) {
  std::string what = "The following operation failed in the TorchScript interpreter.\n";
  for (int line = 0; line < 20; ++line)
    what += "  File \"code/__torch__/model.py\", line " + std::to_string(line) + ", in forward\n";
  TORCH_CHECK(false, what, "RuntimeError: CUDA out of memory. Tried to allocate 16.00 GiB");
  return x;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("forward", &forward);
}
