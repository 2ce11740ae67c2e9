// kforge's log: lines with a time and a level, to standard error and, for the daemon, a rotating
// file. spdlog keeps them; this file is the only one that includes it, so that its headers (and
// fmt's) stay out of the translation units that see LibTorch's. Foreground commands log warnings
// and errors (a worker restarted, a stage that failed); the daemon logs what it does.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "common/result.hpp"

namespace kforge::log {

enum class Level { debug, info, warn, error, off };

/// "debug", "info", "warn", "error", "off"; nullopt for anything else.
std::optional<Level> parse_level(std::string_view name);

/// Lines at `level` and above go to standard error (the default before any call: warn).
void to_stderr(Level level);
/// The daemon's log: standard error and `path` (rotated at 10 MiB, three files kept), at `level`.
Result<void> to_stderr_and_file(const std::string& path, Level level);

void debug(std::string_view line);
void info(std::string_view line);
void warn(std::string_view line);
void error(std::string_view line);

}  // namespace kforge::log
