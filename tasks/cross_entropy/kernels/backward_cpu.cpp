// Mean cross-entropy backward on the CPU: grad_logits = (softmax(logits) - one_hot(targets)) * g /
// N.
#include <torch/extension.h>

#include <cmath>

torch::Tensor backward(torch::Tensor grad_output, torch::Tensor logits, torch::Tensor targets) {
  auto lc = logits.contiguous();
  auto tc = targets.contiguous();
  const int64_t rows = lc.size(0), classes = lc.size(1);
  const float scale = grad_output.item<float>() / static_cast<float>(rows);
  auto grad = torch::empty_like(lc);
  const float* L = lc.data_ptr<float>();
  const int64_t* T = tc.data_ptr<int64_t>();
  float* G = grad.data_ptr<float>();
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = L + r * classes;
    float* grow = G + r * classes;
    float m = -INFINITY;
    for (int64_t c = 0; c < classes; ++c) m = std::max(m, row[c]);
    double sum = 0;
    for (int64_t c = 0; c < classes; ++c) sum += std::exp(static_cast<double>(row[c] - m));
    const double inv = 1.0 / sum;
    for (int64_t c = 0; c < classes; ++c)
      grow[c] = static_cast<float>(std::exp(static_cast<double>(row[c] - m)) * inv * scale);
    grow[T[r]] -= scale;
  }
  return grad;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("backward", &backward, "cross-entropy backward (CPU)");
}
