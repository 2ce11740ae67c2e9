// The daemon's HTTP server against clients that misbehave: no token with a huge body announced,
// a client that sends a byte at a time, more idle connections than the cap. Each is answered or
// cut off within its limit, and a well-behaved client is served afterwards.
#include <gtest/gtest.h>

// Boost 1.74's Asio in C++20 needs <utility> before it.
#include <utility>

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>

#include <sys/resource.h>

#include <chrono>
#include <iostream>
#include <thread>

#include "net/dashboard_files.hpp"
#include "net/http_server.hpp"

namespace kforge::test {
namespace {

using tcp = boost::asio::ip::tcp;
using namespace std::chrono_literals;

class HttpServerLimits : public testing::Test {
 protected:
  void SetUp() override {
    net::HttpServer::Limits limits;
    limits.max_connections = 4;
    limits.max_pending = 4;
    limits.request_timeout = 500ms;
    limits.header_timeout = 500ms;
    server_ = std::make_unique<net::HttpServer>(
        "secret-token",
        [this](const net::HttpRequest& r) {
          ++handled_;
          return net::HttpResponse{200, "application/json", "{\"path\":\"" + r.path + "\"}", {}};
        },
        [](const net::HttpRequest&) {
          return net::HttpResponse{0, "", "", {}};
        },
        [](const net::HttpRequest&, net::WebSocketChannel&, const std::atomic<bool>&) {}, limits);
    server_->set_metrics_token("metrics-token");
    server_->set_public_files({{"/", net::page("text/html; charset=utf-8", "<p>page</p>")}});
    auto started = server_->start(0);
    ASSERT_TRUE(started) << started.error;
  }

  tcp::socket connect() {
    tcp::socket s(io_);
    s.connect(tcp::endpoint(boost::asio::ip::make_address("127.0.0.1"), server_->port()));
    return s;
  }

  /// Everything the server sends until it closes the connection (or `limit` passes).
  static std::string read_until_closed(tcp::socket& s, std::chrono::milliseconds limit = 5s) {
    std::string out;
    auto until = std::chrono::steady_clock::now() + limit;
    s.non_blocking(true);
    char buf[4096];
    while (std::chrono::steady_clock::now() < until) {
      boost::system::error_code ec;
      size_t n = s.read_some(boost::asio::buffer(buf), ec);
      if (ec == boost::asio::error::would_block) {
        std::this_thread::sleep_for(10ms);
        continue;
      }
      if (ec) break;
      out.append(buf, n);
    }
    return out;
  }

  std::string authorised_get(const std::string& path) { return call("GET", path, "secret-token"); }

  std::string call(const std::string& method, const std::string& path, const std::string& token) {
    auto s = connect();
    std::string req = method + " " + path + " HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " +
                      token + "\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
    boost::asio::write(s, boost::asio::buffer(req));
    return read_until_closed(s);
  }

  boost::asio::io_context io_;
  std::unique_ptr<net::HttpServer> server_;
  std::atomic<int> handled_{0};
};

TEST_F(HttpServerLimits, TheTokenIsCheckedBeforeTheBodyIsRead) {
  auto s = connect();
  std::string head = "POST /api/experiments HTTP/1.1\r\nHost: x\r\nContent-Length: 8000000\r\n\r\n";
  boost::asio::write(s, boost::asio::buffer(head));
  auto start = std::chrono::steady_clock::now();
  std::string reply = read_until_closed(s);  // no body sent: the answer must not wait for it
  EXPECT_LT(std::chrono::steady_clock::now() - start, 400ms);
  EXPECT_NE(reply.find("401"), std::string::npos) << reply;
  EXPECT_EQ(handled_, 0);
}

/// Sends `request` and returns the whole answer.
std::string exchange(tcp::socket s, const std::string& request) {
  boost::system::error_code ec;
  boost::asio::write(s, boost::asio::buffer(request), ec);
  std::string out;
  char buf[4096];
  for (size_t n; (n = s.read_some(boost::asio::buffer(buf), ec)) > 0 || !ec;) out.append(buf, n);
  return out;
}

// The scheme's name in any case is one scheme (RFC 9110); two credentials are refused, whichever
// comes last; a body over the limit is a 413 and a header over it a 431, not a malformed request.
TEST_F(HttpServerLimits, CredentialsAndSizesAreJudgedAsHttpSaysThem) {
  for (const char* scheme : {"Bearer", "bearer", "BEARER", "bEaReR"})
    EXPECT_NE(exchange(connect(), std::string("GET /api/state HTTP/1.1\r\nHost: x\r\n"
                                              "Authorization: ") +
                                      scheme + " secret-token\r\nConnection: close\r\n\r\n")
                  .find("HTTP/1.1 200"),
              std::string::npos)
        << scheme;
  EXPECT_EQ(handled_, 4);
  for (const char* pair : {"Bearer wrong\r\nAuthorization: Bearer secret-token",
                           "Bearer secret-token\r\nAuthorization: Bearer wrong",
                           "Bearer secret-token\r\nAuthorization: Bearer secret-token"}) {
    auto reply = exchange(connect(), std::string("GET /api/state HTTP/1.1\r\nHost: x\r\n"
                                                 "Authorization: ") +
                                         pair + "\r\nConnection: close\r\n\r\n");
    EXPECT_NE(reply.find("HTTP/1.1 400"), std::string::npos) << pair << "\n" << reply;
    EXPECT_NE(reply.find("one Authorization header"), std::string::npos) << reply;
  }
  EXPECT_EQ(handled_, 4);
  // Announced over the 8 MiB default: answered on the header, before any body is sent.
  auto large = exchange(connect(),
                        "POST /api/experiments HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "
                        "secret-token\r\nContent-Length: " +
                            std::to_string(9u << 20) + "\r\nConnection: close\r\n\r\n");
  EXPECT_NE(large.find("HTTP/1.1 413"), std::string::npos) << large.substr(0, 300);
  auto header = exchange(connect(), "GET /api/state HTTP/1.1\r\nHost: x\r\nX-Long: " +
                                        std::string(20u << 10, 'h') + "\r\n\r\n");
  EXPECT_NE(header.find("HTTP/1.1 431"), std::string::npos) << header.substr(0, 300);
  EXPECT_EQ(handled_, 4);
}

// The scraper's token (kept across daemon restarts) opens GET /metrics and nothing else.
TEST_F(HttpServerLimits, TheMetricsTokenOpensTheMetricsOnly) {
  EXPECT_NE(call("GET", "/metrics", "metrics-token").find("{\"path\":\"/metrics\"}"),
            std::string::npos);
  EXPECT_EQ(handled_, 1);
  for (const auto& [method, path] :
       std::vector<std::pair<std::string, std::string>>{{"GET", "/api/state"},
                                                        {"POST", "/metrics"},
                                                        {"GET", "/metrics/x"},
                                                        {"POST", "/api/experiments"},
                                                        {"GET", "/api/candidates/1"}})
    EXPECT_NE(call(method, path, "metrics-token").find("401"), std::string::npos)
        << method << " " << path;
  EXPECT_NE(call("GET", "/metrics", "metrics-tokeN").find("401"), std::string::npos);
  EXPECT_EQ(handled_, 1);
  // The API's token still opens everything, the metrics included.
  EXPECT_NE(authorised_get("/metrics").find("/metrics"), std::string::npos);
}

// The dashboard's page is public (it holds no data) and keeps to its origin; the API is not, and a
// public path takes no other method.
TEST_F(HttpServerLimits, TheDashboardPageNeedsNoTokenAndTheApiStillDoes) {
  const std::string page = call("GET", "/", "");
  EXPECT_NE(page.find("200 OK"), std::string::npos) << page;
  EXPECT_NE(page.find("<p>page</p>"), std::string::npos) << page;
  EXPECT_NE(page.find("Content-Security-Policy: default-src 'none'; script-src 'self'"),
            std::string::npos)
      << page;
  EXPECT_NE(page.find("frame-ancestors 'none'"), std::string::npos) << page;
  EXPECT_NE(page.find("Referrer-Policy: no-referrer"), std::string::npos) << page;
  EXPECT_NE(call("POST", "/", "").find("401"), std::string::npos);
  EXPECT_NE(call("GET", "/api/state", "").find("401"), std::string::npos);
  EXPECT_NE(call("GET", "/index.html", "").find("401"), std::string::npos);
  EXPECT_EQ(handled_, 0);
}

// A browser cannot set the Authorization header on a WebSocket: it offers the token as a
// subprotocol beside `kforge`, and the server answers with `kforge` (without it the browser drops
// the connection). A wrong one is refused like a wrong header.
TEST_F(HttpServerLimits, ABrowserOffersItsTokenAsAWebSocketSubprotocol) {
  auto upgrade = [&](const std::string& protocols) {
    auto s = connect();
    std::string req =
        "GET /api/events HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
        "Sec-WebSocket-Protocol: " +
        protocols + "\r\n\r\n";
    boost::asio::write(s, boost::asio::buffer(req));
    return read_until_closed(s, 1s);
  };
  const std::string accepted = upgrade("kforge, kforge-token.secret-token");
  EXPECT_NE(accepted.find("101 Switching Protocols"), std::string::npos) << accepted;
  EXPECT_NE(accepted.find("Sec-WebSocket-Protocol: kforge\r\n"), std::string::npos) << accepted;
  for (const std::string wrong : {"kforge, kforge-token.secret-tokeN", "kforge", "kforge-token."})
    EXPECT_NE(upgrade(wrong).find("401"), std::string::npos) << wrong;
}

TEST_F(HttpServerLimits, AClientThatSendsAByteAtATimeIsCutOff) {
  auto s = connect();
  std::string req = "GET /api/state HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer secret-token\r\n";
  auto start = std::chrono::steady_clock::now();
  boost::system::error_code ec;
  for (char c : req) {
    boost::asio::write(s, boost::asio::buffer(&c, 1), ec);
    if (ec) break;
    std::this_thread::sleep_for(50ms);
  }
  std::string rest = read_until_closed(s, 2s);
  auto took = std::chrono::steady_clock::now() - start;
  EXPECT_TRUE(ec || rest.empty() || rest.find("400") != std::string::npos) << rest;
  EXPECT_LT(took, 4s) << "the slow client was never cut off";
  EXPECT_EQ(handled_, 0);
  EXPECT_NE(authorised_get("/api/after").find("/api/after"), std::string::npos);
}

// Connections that never show the token make room for one that does, oldest first, and are cut
// off at the header's deadline; connections that have shown it have their own cap.
TEST_F(HttpServerLimits, IdleConnectionsMakeRoomAndAuthorisedOnesHaveTheirOwnCap) {
  std::vector<tcp::socket> idle;
  for (int i = 0; i < 8; ++i) idle.push_back(connect());  // twice the pending cap
  std::this_thread::sleep_for(100ms);
  EXPECT_NE(authorised_get("/api/ok").find("/api/ok"), std::string::npos);
  // The oldest were closed to make room, before their deadline and without an answer.
  EXPECT_EQ(read_until_closed(idle[0], 200ms), "");
  // Four authorised connections kept alive fill their cap: a fifth is told so.
  std::vector<tcp::socket> kept;
  const std::string keep_alive =
      "GET /api/ok HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer secret-token\r\n\r\n";
  for (int i = 0; i < 4; ++i) {
    kept.push_back(connect());
    boost::asio::write(kept.back(), boost::asio::buffer(keep_alive));
    char buf[512];
    EXPECT_GT(kept.back().read_some(boost::asio::buffer(buf)), 0u);
  }
  EXPECT_NE(authorised_get("/api/ok").find("503"), std::string::npos);
  // They reach their deadline and are closed; then there is room again.
  for (auto& s : idle) EXPECT_EQ(read_until_closed(s, 3s).find("200"), std::string::npos);
  for (auto& s : kept) read_until_closed(s, 3s);
  std::this_thread::sleep_for(100ms);
  EXPECT_NE(authorised_get("/api/ok").find("/api/ok"), std::string::npos);
  EXPECT_EQ(handled_, 6);
}

// A thousand idle sockets and a crowd sending a byte at a time, reconnecting when cut off, against
// the daemon's default limits: requests with the token keep being answered within a second.
TEST(HttpServerCrowd, AuthorisedRequestsAreAnsweredWhileStrangersCrowdTheServer) {
  rlimit files{};
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &files), 0);
  files.rlim_cur = files.rlim_max;
  setrlimit(RLIMIT_NOFILE, &files);
  if (files.rlim_cur < 1400) GTEST_SKIP() << "too few file descriptors for the crowd";
  net::HttpServer server(
      "secret-token",
      [](const net::HttpRequest&) { return net::HttpResponse{200, "application/json", "{}", {}}; },
      [](const net::HttpRequest&) { return net::HttpResponse{0, "", "", {}}; },
      [](const net::HttpRequest&, net::WebSocketChannel&, const std::atomic<bool>&) {});
  ASSERT_TRUE(server.start(0));
  boost::asio::io_context io;
  const tcp::endpoint at(boost::asio::ip::make_address("127.0.0.1"), server.port());
  std::vector<tcp::socket> idle;
  for (int i = 0; i < 1000; ++i) {
    idle.emplace_back(io);
    boost::system::error_code ec;
    idle.back().connect(at, ec);
  }
  std::atomic<bool> done{false};
  std::vector<std::thread> slow;
  for (int t = 0; t < 4; ++t)
    slow.emplace_back([&] {
      boost::asio::io_context own;
      while (!done) {
        std::vector<tcp::socket> crowd;
        for (int i = 0; i < 25; ++i) {
          crowd.emplace_back(own);
          boost::system::error_code ec;
          crowd.back().connect(at, ec);
        }
        const std::string head = "GET /api/state HTTP/1.1\r\nHost: x\r\n";
        for (size_t byte = 0; byte < head.size() && !done; ++byte) {
          for (auto& s : crowd) {
            boost::system::error_code ec;
            boost::asio::write(s, boost::asio::buffer(&head[byte], 1), ec);
          }
          std::this_thread::sleep_for(100ms);
        }
      }
    });
  int answered = 0, fast = 0;
  for (int i = 0; i < 100; ++i) {
    const auto start = std::chrono::steady_clock::now();
    tcp::socket s(io);
    boost::system::error_code ec;
    s.connect(at, ec);
    auto r = exchange(std::move(s),
                      "GET /api/state HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "
                      "secret-token\r\nConnection: close\r\n\r\n");
    const auto took = std::chrono::steady_clock::now() - start;
    answered += r.find("HTTP/1.1 200") != std::string::npos;
    fast += r.find("HTTP/1.1 200") != std::string::npos && took < 1s;
    std::this_thread::sleep_for(20ms);
  }
  done = true;
  for (auto& t : slow) t.join();
  std::cout << answered << " of 100 requests with the token answered, " << fast
            << " within a second\n";
  EXPECT_GE(fast, 95);
}

}  // namespace
}  // namespace kforge::test
