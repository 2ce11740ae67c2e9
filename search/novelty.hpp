// The novelty filter's view of a kernel: its source with comments removed and whitespace
// reduced to what separates tokens, so that a proposal that only re-indents, re-comments or
// re-spaces a kernel already tried is recognised as the same kernel. String and character
// literals are kept as written; every name and number counts, so two variants of a template
// with different parameters stay different.
#pragma once

#include <string>
#include <string_view>

namespace kforge::search {

/// The source as the filter compares it.
std::string normalised_source(std::string_view source);

/// SHA-256 of normalised_source, in hex: equal for sources that differ only in layout and comments.
std::string source_digest(std::string_view source);

}  // namespace kforge::search
