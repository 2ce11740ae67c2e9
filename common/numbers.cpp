#include "common/numbers.hpp"

#include <cstdio>

#include <charconv>
#include <cmath>
#include <sstream>

namespace kforge {
namespace {

std::string quoted(std::string_view text) {
  constexpr size_t kMax = 40;  // a client's value is echoed, never at length
  std::string out(text.substr(0, kMax));
  for (char& c : out)
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) > 0x7e) c = '?';
  return "'" + out + (text.size() > kMax ? "...'" : "'");
}

std::string number_text(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

}  // namespace

std::optional<int64_t> parse_integer(std::string_view text, int64_t min, int64_t max) {
  int64_t value = 0;
  const char* end = text.data() + text.size();
  // from_chars takes a leading '-' but no '+' or spaces, and reports overflow as an error.
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end || value < min || value > max)
    return std::nullopt;
  return value;
}

std::optional<double> parse_real(std::string_view text, double min, double max) {
  double value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end || !std::isfinite(value) || value < min ||
      value > max)
    return std::nullopt;
  return value;
}

std::string integer_expected(std::string_view text, int64_t min, int64_t max) {
  return "needs a whole number from " + std::to_string(min) + " to " + std::to_string(max) +
         ", not " + quoted(text);
}

std::string real_expected(std::string_view text, double min, double max) {
  return "needs a number from " + number_text(min) + " to " + number_text(max) + ", not " +
         quoted(text);
}

std::string integer_error(std::string_view what, std::string_view text, int64_t min, int64_t max) {
  return std::string(what) + " " + integer_expected(text, min, max);
}

std::string real_error(std::string_view what, std::string_view text, double min, double max) {
  return std::string(what) + " " + real_expected(text, min, max);
}

std::string format_number(const char* printf_format, double v) {
  char buf[96];
  std::snprintf(buf, sizeof buf, printf_format, v);
  return buf;
}

}  // namespace kforge
