// The console's side of the daemon's API: one HTTP request at a time, and a WebSocket that
// receives live events. Loopback only; the bearer token goes with every request.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "common/result.hpp"

namespace kforge::net {

struct ClientResponse {
  int status = 0;  ///< 0 when no answer came (the error says why)
  std::string body;
  std::string error;
};

ClientResponse http_call(const std::string& host, uint16_t port, const std::string& method,
                         const std::string& target, const std::string& token,
                         const std::string& body = {});

class WebSocketClient {
 public:
  WebSocketClient();
  ~WebSocketClient();
  /// Connects and upgrades.
  Result<void> connect(const std::string& host, uint16_t port, const std::string& target,
                       const std::string& token);
  /// Blocks for the next text message; the error says why the connection ended.
  Result<std::string> read();
  /// Ends the connection (also from another thread, to unblock read()).
  void close();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace kforge::net
