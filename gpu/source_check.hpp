// Static checks on a candidate's source, before it is compiled: which functions it registers, and
// where it hands work to a library (ATen compute ops, cuBLAS, cuDNN) instead of its own kernels.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kforge::gpu {

/// The source without comments; string literals are kept (registration names live in them).
std::string strip_comments(std::string_view source);

/// Names passed to m.def("...") in the order they appear.
std::vector<std::string> registered_functions(std::string_view source);

/// Library calls found in the source, one line each ("line 12: torch::matmul").
std::vector<std::string> library_calls(std::string_view source);

}  // namespace kforge::gpu
