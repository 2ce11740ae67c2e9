// LayerNorm forward on the CPU: one row per OpenMP iteration, mean and variance accumulated in
// double.
#include <torch/extension.h>

#include <cmath>

torch::Tensor forward(torch::Tensor x, torch::Tensor weight, torch::Tensor bias,
                      std::vector<int64_t> normalized_shape, double eps) {
  TORCH_CHECK(x.scalar_type() == torch::kFloat32, "float32 only");
  auto xc = x.contiguous();
  int64_t cols = 1;
  for (auto d : normalized_shape) cols *= d;
  const int64_t rows = xc.numel() / cols;
  auto out = torch::empty_like(xc);
  const float* in = xc.data_ptr<float>();
  const float* w = weight.contiguous().data_ptr<float>();
  const float* b = bias.contiguous().data_ptr<float>();
  float* o = out.data_ptr<float>();
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = in + r * cols;
    double sum = 0;
    for (int64_t c = 0; c < cols; ++c) sum += row[c];
    const double mean = sum / cols;
    double sq = 0;
    for (int64_t c = 0; c < cols; ++c) sq += (row[c] - mean) * (row[c] - mean);
    const double rstd = 1.0 / std::sqrt(sq / cols + eps);
    for (int64_t c = 0; c < cols; ++c)
      o[r * cols + c] = static_cast<float>((row[c] - mean) * rstd * w[c] + b[c]);
  }
  return out;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("forward", &forward, "LayerNorm forward (CPU)");
}
