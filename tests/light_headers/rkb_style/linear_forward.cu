// task: tests/tasks/rkb_linear forward
// y = x W^T + b the way robust-kbench's published kernels are written: a tiled kernel over packed
// accessors, AT_DISPATCH with half, an optional bias, a device guard, the current stream and a
// launch check.
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/extension.h>

constexpr int kTile = 16;

template <typename scalar_t>
__global__ void linear_kernel(
    const torch::PackedTensorAccessor32<scalar_t, 2, torch::RestrictPtrTraits> x,
    const torch::PackedTensorAccessor32<scalar_t, 2, torch::RestrictPtrTraits> w,
    const scalar_t* __restrict__ bias,
    torch::PackedTensorAccessor32<scalar_t, 2, torch::RestrictPtrTraits> y) {
  __shared__ float xs[kTile][kTile + 1];
  __shared__ float ws[kTile][kTile + 1];
  const int row = blockIdx.y * kTile + threadIdx.y;
  const int col = blockIdx.x * kTile + threadIdx.x;
  const int in_features = x.size(1);
  float acc = 0.f;
  for (int k0 = 0; k0 < in_features; k0 += kTile) {
    const int kx = k0 + threadIdx.x, kw = k0 + threadIdx.y;
    xs[threadIdx.y][threadIdx.x] =
        row < x.size(0) && kx < in_features ? static_cast<float>(x[row][kx]) : 0.f;
    const int wrow = blockIdx.x * kTile + threadIdx.x;
    ws[threadIdx.y][threadIdx.x] =
        wrow < w.size(0) && kw < in_features ? static_cast<float>(w[wrow][kw]) : 0.f;
    __syncthreads();
#pragma unroll
    for (int k = 0; k < kTile; ++k) acc += xs[threadIdx.y][k] * ws[k][threadIdx.x];
    __syncthreads();
  }
  if (row < y.size(0) && col < y.size(1)) {
    if (bias != nullptr) acc += static_cast<float>(bias[col]);
    y[row][col] = static_cast<scalar_t>(acc);
  }
}

torch::Tensor forward(torch::Tensor x, torch::Tensor weights, c10::optional<torch::Tensor> biases) {
  TORCH_CHECK(x.is_cuda() && weights.is_cuda(), "x and weights must be CUDA tensors");
  TORCH_CHECK(x.dim() == 2 && weights.dim() == 2, "x must be [B, in], weights [out, in]");
  TORCH_CHECK(x.size(1) == weights.size(1), "in_features mismatch: ", x.size(1), " vs ",
              weights.size(1));
  const at::cuda::CUDAGuard device_guard(x.device());
  auto xc = x.contiguous();
  auto wc = weights.contiguous();
  torch::Tensor bc;
  if (biases.has_value()) {
    bc = biases->contiguous();
    TORCH_CHECK(bc.numel() == wc.size(0), "bias must have out_features elements");
  }
  auto y = torch::empty({xc.size(0), wc.size(0)}, xc.options());
  const dim3 threads(kTile, kTile);
  const dim3 blocks((wc.size(0) + kTile - 1) / kTile, (xc.size(0) + kTile - 1) / kTile);
  cudaStream_t stream = at::cuda::getCurrentCUDAStream();
  AT_DISPATCH_FLOATING_TYPES_AND_HALF(
      xc.scalar_type(), "linear_forward", ([&] {
        linear_kernel<scalar_t><<<blocks, threads, 0, stream>>>(
            xc.packed_accessor32<scalar_t, 2, torch::RestrictPtrTraits>(),
            wc.packed_accessor32<scalar_t, 2, torch::RestrictPtrTraits>(),
            bc.defined() ? bc.data_ptr<scalar_t>() : nullptr,
            y.packed_accessor32<scalar_t, 2, torch::RestrictPtrTraits>());
      }));
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return y;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("forward", &forward, "linear forward (CUDA)", py::arg("x"), py::arg("weights"),
        py::arg("biases") = py::none());
}
