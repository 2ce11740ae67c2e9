// Files of the compile and export caches (content hashes come from common/sha256.hpp).
#pragma once

#include <string>
#include <string_view>

#include "common/sha256.hpp"

namespace kforge::evaluation {

using kforge::sha256_hex;

/// Reads a whole file; empty optional-like result signalled by `ok`.
struct FileText {
  bool ok = false;
  std::string text;
  std::string error;
};
FileText read_file(const std::string& path);

/// Writes atomically (temporary file in the same folder, then rename). Returns an error or "".
std::string write_file_atomic(const std::string& path, std::string_view bytes);

}  // namespace kforge::evaluation
