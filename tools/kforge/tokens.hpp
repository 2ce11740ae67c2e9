// The daemon's secrets on disk: new random tokens, files only their owner can read, tokens that
// stay the same across restarts (/metrics, nodes), and reading a token file a user points at.
#pragma once

#include <string>

#include "common/result.hpp"

namespace kforge::cli {

/// 32 random bytes as hex, from the kernel's generator.
Result<std::string> new_token();

/// Writes a file readable and writable by its owner only (created that way, never wider).
Result<void> write_private(const std::string& path, const std::string& text);

/// The token kept in `path` across restarts (<state>/metrics_token for a scraper's configuration,
/// <state>/node_token for nodes); made (private) when missing, malformed or readable by others.
Result<std::string> stable_token(const std::string& path);

/// The token in a file a user names (--token-file): its first line, which must be letters,
/// digits, '-', '_' or '.'; the error says which file and why.
Result<std::string> read_token_file(const std::string& path);

}  // namespace kforge::cli
