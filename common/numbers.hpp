// Numbers people and clients type (command-line values, ids in API paths and queries), parsed
// whole and range-checked: no exception, no silent truncation, and an error that says what was
// expected.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

namespace kforge {

/// All of `text` as a base-10 integer within [min, max]; nullopt for anything else (empty, a
/// sign or junk where digits belong, trailing characters, out of range).
std::optional<int64_t> parse_integer(std::string_view text,
                                     int64_t min = std::numeric_limits<int64_t>::min(),
                                     int64_t max = std::numeric_limits<int64_t>::max());

/// All of `text` as a finite decimal number within [min, max]; nullopt for anything else.
std::optional<double> parse_real(std::string_view text,
                                 double min = -std::numeric_limits<double>::max(),
                                 double max = std::numeric_limits<double>::max());

/// "--seeds needs a whole number from 1 to 100, not 'abc'"
std::string integer_error(std::string_view what, std::string_view text, int64_t min, int64_t max);
/// "--max-seconds needs a number from 0.001 to 3600, not 'x'"
std::string real_error(std::string_view what, std::string_view text, double min, double max);
/// The same without the name: "needs a whole number from 1 to 100, not 'abc'" (for a parser that
/// puts the option's name in front itself).
std::string integer_expected(std::string_view text, int64_t min, int64_t max);
std::string real_expected(std::string_view text, double min, double max);

/// One number in a printf format ("%.2fx", "%.0f%%"), for tables and messages.
std::string format_number(const char* printf_format, double v);

}  // namespace kforge
