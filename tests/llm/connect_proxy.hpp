// An HTTP CONNECT proxy on loopback for tests: it opens the tunnel a client asks for and copies
// bytes both ways, counting the tunnels, so a test can see a client really went through it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

namespace kforge::test {

class ConnectProxy {
 public:
  ConnectProxy();
  ~ConnectProxy();
  ConnectProxy(const ConnectProxy&) = delete;
  ConnectProxy& operator=(const ConnectProxy&) = delete;

  std::string url() const;  ///< "http://127.0.0.1:PORT"
  int tunnels() const;      ///< CONNECT requests answered with 200
  std::string last_authority() const;

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

}  // namespace kforge::test
