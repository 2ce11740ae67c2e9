// An honest, single-threaded kernel for reference_threads: y = x * 0.5 + x * 0.5, in one loop.
#include <torch/extension.h>

torch::Tensor forward(torch::Tensor x) {
  auto xc = x.contiguous();
  auto y = torch::empty_like(xc);
  const float* in = xc.data_ptr<float>();
  float* out = y.data_ptr<float>();
  for (int64_t i = 0; i < xc.numel(); ++i) out[i] = in[i] * 0.5f + in[i] * 0.5f;
  return y;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("forward", &forward, "x * 0.5 + x * 0.5 (CPU)");
}
