// Builds without CUDA (LibTorch without CUDA): the cuda backend reports that it is not built in.
#include "gpu/worker/device.hpp"

namespace kforge::worker {

std::unique_ptr<Device> make_cuda_device(int, std::string& error) {
  error = "this kforge was built against a LibTorch without CUDA; use --backend cpu";
  return nullptr;
}

}  // namespace kforge::worker
