// Content hashes: the compile and export caches, candidate sources and the LLM response cache
// all name things by the SHA-256 of their bytes.
#pragma once

#include <string>
#include <string_view>

namespace kforge {

/// Lower-case hex SHA-256 of the bytes.
std::string sha256_hex(std::string_view bytes);

}  // namespace kforge
