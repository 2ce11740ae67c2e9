// Content hashes (SHA-256) for the compile and export caches.
#pragma once

#include <string>
#include <string_view>

namespace kforge::gpu {

/// Lower-case hex SHA-256 of the bytes.
std::string sha256_hex(std::string_view bytes);

/// Reads a whole file; empty optional-like result signalled by `ok`.
struct FileText {
  bool ok = false;
  std::string text;
  std::string error;
};
FileText read_file(const std::string& path);

/// Writes atomically (temporary file in the same folder, then rename). Returns an error or "".
std::string write_file_atomic(const std::string& path, std::string_view bytes);

}  // namespace kforge::gpu
