#include "net/http_client.hpp"
#include "net/beast.hpp"

#include <boost/asio/connect.hpp>

namespace kforge::net {

using namespace beast_names;

ClientResponse http_call(const std::string& host, uint16_t port, const std::string& method,
                         const std::string& target, const std::string& token,
                         const std::string& body) {
  ClientResponse out;
  boost::asio::io_context io;
  beast::tcp_stream stream(io);
  beast::error_code ec;
  stream.expires_after(std::chrono::seconds(30));
  stream.connect(tcp::endpoint(boost::asio::ip::make_address(host, ec), port), ec);
  if (ec) {
    out.error = "cannot connect to " + host + ":" + std::to_string(port) + ": " + ec.message();
    return out;
  }
  http::request<http::string_body> req{http::string_to_verb(method), target, 11};
  req.set(http::field::host, host);
  req.set(http::field::authorization, "Bearer " + token);
  req.set(http::field::content_type, "application/json");
  req.body() = body;
  req.prepare_payload();
  http::write(stream, req, ec);
  if (ec) {
    out.error = "sending the request: " + ec.message();
    return out;
  }
  beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  parser.body_limit(64 << 20);
  http::read(stream, buffer, parser, ec);
  if (ec) {
    out.error = "reading the answer: " + ec.message();
    return out;
  }
  out.status = static_cast<int>(parser.get().result_int());
  out.body = parser.get().body();
  stream.socket().shutdown(tcp::socket::shutdown_both, ec);
  return out;
}

struct WebSocketClient::Impl {
  boost::asio::io_context io;
  websocket::stream<tcp::socket> ws{io};
  beast::flat_buffer buffer;
};

WebSocketClient::WebSocketClient() : impl_(std::make_unique<Impl>()) {}
WebSocketClient::~WebSocketClient() {
  close();
}

Result<void> WebSocketClient::connect(const std::string& host, uint16_t port,
                                      const std::string& target, const std::string& token) {
  beast::error_code ec;
  impl_->ws.next_layer().connect(tcp::endpoint(boost::asio::ip::make_address(host, ec), port), ec);
  if (ec)
    return Result<void>::failure("cannot connect to " + host + ":" + std::to_string(port) + ": " +
                                 ec.message());
  impl_->ws.set_option(websocket::stream_base::decorator([token](websocket::request_type& req) {
    req.set(http::field::authorization, "Bearer " + token);
  }));
  impl_->ws.handshake(host + ":" + std::to_string(port), target, ec);
  if (ec) return Result<void>::failure("the WebSocket handshake failed: " + ec.message());
  return {};
}

Result<std::string> WebSocketClient::read() {
  beast::error_code ec;
  impl_->buffer.clear();
  impl_->ws.read(impl_->buffer, ec);
  if (ec)
    return Result<std::string>::failure(
        ec == websocket::error::closed ? "the daemon closed the connection" : ec.message());
  return {beast::buffers_to_string(impl_->buffer.data()), {}};
}

void WebSocketClient::close() {
  beast::error_code ec;
  impl_->ws.next_layer().shutdown(tcp::socket::shutdown_both, ec);
  impl_->ws.next_layer().close(ec);
}

}  // namespace kforge::net
