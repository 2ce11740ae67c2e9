// exp(x * scale) in float32 on the CPU, as eager computes it: infinite where the product passes
// 88.72, exactly where eager's is.
#include <torch/extension.h>

#include <cmath>

torch::Tensor forward(torch::Tensor x, double scale) {
  auto xc = x.contiguous();
  auto out = torch::empty_like(xc);
  const float* in = xc.data_ptr<float>();
  float* o = out.data_ptr<float>();
  const float s = static_cast<float>(scale);
  for (int64_t i = 0; i < xc.numel(); ++i) o[i] = std::exp(in[i] * s);
  return out;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("forward", &forward); }
