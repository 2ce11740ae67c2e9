// Row softmax on the CPU: max, exponentials and their sum per row, one row per OpenMP iteration.
#include <torch/extension.h>

#include <cmath>

torch::Tensor forward(torch::Tensor x, int64_t dim) {
  TORCH_CHECK(x.dim() == 2 && (dim == -1 || dim == 1),
              "softmax over the last dimension of a 2-D tensor");
  auto xc = x.contiguous();
  const int64_t rows = xc.size(0), cols = xc.size(1);
  auto out = torch::empty_like(xc);
  const float* in = xc.data_ptr<float>();
  float* o = out.data_ptr<float>();
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = in + r * cols;
    float* orow = o + r * cols;
    float m = -INFINITY;
    for (int64_t c = 0; c < cols; ++c) m = std::max(m, row[c]);
    double sum = 0;
    for (int64_t c = 0; c < cols; ++c) {
      orow[c] = std::exp(row[c] - m);
      sum += orow[c];
    }
    const float inv = static_cast<float>(1.0 / sum);
    for (int64_t c = 0; c < cols; ++c) orow[c] *= inv;
  }
  return out;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("forward", &forward, "softmax forward (CPU)");
}
