// A small HTTP/1.1 + WebSocket server for the daemon's API (Boost.Beast, synchronous, a thread per
// connection: a handful of local clients, never the internet). It listens on loopback only and
// requires `Authorization: Bearer <token>` on every request, the WebSocket upgrade included (a
// browser, which cannot set that header on a WebSocket, offers the subprotocol
// `kforge-token.<token>` instead); the token is checked on the request's header, before its body is
// read. Public files (the dashboard's page, script and style: no data) are served without it.
// Limits keep a misbehaving local client from exhausting it, token or not: a connection that has
// not yet shown the token is pending, has a short deadline for its request's header, and when
// too many are pending the oldest is closed to make room (an idle or byte-a-second crowd cannot
// keep a client that sends its header at once from being served); connections that have shown it
// have a cap of their own (one more gets 503) and a deadline for each request to arrive whole.
// No CAF here: the daemon's handlers talk to the actors.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/result.hpp"

namespace kforge::net {

struct HttpRequest {
  std::string method;  ///< "GET", "POST", ...
  std::string path;    ///< without the query string
  std::string query;
  std::string body;
  std::map<std::string, std::string> headers;  ///< names in lower case
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;  ///< besides the content type
};

/// The server side of one WebSocket connection, handed to the WebSocket handler.
class WebSocketChannel {
 public:
  virtual ~WebSocketChannel() = default;
  /// Sends one text message; false once the peer is gone.
  virtual bool send(const std::string& text) = 0;
  /// Sends a ping; false once the peer is gone.
  virtual bool ping() = 0;
};

class HttpServer {
 public:
  using Handler = std::function<HttpResponse(const HttpRequest&)>;
  /// Runs on the connection's thread for as long as it wants the connection; `stopping` turns true
  /// when the server shuts down.
  using WebSocketHandler =
      std::function<void(const HttpRequest&, WebSocketChannel&, const std::atomic<bool>& stopping)>;

  /// Decides on an authorised WebSocket upgrade before it is accepted: status 0 accepts it; any
  /// other response is sent instead (an upgrade on a route that streams nothing, a filter that
  /// cannot be read).
  using WebSocketAdmission = Handler;

  struct Limits {
    /// Open connections that have shown the token (each has a thread), WebSockets included.
    int max_connections = 64;
    /// Connections that have not shown it yet; one more closes the oldest of them.
    int max_pending = 64;
    /// How long a connection that has not shown the token has for its request's header.
    std::chrono::milliseconds header_timeout{2000};
    /// From the moment the server waits for a request (a new or kept-alive connection) until its
    /// header and body have arrived; also the time a client gets to take its answer.
    std::chrono::milliseconds request_timeout{10000};
    size_t max_header_bytes = 16 << 10;
    size_t max_body_bytes = 8 << 20;
  };

  HttpServer(std::string token, Handler handler, WebSocketAdmission admit,
             WebSocketHandler websocket_handler, Limits limits);
  HttpServer(std::string token, Handler handler, WebSocketAdmission admit,
             WebSocketHandler websocket_handler)
      : HttpServer(std::move(token), std::move(handler), std::move(admit),
                   std::move(websocket_handler), Limits{}) {}
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  /// A second token that opens `GET /metrics` and nothing else, so a scraper's credential can
  /// stay the same across restarts while the API's token changes (call before start).
  void set_metrics_token(std::string token);
  /// Files answered to `GET path` without a token (call before start): the dashboard's static
  /// page, script and style, which hold no data of their own.
  void set_public_files(std::map<std::string, HttpResponse> files);
  /// Listens on 127.0.0.1:`port` (0: any free port). Returns an error or "".
  Result<void> start(uint16_t port);
  uint16_t port() const;
  /// Stops accepting, closes every connection and waits for their threads.
  void stop();

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

}  // namespace kforge::net
