// LayerNorm backward over the trailing dimensions on the CPU, as robust-kbench's layernorm task
// calls it: backward(grad_output, x, weight, bias, eps, normalized_shape) -> {dx, dweight, dbias}.
// Per row: x_hat = (x - mean) * rstd, g = grad_output * weight,
// dx = rstd / n * (n * g - sum(g) - x_hat * sum(g * x_hat)); dweight and dbias sum over rows.
#include <torch/extension.h>

#include <cmath>
#include <vector>

std::vector<torch::Tensor> backward(torch::Tensor grad_output, torch::Tensor x,
                                    torch::Tensor weight, torch::Tensor bias, double eps,
                                    std::vector<int64_t> normalized_shape) {
  int64_t n = 1;
  for (auto d : normalized_shape) n *= d;
  auto xc = x.contiguous(), gc = grad_output.contiguous(), wc = weight.contiguous();
  const int64_t rows = n ? xc.numel() / n : 0;
  auto dx = torch::empty_like(xc);
  auto dw = torch::empty_like(wc), db = torch::empty_like(bias);
  const float *X = xc.data_ptr<float>(), *G = gc.data_ptr<float>(), *W = wc.data_ptr<float>();
  float* DX = dx.data_ptr<float>();
  std::vector<double> sum_w(n, 0.0), sum_b(n, 0.0), xhat(n);
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = X + r * n;
    const float* gr = G + r * n;
    double mean = 0, var = 0;
    for (int64_t i = 0; i < n; ++i) mean += xr[i];
    mean /= n;
    for (int64_t i = 0; i < n; ++i) var += (xr[i] - mean) * (xr[i] - mean);
    const double rstd = 1.0 / std::sqrt(var / n + eps);
    double sum_g = 0, sum_gx = 0;
    for (int64_t i = 0; i < n; ++i) {
      xhat[i] = (xr[i] - mean) * rstd;
      const double g = double(gr[i]) * W[i];
      sum_g += g;
      sum_gx += g * xhat[i];
      sum_w[i] += double(gr[i]) * xhat[i];
      sum_b[i] += gr[i];
    }
    for (int64_t i = 0; i < n; ++i) {
      const double g = double(gr[i]) * W[i];
      DX[r * n + i] = static_cast<float>(rstd / n * (n * g - sum_g - xhat[i] * sum_gx));
    }
  }
  float *DW = dw.data_ptr<float>(), *DB = db.data_ptr<float>();
  for (int64_t i = 0; i < n; ++i) {
    DW[i] = static_cast<float>(sum_w[i]);
    DB[i] = static_cast<float>(sum_b[i]);
  }
  return {dx, dw, db};
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("backward", &backward, "LayerNorm backward over trailing dimensions (CPU)");
}
