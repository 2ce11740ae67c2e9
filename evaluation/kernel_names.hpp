// Kernel names as profiles show them: CUPTI reports demangled names with return type, namespaces
// and parameter list ("void (anonymous namespace)::softmax_rows<256>(float const*, float*, int)").
#pragma once

#include <string>

namespace kforge::evaluation {

/// The name without "void ", anonymous namespaces and the parameter list (the first parenthesis
/// outside template arguments), cut to `max_chars` with "..."; the whole name if nothing is left.
std::string short_kernel_name(const std::string& name, size_t max_chars);

}  // namespace kforge::evaluation
