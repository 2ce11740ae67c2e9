// Mean cross-entropy backward on the CPU: d loss / d logits = (softmax(logits) - onehot(target))
// * grad_output / batch, where grad_output has shape [] like the loss.
#include <torch/extension.h>

#include <cmath>

torch::Tensor backward(torch::Tensor grad_output, torch::Tensor predictions,
                       torch::Tensor targets) {
  auto p = predictions.contiguous();
  auto t = targets.contiguous();
  const int64_t rows = p.size(0), cols = p.size(1);
  auto grad = torch::empty_like(p);
  const float scale = grad_output.item<float>() / static_cast<float>(rows);
  const float* P = p.data_ptr<float>();
  const int64_t* T = t.data_ptr<int64_t>();
  float* D = grad.data_ptr<float>();
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = P + r * cols;
    float m = row[0];
    for (int64_t c = 1; c < cols; ++c) m = std::max(m, row[c]);
    double sum = 0;
    for (int64_t c = 0; c < cols; ++c) sum += std::exp(double(row[c]) - m);
    for (int64_t c = 0; c < cols; ++c) {
      const double prob = std::exp(double(row[c]) - m) / sum;
      D[r * cols + c] = static_cast<float>((prob - (c == T[r] ? 1.0 : 0.0)) * scale);
    }
  }
  return grad;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("backward", &backward, "cross-entropy backward (CPU)");
}
