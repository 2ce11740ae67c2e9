// A CUDA kernel for tests/kernelbench/1_Linear_GELU_Tanh.py as imported by kforge: forward
// receives x, then the parameters linear.weight and linear.bias; scale=1.5 is a constant.
#include <torch/extension.h>

__global__ void linear_gelu_tanh(const float* x, const float* w, const float* bias, float* out,
                                 int64_t n, int64_t in, int64_t out_features, float scale) {
  const int64_t idx = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (idx >= n * out_features) return;
  const int64_t i = idx / out_features, j = idx % out_features;
  float s = bias[j];
  for (int64_t k = 0; k < in; ++k) s += x[i * in + k] * w[j * in + k];
  const float g = 0.5f * s * (1.f + erff(s * 0.70710678118654752f));
  out[idx] = tanhf(g) * scale;
}

torch::Tensor forward(torch::Tensor x, torch::Tensor weight, torch::Tensor bias) {
  TORCH_CHECK(x.is_cuda() && x.dim() == 2 && weight.size(1) == x.size(1));
  auto xc = x.contiguous(), w = weight.contiguous(), b = bias.contiguous();
  const int64_t n = xc.size(0), in = xc.size(1), out_features = w.size(0);
  auto out = torch::empty({n, out_features}, xc.options());
  const int threads = 256;
  const int64_t blocks = (n * out_features + threads - 1) / threads;
  linear_gelu_tanh<<<blocks, threads>>>(xc.data_ptr<float>(), w.data_ptr<float>(),
                                        b.data_ptr<float>(), out.data_ptr<float>(), n, in,
                                        out_features, 1.5f);
  return out;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("forward", &forward, "linear, GELU, tanh");
}
