// Index arithmetic that a long line of a generated kernel repeats, computed once under a name:
// views of views (29_SwinMLP's shifted windows, a concatenation of strided slices, a padded
// window read through a reshape) leave offsets whose quotients and remainders of the same sums
// recur dozens of times in one statement, and sources over the evaluator's size limit
// (max_source_bytes) that judge nothing. The compiler finds the common subexpressions either
// way; the names shrink the text it and the archive read.
#pragma once

#include <cstddef>
#include <string>

namespace kforge::generator {

/// Lines shorter than this are left as they are: a kernel of ordinary views prints the same.
inline constexpr size_t kNamedValuesLine = 1024;

/// `functions` (a kernel's text, C++ or CUDA) with, in each line of at least kNamedValuesLine
/// characters that is one statement (ends in its only `;`, no braces, no keyword before it, after
/// a line that ends a statement or opens a block) or a one-return lambda (`[&](...) { return X;
/// },`), each parenthesised arithmetic that the line repeats declared once before it as `const
/// auto kf_ix<N> = (...);` (in the lambda's body for a lambda) and read by that name. Only
/// arithmetic of names and integer literals (+ - * / %: no load, call, cast, comparison or
/// assignment) is named, so that evaluating it ahead of a selection that would skip it is
/// harmless; `auto` keeps each value's type. Names are numbered across `functions`.
std::string name_repeated_values(const std::string& functions);

}  // namespace kforge::generator
