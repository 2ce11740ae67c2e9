// Linear + ReLU backward on the CPU: g = grad_output masked where the forward output is zero, then
// grad_x = g @ W, grad_w = g^T @ x and grad_b = column sums of g.
#include <torch/extension.h>

std::vector<torch::Tensor> backward(torch::Tensor grad_output, torch::Tensor x,
                                    torch::Tensor weight, torch::Tensor output) {
  auto go = grad_output.contiguous(), xc = x.contiguous(), wc = weight.contiguous(),
       oc = output.contiguous();
  const int64_t batch = xc.size(0), in = xc.size(1), outf = wc.size(0);
  const float* X = xc.data_ptr<float>();
  const float* W = wc.data_ptr<float>();
  const float* O = oc.data_ptr<float>();
  const float* G = go.data_ptr<float>();
  auto g = torch::empty({batch, outf}, xc.options());
  float* Gm = g.data_ptr<float>();
  for (int64_t i = 0; i < batch * outf; ++i) Gm[i] = O[i] > 0 ? G[i] : 0.0f;
  auto grad_x = torch::empty({batch, in}, xc.options());
  auto grad_w = torch::empty({outf, in}, xc.options());
  auto grad_b = torch::empty({outf}, xc.options());
  float* GX = grad_x.data_ptr<float>();
  float* GW = grad_w.data_ptr<float>();
  float* GB = grad_b.data_ptr<float>();
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < batch; ++i) {
    float* row = GX + i * in;
    for (int64_t k = 0; k < in; ++k) row[k] = 0;
    for (int64_t j = 0; j < outf; ++j) {
      const float gij = Gm[i * outf + j];
      if (gij == 0) continue;
      const float* wr = W + j * in;
      for (int64_t k = 0; k < in; ++k) row[k] += gij * wr[k];
    }
  }
#pragma omp parallel for schedule(static)
  for (int64_t j = 0; j < outf; ++j) {
    float* row = GW + j * in;
    for (int64_t k = 0; k < in; ++k) row[k] = 0;
    float bsum = 0;
    for (int64_t i = 0; i < batch; ++i) {
      const float gij = Gm[i * outf + j];
      bsum += gij;
      if (gij == 0) continue;
      const float* xr = X + i * in;
      for (int64_t k = 0; k < in; ++k) row[k] += gij * xr[k];
    }
    GB[j] = bsum;
  }
  return {grad_x, grad_w, grad_b};
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("backward", &backward, "Linear+ReLU backward (CPU)");
}
