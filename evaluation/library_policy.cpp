#include "evaluation/library_policy.hpp"

#include <algorithm>
#include <array>

namespace kforge::evaluation {
namespace {

// Allocation, fills, views, copies and metadata.
constexpr std::array<std::string_view, 49> kBookkeepingOps = {
    "empty",
    "empty_like",
    "empty_strided",
    "zeros",
    "zeros_like",
    "ones",
    "ones_like",
    "full",
    "full_like",
    "arange",
    "fill_",
    "zero_",
    "contiguous",
    "clone",
    "copy_",
    "to",
    "_to_copy",
    "view",
    "reshape",
    "_reshape_alias",
    "as_strided",
    "resize_",
    "size",
    "stride",
    "t",
    "transpose",
    "permute",
    "expand",
    "select",
    "slice",
    "unsqueeze",
    "squeeze",
    "narrow",
    "detach",
    "alias",
    "lift_fresh",
    "item",
    "_local_scalar_dense",
    "set_",
    "numel",
    "dim",
    "is_contiguous",
    "flatten",
    "view_as",
    "expand_as",
    "scalar_tensor",
    "result_type",
    "record_stream",
    "lift",
};

// What the extension API calls in torch:: and at:: that is not an operator.
constexpr std::array<std::string_view, 36> kApiNames = {
    "from_blob",
    "TensorOptions",
    "Tensor",
    "device",
    "dtype",
    "Device",
    "Scalar",
    "ScalarType",
    "IntArrayRef",
    "optional",
    "make_optional",
    "tensor",
    "getCurrentCUDAStream",
    "getDefaultCUDAStream",
    "getCurrentDeviceProperties",
    "OptionalCUDAGuard",
    "CUDAGuard",
    "DeviceGuard",
    "NoGradGuard",
    "elementSize",
    "toString",
    "kFloat32",
    "kFloat",
    "kHalf",
    "kBFloat16",
    "kInt64",
    "kLong",
    "kInt32",
    "kInt",
    "kBool",
    "kCUDA",
    "kCPU",
    "globalContext",
    "in_parallel_region",
    "get_num_threads",
    "parallel_for",
};

template <size_t N>
bool listed(const std::array<std::string_view, N>& list, std::string_view name) {
  return std::find(list.begin(), list.end(), name) != list.end();
}

}  // namespace

bool is_bookkeeping_op(std::string_view name) {
  return listed(kBookkeepingOps, name);
}

bool is_allowed_namespace_call(std::string_view name) {
  return is_bookkeeping_op(name) || listed(kApiNames, name);
}

}  // namespace kforge::evaluation
