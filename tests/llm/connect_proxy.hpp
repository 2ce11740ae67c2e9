// An HTTP CONNECT proxy on loopback for tests: it opens the tunnel a client asks for and copies
// bytes both ways, counting the tunnels, so a test can see a client really went through it. Like
// a corporate proxy it can demand Basic credentials (RFC 7617): a CONNECT without the right
// Proxy-Authorization gets 407 Proxy Authentication Required and no tunnel.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

namespace kforge::test {

class ConnectProxy {
 public:
  /// `credentials`: "user:password" a CONNECT must present; empty: none needed.
  explicit ConnectProxy(std::string credentials = "");
  ~ConnectProxy();
  ConnectProxy(const ConnectProxy&) = delete;
  ConnectProxy& operator=(const ConnectProxy&) = delete;

  std::string url() const;  ///< "http://127.0.0.1:PORT"
  int tunnels() const;      ///< CONNECT requests answered with 200
  int refusals() const;     ///< CONNECT requests answered with 407
  std::string last_authority() const;

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

}  // namespace kforge::test
