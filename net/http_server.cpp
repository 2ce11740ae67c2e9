#include "net/http_server.hpp"
#include "net/beast.hpp"

#include <sys/socket.h>

#include <atomic>
#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>

namespace kforge::net {
namespace {

using namespace beast_names;

// Compares without leaking where the first difference is.
bool same_secret(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

HttpRequest to_request(const http::request<http::string_body>& r) {
  HttpRequest out;
  out.method = std::string(r.method_string());
  std::string target(r.target());
  auto q = target.find('?');
  out.path = target.substr(0, q);
  if (q != std::string::npos) out.query = target.substr(q + 1);
  out.body = r.body();
  for (const auto& field : r) {
    std::string name(field.name_string());
    for (auto& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    // A field given twice is one field whose values are joined by commas (RFC 9110, 5.3), so
    // no later copy silently replaces an earlier one.
    auto [it, added] = out.headers.emplace(name, std::string(field.value()));
    if (!added) it->second += ", " + std::string(field.value());
  }
  return out;
}

class Channel : public WebSocketChannel {
 public:
  explicit Channel(websocket::stream<tcp::socket>& ws) : ws_(ws) {}
  bool send(const std::string& text) override {
    beast::error_code ec;
    ws_.text(true);
    ws_.write(boost::asio::buffer(text), ec);
    return !ec;
  }
  bool ping() override {
    beast::error_code ec;
    ws_.ping({}, ec);
    return !ec;
  }

 private:
  websocket::stream<tcp::socket>& ws_;
};

void write_response(tcp::socket& socket, const HttpResponse& res, unsigned version, bool keep_alive,
                    beast::error_code& ec) {
  http::response<http::string_body> out{static_cast<http::status>(res.status), version};
  out.set(http::field::server, "kforge");
  out.set(http::field::content_type, res.content_type);
  for (const auto& [name, value] : res.headers) out.set(name, value);
  out.keep_alive(keep_alive);
  out.body() = res.body;
  out.prepare_payload();
  http::write(socket, out, ec);
}

HttpResponse json_error(int status, const std::string& message) {
  std::string escaped;
  for (char c : message) {
    if (c == '"' || c == '\\') escaped += '\\';
    escaped += static_cast<unsigned char>(c) < 0x20 ? ' ' : c;
  }
  return {status, "application/json", "{\"error\":\"" + escaped + "\"}", {}};
}

/// The bearer token a browser offers as a WebSocket subprotocol (`kforge-token.<token>`), or "".
std::string subprotocol_token(const HttpRequest& req) {
  auto it = req.headers.find("sec-websocket-protocol");
  if (it == req.headers.end()) return {};
  const std::string prefix = "kforge-token.";
  const std::string& offered = it->second;
  size_t start = 0;
  while (start < offered.size()) {
    size_t end = offered.find(',', start);
    if (end == std::string::npos) end = offered.size();
    std::string item = offered.substr(start, end - start);
    item.erase(0, item.find_first_not_of(' '));
    item.erase(item.find_last_not_of(' ') + 1);
    if (item.rfind(prefix, 0) == 0) return item.substr(prefix.size());
    start = end + 1;
  }
  return {};
}

using Clock = std::chrono::steady_clock;

}  // namespace

struct HttpServer::Impl {
  std::string token, metrics_token;
  std::map<std::string, HttpResponse> public_files;
  Handler handler;
  WebSocketAdmission admit;
  WebSocketHandler websocket_handler;
  Limits limits;
  boost::asio::io_context io;
  std::unique_ptr<tcp::acceptor> acceptor;
  std::thread accept_thread, watchdog_thread;
  std::mutex mutex;
  std::condition_variable idle, wake_watchdog;
  // Open connections (shut down on stop): when each must have received its request, when it
  // was accepted, whether it has shown the token, and whether it was closed to make room.
  struct Open {
    Clock::time_point deadline = Clock::time_point::max();
    Clock::time_point since = Clock::now();
    bool admitted = false, evicted = false;
  };
  std::map<tcp::socket*, Open> open;
  int connections = 0;  // threads serving one, pending or admitted
  int pending = 0;      // of those, not yet admitted and not evicted
  int admitted = 0;
  std::atomic<bool> stopping{false};

  void set_deadline(tcp::socket* socket, Clock::time_point deadline) {
    std::lock_guard lock(mutex);
    open[socket].deadline = deadline;
  }
  bool is_admitted(tcp::socket* socket) {
    std::lock_guard lock(mutex);
    return open[socket].admitted;
  }
  // The connection has shown the token: it leaves the pending crowd, if the cap has room.
  bool admit_connection(tcp::socket* socket) {
    std::lock_guard lock(mutex);
    auto& o = open[socket];
    if (o.admitted) return true;
    if (admitted >= limits.max_connections) return false;
    o.admitted = true;
    ++admitted;
    if (!o.evicted) --pending;
    return true;
  }
  // Makes room for a new connection: closes the pending one accepted first. Called locked.
  void evict_oldest_pending() {
    auto oldest = open.end();
    for (auto it = open.begin(); it != open.end(); ++it)
      if (!it->second.admitted && !it->second.evicted &&
          (oldest == open.end() || it->second.since < oldest->second.since))
        oldest = it;
    if (oldest == open.end()) return;
    oldest->second.evicted = true;
    --pending;
    ::shutdown(oldest->first->native_handle(), SHUT_RDWR);
  }

  // Cuts off connections whose request is late: shutting the socket down ends the blocked read.
  void watchdog() {
    std::unique_lock lock(mutex);
    while (!stopping) {
      wake_watchdog.wait_for(lock, std::chrono::milliseconds(100));
      const auto now = Clock::now();
      for (auto& [socket, o] : open)
        if (o.deadline <= now) {
          ::shutdown(socket->native_handle(), SHUT_RDWR);
          o.deadline = Clock::time_point::max();
        }
    }
  }

  HttpResponse authorise(const HttpRequest& req) const {
    auto it = req.headers.find("authorization");
    std::string given;
    bool bearer = false;
    if (it != req.headers.end()) {
      // One credential: the scheme's name in any case (RFC 9110, 11.1), then the token.
      const std::string& value = it->second;
      const auto space = value.find(' ');
      std::string scheme = value.substr(0, space);
      for (auto& c : scheme) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (value.find(',') != std::string::npos)
        return json_error(400, "one Authorization header with one bearer token, not several");
      const auto start =
          space == std::string::npos ? space : value.find_first_not_of(' ', space);
      bearer = scheme == "bearer" && start != std::string::npos;
      if (bearer) given = value.substr(start);
    }
    if (!bearer) given = subprotocol_token(req);
    if (bearer && !metrics_token.empty() && req.method == "GET" && req.path == "/metrics" &&
        same_secret(given, metrics_token))
      return {0, "", "", {}};
    if (given.empty() || !same_secret(given, token))
      return json_error(401,
                        "missing or wrong bearer token (the daemon writes it to <state>/token)");
    return {0, "", "", {}};
  }

  void serve(tcp::socket socket) {
    beast::flat_buffer buffer;
    beast::error_code ec;
    for (;;) {
      // Before the token, the header must come soon; after it, the whole request in due time.
      set_deadline(&socket, Clock::now() + (is_admitted(&socket) ? limits.request_timeout
                                                                   : limits.header_timeout));
      http::request_parser<http::string_body> parser;
      parser.header_limit(static_cast<std::uint32_t>(limits.max_header_bytes));
      parser.body_limit(limits.max_body_bytes);
      // The header first: a request without the token is answered before its body is read.
      http::read_header(socket, buffer, parser, ec);
      HttpRequest req;
      HttpResponse res;
      if (!ec) {
        req = to_request(parser.get());
        auto file = req.method == "GET" ? public_files.find(req.path) : public_files.end();
        res = file != public_files.end() ? HttpResponse{0, "", "", {}} : authorise(req);
        if (res.status == 0 && file == public_files.end() && !admit_connection(&socket))
          res = json_error(503, "too many open connections to the daemon (" +
                                    std::to_string(limits.max_connections) + "); try again");
        if (res.status != 0) {
          write_response(socket, res, parser.get().version(), false, ec);
          break;
        }
        set_deadline(&socket, Clock::now() + limits.request_timeout);
        http::read(socket, buffer, parser, ec);
      }
      if (ec == http::error::end_of_stream || ec == boost::asio::error::eof ||
          ec == boost::asio::error::connection_reset || ec == boost::asio::error::shut_down)
        break;
      if (ec) {
        // A request that is not HTTP, too large, or cut off at its deadline gets a 400, 413 or
        // 431 (when the socket still takes one) and the connection ends.
        const HttpResponse refusal =
            ec == http::error::body_limit
                ? json_error(413, "the request's body is larger than " +
                                      std::to_string(limits.max_body_bytes) + " bytes")
            : ec == http::error::header_limit
                ? json_error(431, "the request's header is larger than " +
                                      std::to_string(limits.max_header_bytes) + " bytes")
                : json_error(400, "malformed request: " + ec.message());
        write_response(socket, refusal, 11, false, ec);
        break;
      }
      set_deadline(&socket, Clock::time_point::max());
      auto raw = parser.release();
      req = to_request(raw);
      if (auto file = req.method == "GET" ? public_files.find(req.path) : public_files.end();
          file != public_files.end()) {
        res = file->second;
      } else if (websocket::is_upgrade(raw)) {
        res = admit(req);
        if (res.status == 0) {
          websocket::stream<tcp::socket> ws(std::move(socket));
          {
            std::lock_guard lock(mutex);  // the stream owns the socket now
            auto entry = open[&socket];
            open.erase(&socket);
            entry.deadline = Clock::time_point::max();
            open[&ws.next_layer()] = entry;
          }
          // A browser that offered its token as a subprotocol must be answered with one it
          // offered, or it drops the connection: `kforge`, which it offers beside the token.
          if (!subprotocol_token(req).empty())
            ws.set_option(websocket::stream_base::decorator([](websocket::response_type& r) {
              r.set(http::field::sec_websocket_protocol, "kforge");
            }));
          ws.accept(raw, ec);
          if (!ec) {
            Channel channel(ws);
            websocket_handler(req, channel, stopping);
            ws.close(websocket::close_code::going_away, ec);
          }
          socket = std::move(ws.next_layer());
          std::lock_guard lock(mutex);
          auto entry = open[&ws.next_layer()];
          open.erase(&ws.next_layer());
          open[&socket] = entry;
          break;
        }
      } else {
        try {
          res = handler(req);
        } catch (const std::exception& e) {
          res = json_error(500, e.what());
        }
      }
      // A client that does not read its answer is cut off like one that does not send.
      set_deadline(&socket, Clock::now() + limits.request_timeout);
      write_response(socket, res, raw.version(), raw.keep_alive(), ec);
      if (ec || !raw.keep_alive()) break;
    }
    socket.shutdown(tcp::socket::shutdown_both, ec);
    std::lock_guard lock(mutex);
    const auto& o = open[&socket];
    if (o.admitted)
      --admitted;
    else if (!o.evicted)
      --pending;
    open.erase(&socket);
    if (--connections == 0) idle.notify_all();
  }
};

HttpServer::HttpServer(std::string token, Handler handler, WebSocketAdmission admit,
                       WebSocketHandler websocket_handler, Limits limits)
    : impl_(std::make_shared<Impl>()) {
  impl_->limits = limits;
  impl_->token = std::move(token);
  impl_->handler = std::move(handler);
  impl_->admit = std::move(admit);
  impl_->websocket_handler = std::move(websocket_handler);
}

void HttpServer::set_metrics_token(std::string token) {
  impl_->metrics_token = std::move(token);
}

void HttpServer::set_public_files(std::map<std::string, HttpResponse> files) {
  impl_->public_files = std::move(files);
}

HttpServer::~HttpServer() {
  stop();
}

Result<void> HttpServer::start(uint16_t port) {
  beast::error_code ec;
  auto endpoint = tcp::endpoint(boost::asio::ip::make_address("127.0.0.1"), port);
  impl_->acceptor = std::make_unique<tcp::acceptor>(impl_->io);
  impl_->acceptor->open(endpoint.protocol(), ec);
  if (!ec) impl_->acceptor->set_option(boost::asio::socket_base::reuse_address(true), ec);
  if (!ec) impl_->acceptor->bind(endpoint, ec);
  if (!ec) impl_->acceptor->listen(boost::asio::socket_base::max_listen_connections, ec);
  if (ec)
    return Result<void>::failure("cannot listen on 127.0.0.1:" + std::to_string(port) + ": " +
                                 ec.message());
  auto impl = impl_;
  impl_->accept_thread = std::thread([impl] {
    for (;;) {
      beast::error_code ec;
      tcp::socket socket(impl->io);
      impl->acceptor->accept(socket, ec);
      {
        std::lock_guard lock(impl->mutex);
        if (impl->stopping) return;
        if (ec) continue;
        // A crowd that has not shown the token makes room for the newcomer, oldest first: a
        // client sends its header at once, an idle or slow one is the oldest.
        if (impl->pending >= impl->limits.max_pending) impl->evict_oldest_pending();
        if (impl->pending >= impl->limits.max_pending) {
          // None to close yet (all just accepted): told so at once and closed.
          beast::error_code ignored;
          write_response(socket,
                         json_error(503, "too many connections to the daemon waiting to send a "
                                         "request; try again"),
                         11, false, ignored);
          socket.shutdown(tcp::socket::shutdown_both, ignored);
          continue;
        }
        ++impl->connections;
        ++impl->pending;
      }
      std::thread([impl, s = std::move(socket)]() mutable { impl->serve(std::move(s)); }).detach();
    }
  });
  impl_->watchdog_thread = std::thread([impl] { impl->watchdog(); });
  return {};
}

uint16_t HttpServer::port() const {
  beast::error_code ec;
  return impl_->acceptor ? impl_->acceptor->local_endpoint(ec).port() : 0;
}

void HttpServer::stop() {
  if (!impl_->acceptor) return;
  {
    std::lock_guard lock(impl_->mutex);
    if (impl_->stopping) return;
    impl_->stopping = true;
    beast::error_code ec;
    for (auto& [s, o] : impl_->open) s->shutdown(tcp::socket::shutdown_both, ec);
  }
  impl_->wake_watchdog.notify_all();
  if (impl_->watchdog_thread.joinable()) impl_->watchdog_thread.join();
  beast::error_code ec;
  // Unblock accept(): shut the acceptor down and poke it with a connection of our own.
  impl_->acceptor->cancel(ec);
  {
    tcp::socket poke(impl_->io);
    poke.connect(impl_->acceptor->local_endpoint(ec), ec);
  }
  if (impl_->accept_thread.joinable()) impl_->accept_thread.join();
  impl_->acceptor->close(ec);
  std::unique_lock lock(impl_->mutex);
  impl_->idle.wait_for(lock, std::chrono::seconds(10), [&] { return impl_->connections == 0; });
}

}  // namespace kforge::net
