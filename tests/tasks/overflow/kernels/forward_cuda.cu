// exp(x * scale) in float32 on the GPU, as eager computes it: infinite where the product passes
// 88.72, exactly where eager's is.
#include <torch/extension.h>

__global__ void scaled_exp(const float* __restrict__ in, float* __restrict__ out, float scale,
                           int64_t n) {
  const int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) out[i] = expf(in[i] * scale);
}

torch::Tensor forward(torch::Tensor x, double scale) {
  auto xc = x.contiguous();
  auto out = torch::empty_like(xc);
  const int64_t n = xc.numel();
  const int threads = 256;
  const int64_t blocks = (n + threads - 1) / threads;
  if (n > 0)
    scaled_exp<<<blocks, threads>>>(xc.data_ptr<float>(), out.data_ptr<float>(),
                                    static_cast<float>(scale), n);
  return out;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("forward", &forward); }
