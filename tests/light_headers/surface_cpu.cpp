// Softmax over the rows of a 2-D tensor, written to use the LibTorch surface kernels use: checks
// with messages, sizes and negative dimensions, dtypes and devices, options, every factory, views
// and copies (transpose, t, view, reshape, unsqueeze, squeeze, narrow, select, clone, copy_, to,
// fill_, zero_), accessors, AT_DISPATCH and item. Built with the light headers or LibTorch's, it
// must compute the same thing.
#include <torch/extension.h>

#include <cmath>
#include <vector>

template <typename scalar_t>
void softmax_rows(const scalar_t* in, scalar_t* out, int64_t rows, int64_t cols) {
  for (int64_t r = 0; r < rows; ++r) {
    scalar_t m = -INFINITY;
    for (int64_t c = 0; c < cols; ++c) m = std::max(m, in[r * cols + c]);
    double sum = 0;
    for (int64_t c = 0; c < cols; ++c) sum += out[r * cols + c] = std::exp(in[r * cols + c] - m);
    for (int64_t c = 0; c < cols; ++c) out[r * cols + c] = scalar_t(out[r * cols + c] / sum);
  }
}

torch::Tensor forward(torch::Tensor x, int64_t dim) {
  TORCH_CHECK(x.dim() == 2, "expected a 2-D input, got sizes ", x.sizes());
  TORCH_CHECK(dim == -1 || dim == 1, "softmax over the last dimension, not ", dim);
  TORCH_CHECK(x.device().is_cpu() && !x.is_cuda() && x.device() == torch::Device(torch::kCPU));
  TORCH_CHECK(x.dtype() == torch::kFloat32 && x.scalar_type() == at::ScalarType::Float);
  TORCH_CHECK(x.size(-1) == x.size(1) &&
              x.sizes().vec() == std::vector<int64_t>({x.size(0), x.size(1)}));
  TORCH_CHECK(x.element_size() == 4 && x.numel() == x.size(0) * x.size(1));

  // The input again, through a transposed copy seen transposed back (not contiguous).
  auto xt = x.transpose(0, 1).contiguous().t();
  TORCH_CHECK(xt.stride(0) == 1 && xt.sizes() == x.sizes());
  auto xc = torch::empty_like(x, x.options(), at::MemoryFormat::Contiguous);
  xc.copy_(xt);
  auto flat = xc.view({-1}).reshape({x.size(0), x.size(1)}).unsqueeze(0).squeeze(0);
  TORCH_CHECK(flat.is_contiguous() && flat.dim() == 2);

  auto options = torch::TensorOptions().dtype(torch::kFloat32).device(x.device());
  auto out = torch::zeros({flat.size(0), flat.size(1)}, options);
  AT_DISPATCH_FLOATING_TYPES(flat.scalar_type(), "softmax_rows", [&] {
    softmax_rows<scalar_t>(flat.data_ptr<scalar_t>(), out.data_ptr<scalar_t>(), flat.size(0),
                           flat.size(1));
  });

  auto in = flat.accessor<float, 2>();
  TORCH_CHECK(in[flat.size(0) - 1][flat.size(1) - 1] ==
              x.contiguous().data_ptr<float>()[x.numel() - 1]);
  auto column = torch::zeros_like(out).narrow(1, 0, 1).select(1, 0).clone();
  column.fill_(2.0);
  TORCH_CHECK(column.numel() == x.size(0) && column.select(0, 0).item<float>() == 2.0f);
  column.zero_();
  TORCH_CHECK(column.to(torch::kDouble).scalar_type() == torch::kFloat64);
  TORCH_CHECK(torch::empty({0}, torch::kInt64).numel() == 0);
  return out;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("forward", &forward, "softmax forward, the LibTorch surface", py::arg("x"),
        py::arg("dim") = -1);
}
