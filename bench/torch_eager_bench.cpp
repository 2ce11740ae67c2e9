// PyTorch's own measurement of an eager operator, for comparison with kforge's eager time of the
// same config: one call per repetition between two CUDA events, L2 flushed before each (the way
// triton.testing.do_bench measures), median over repetitions. No kforge code is involved.
//
//   build/bench/kforge-torch-eager-bench softmax 8192 8192
//   build/bench/kforge-torch-eager-bench layernorm 8192 4096
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: kforge-torch-eager-bench softmax|layernorm ROWS COLS [REPS]\n");
    return 2;
  }
  std::string op = argv[1];
  int64_t rows = std::stoll(argv[2]), cols = std::stoll(argv[3]);
  int reps = argc > 4 ? std::stoi(argv[4]) : 200;
  at::globalContext().setAllowTF32CuBLAS(false);
  auto opts = at::TensorOptions().device(at::kCUDA).dtype(at::kFloat);
  auto x = at::randn({rows, cols}, opts);
  auto w = at::randn({cols}, opts), b = at::randn({cols}, opts);
  auto run = [&] {
    if (op == "softmax") return at::softmax(x, -1);
    return at::layer_norm(x, {cols}, w, b, 1e-5);
  };
  cudaDeviceProp props{};
  cudaGetDeviceProperties(&props, 0);
  auto flush = at::empty({2 * static_cast<int64_t>(props.l2CacheSize)}, opts.dtype(at::kByte));
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  auto stream = at::cuda::getCurrentCUDAStream().stream();
  for (int i = 0; i < 10; ++i) run();
  std::vector<float> ms;
  for (int i = 0; i < reps; ++i) {
    flush.zero_();
    cudaEventRecord(start, stream);
    run();
    cudaEventRecord(stop, stream);
    cudaEventSynchronize(stop);
    float t = 0;
    cudaEventElapsedTime(&t, start, stop);
    ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  std::printf("%s %lldx%lld: median %.4f ms, p10 %.4f, p90 %.4f over %d calls (%s)\n", op.c_str(),
              static_cast<long long>(rows), static_cast<long long>(cols), ms[ms.size() / 2],
              ms[ms.size() / 10], ms[ms.size() * 9 / 10], reps, props.name);
  return 0;
}
