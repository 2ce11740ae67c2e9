// The library-call policy's one list of what is *not* a library call, for both of its checks:
// the static source rules (evaluation/source_check.cpp, on torch:: and at:: calls in the source)
// and the worker's operator observer (evaluation/worker/op_observer.cpp, on the ATen operators a
// candidate calls at run time). An operator that allocates, fills, views, copies or describes a
// tensor hands no work to the library; every other operator does.
#pragma once

#include <string_view>

namespace kforge::evaluation {

/// An ATen operator (its name without "aten::") that does no computation a kernel should do.
bool is_bookkeeping_op(std::string_view name);

/// A name a candidate may call as torch::name(...) or at::name(...): a bookkeeping operator, or
/// one of the extension API's types, constants, streams, guards and helpers.
bool is_allowed_namespace_call(std::string_view name);

/// How the flag the worker gives a kernel that called library operators begins (the operators
/// follow after ": "); tables that show results without library calls look for it.
inline constexpr std::string_view kLibraryCallsFlag = "library operators called at run time";

}  // namespace kforge::evaluation
