#include "common/log.hpp"

#include <spdlog/sinks/rotating_file_sink.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <memory>
#include <vector>

namespace kforge::log {
namespace {

constexpr const char* kPattern = "%Y-%m-%d %H:%M:%S.%e %-7l %v";

spdlog::level::level_enum to_spdlog(Level level) {
  switch (level) {
    case Level::debug:
      return spdlog::level::debug;
    case Level::info:
      return spdlog::level::info;
    case Level::warn:
      return spdlog::level::warn;
    case Level::error:
      return spdlog::level::err;
    case Level::off:
      break;
  }
  return spdlog::level::off;
}

std::shared_ptr<spdlog::logger> make(std::vector<spdlog::sink_ptr> sinks, Level level) {
  auto logger = std::make_shared<spdlog::logger>("kforge", sinks.begin(), sinks.end());
  logger->set_pattern(kPattern);
  logger->set_level(to_spdlog(level));
  // Every line reaches the file at once: a daemon killed at any moment keeps what it logged.
  logger->flush_on(spdlog::level::debug);
  return logger;
}

/// The logger, made on first use: standard error at warn.
spdlog::logger& logger() {
  static const bool made = [] {
    spdlog::set_default_logger(
        make({std::make_shared<spdlog::sinks::stderr_sink_mt>()}, Level::warn));
    return true;
  }();
  (void)made;
  return *spdlog::default_logger_raw();
}

}  // namespace

std::optional<Level> parse_level(std::string_view name) {
  if (name == "debug") return Level::debug;
  if (name == "info") return Level::info;
  if (name == "warn") return Level::warn;
  if (name == "error") return Level::error;
  if (name == "off") return Level::off;
  return std::nullopt;
}

void to_stderr(Level level) {
  logger();
  spdlog::set_default_logger(make({std::make_shared<spdlog::sinks::stderr_sink_mt>()}, level));
}

Result<void> to_stderr_and_file(const std::string& path, Level level) {
  logger();
  try {
    auto file = std::make_shared<spdlog::sinks::rotating_file_sink_mt>(path, 10 << 20, 3);
    spdlog::set_default_logger(
        make({std::make_shared<spdlog::sinks::stderr_sink_mt>(), file}, level));
  } catch (const spdlog::spdlog_ex& e) {
    return Result<void>::failure("cannot write the log " + path + ": " + e.what());
  }
  return {};
}

void debug(std::string_view line) {
  logger().debug("{}", line);
}
void info(std::string_view line) {
  logger().info("{}", line);
}
void warn(std::string_view line) {
  logger().warn("{}", line);
}
void error(std::string_view line) {
  logger().error("{}", line);
}

}  // namespace kforge::log
