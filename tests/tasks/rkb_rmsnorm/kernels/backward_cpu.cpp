// RMSNorm backward on the CPU, given the reciprocal RMS per row that the task's forward saved:
// y = x * rstd * w, so dx = rstd * (g * w) - x * rstd^3 / n * sum(g * w * x) and
// dw = sum over rows of g * x * rstd.
#include <torch/extension.h>

#include <vector>

std::vector<torch::Tensor> backward(torch::Tensor grad_output, torch::Tensor x, torch::Tensor w,
                                    torch::Tensor rstd) {
  auto g = grad_output.contiguous(), xc = x.contiguous(), wc = w.contiguous(),
       rc = rstd.contiguous();
  const int64_t n = xc.size(-1), rows = xc.numel() / n;
  auto dx = torch::empty_like(xc);
  const float *G = g.data_ptr<float>(), *X = xc.data_ptr<float>(), *Wt = wc.data_ptr<float>(),
              *R = rc.data_ptr<float>();
  float* DX = dx.data_ptr<float>();
  std::vector<double> dw_sum(n, 0.0);
  for (int64_t r = 0; r < rows; ++r) {
    const double s = R[r];
    double dot = 0;
    for (int64_t i = 0; i < n; ++i) dot += double(G[r * n + i]) * Wt[i] * X[r * n + i];
    for (int64_t i = 0; i < n; ++i) {
      const int64_t k = r * n + i;
      DX[k] = static_cast<float>(s * G[k] * Wt[i] - X[k] * s * s * s / n * dot);
      dw_sum[i] += double(G[k]) * X[k] * s;
    }
  }
  auto dw = torch::empty_like(wc);
  for (int64_t i = 0; i < n; ++i) dw.data_ptr<float>()[i] = static_cast<float>(dw_sum[i]);
  return {dx, dw};
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("backward", &backward, "RMSNorm backward (CPU)");
}
