// Linear backward on the CPU as robust-kbench's linear task calls it: backward(grad_output, x,
// weights) -> {dx = g @ W, dW = g^T @ x, db = column sums of g}; the bias itself is not needed.
#include <torch/extension.h>

#include <vector>

std::vector<torch::Tensor> backward(torch::Tensor grad_output, torch::Tensor x,
                                    torch::Tensor weights) {
  auto g = grad_output.contiguous(), xc = x.contiguous(), wc = weights.contiguous();
  const int64_t batch = xc.size(0), in = xc.size(1), out = wc.size(0);
  auto dx = torch::zeros({batch, in}, xc.options());
  auto dw = torch::zeros({out, in}, xc.options());
  auto db = torch::zeros({out}, xc.options());
  const float *G = g.data_ptr<float>(), *X = xc.data_ptr<float>(), *W = wc.data_ptr<float>();
  float *DX = dx.data_ptr<float>(), *DW = dw.data_ptr<float>(), *DB = db.data_ptr<float>();
  for (int64_t i = 0; i < batch; ++i)
    for (int64_t j = 0; j < out; ++j) {
      const float gij = G[i * out + j];
      DB[j] += gij;
      for (int64_t k = 0; k < in; ++k) {
        DX[i * in + k] += gij * W[j * in + k];
        DW[j * in + k] += gij * X[i * in + k];
      }
    }
  return {dx, dw, db};
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("backward", &backward, "linear backward (CPU)");
}
