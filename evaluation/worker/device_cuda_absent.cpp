// Builds without CUDA (LibTorch without CUDA): the cuda backend reports that it is not built in.
#include "evaluation/worker/device.hpp"

namespace kforge::worker {

Result<std::unique_ptr<Device>> make_cuda_device(int) {
  return Result<std::unique_ptr<Device>>::failure(
      "this kforge was built against a LibTorch without CUDA; use --backend cpu");
}

}  // namespace kforge::worker
