// A small W3C WebDriver client for the dashboard's browser tests: starts Debian's chromedriver,
// opens a headless Chromium session, navigates, runs scripts in the page, waits for conditions and
// takes screenshots. Only what those tests need; every call reports the driver's own error.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "common/json.hpp"
#include "common/result.hpp"
#include "evaluation/process.hpp"

namespace kforge::test {

class WebDriver {
 public:
  /// True when chromedriver and Chromium are installed (tools/packages.txt installs both).
  static bool available();
  /// Starts chromedriver and a headless Chromium session with the window size given.
  static Result<WebDriver> start(int width = 1300, int height = 1000);
  WebDriver(WebDriver&&) = default;
  WebDriver& operator=(WebDriver&&) = default;
  ~WebDriver();

  Result<void> navigate(const std::string& url);
  /// Runs `script` (a function body: `return ...;`) in the page and returns its value.
  Result<json::Value> run(const std::string& script);
  /// Runs `script` until it returns something truthy (not false, null, 0 or "") or `timeout`
  /// passes; returns that value, or an error with the last value seen.
  Result<json::Value> wait_for(const std::string& script, std::chrono::milliseconds timeout);
  /// The page as a PNG.
  Result<std::string> screenshot();
  /// The page's address as the browser shows it.
  std::string url();

 private:
  struct State {
    std::optional<evaluation::Child> driver;
    uint16_t port = 0;
    std::string session;
  };
  WebDriver() : state_(std::make_unique<State>()) {}
  Result<json::Value> call(const std::string& method, const std::string& path,
                           const json::Value& body);
  std::unique_ptr<State> state_;  // null once moved from
};

}  // namespace kforge::test
