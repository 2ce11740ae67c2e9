// Boost 1.74's Asio in C++20 needs <utility> before it.
#include <utility>

#include "llm/http_transport.hpp"

#include <poll.h>
#include <openssl/evp.h>
#include <sys/socket.h>

#include <algorithm>
#include <atomic>
#include <boost/asio/connect.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <cctype>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <thread>

namespace kforge::llm {
namespace {

namespace beast = boost::beast;
namespace http = beast::http;
namespace ssl = boost::asio::ssl;
using tcp = boost::asio::ip::tcp;
using clock_type = std::chrono::steady_clock;

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

std::string base64(const std::string& bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3) + 1, '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(bytes.data()),
                                static_cast<int>(bytes.size()));
  out.resize(static_cast<size_t>(n));
  return out;
}

/// "%40" -> "@" (RFC 3986 2.1), as a user or password with reserved characters is written.
std::optional<std::string> percent_decoded(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      out += text[i];
      continue;
    }
    if (i + 2 >= text.size() || !std::isxdigit(static_cast<unsigned char>(text[i + 1])) ||
        !std::isxdigit(static_cast<unsigned char>(text[i + 2])))
      return std::nullopt;
    out += static_cast<char>(std::stoi(std::string(text.substr(i + 1, 2)), nullptr, 16));
    i += 2;
  }
  return out;
}

bool is_loopback(const std::string& host) {
  return host == "localhost" || host == "::1" || host == "[::1]" || host.rfind("127.", 0) == 0;
}

/// Cuts the connection (shutdown of the socket, which wakes any blocked read or write) when
/// the exchange has been silent for too long or has run past its whole budget. Sync Beast has
/// no timeouts of its own; this keeps the code sequential and the limits exact.
class Watchdog {
 public:
  explicit Watchdog(const TransportOptions& options)
      : idle_(options.idle_timeout),
        deadline_(clock_type::now() + options.total_timeout),
        last_(clock_type::now().time_since_epoch().count()) {
    thread_ = std::thread([this] { watch(); });
  }
  ~Watchdog() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    thread_.join();
  }
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

  void watch_socket(int fd) {
    std::lock_guard lock(mutex_);
    fd_ = fd;
  }
  void touch() { last_ = clock_type::now().time_since_epoch().count(); }
  bool fired() const { return fired_; }
  std::string why() const {
    std::lock_guard lock(mutex_);
    return why_;
  }

 private:
  void watch() {
    std::unique_lock lock(mutex_);
    while (!stopping_) {
      auto now = clock_type::now();
      auto last = clock_type::time_point(clock_type::duration(last_.load()));
      std::string why;
      if (now >= deadline_) why = "the exchange ran past its time limit";
      if (now - last >= idle_)
        why = "no data for " +
              std::to_string(std::chrono::duration_cast<std::chrono::seconds>(idle_).count()) +
              " s";
      if (!why.empty() && fd_ >= 0) {
        why_ = why;
        fired_ = true;
        ::shutdown(fd_, SHUT_RDWR);
        return;
      }
      auto next = std::min(deadline_, last + idle_);
      wake_.wait_until(lock, std::max(next, now + std::chrono::milliseconds(20)));
    }
  }

  std::chrono::milliseconds idle_;
  clock_type::time_point deadline_;
  std::atomic<clock_type::rep> last_;
  std::atomic<bool> fired_{false};
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  int fd_ = -1;
  std::string why_;
  std::thread thread_;
};

/// Connects with a time limit: a non-blocking connect per resolved address, then blocking mode.
bool connect_within(tcp::socket& socket, const std::string& host, const std::string& port,
                    std::chrono::milliseconds limit, std::string& error) {
  beast::error_code ec;
  tcp::resolver resolver(socket.get_executor());
  auto endpoints = resolver.resolve(host, port, ec);
  if (ec) {
    error = "cannot resolve " + host + ": " + ec.message();
    return false;
  }
  for (const auto& entry : endpoints) {
    socket.close(ec);
    socket.open(entry.endpoint().protocol(), ec);
    if (ec) continue;
    socket.non_blocking(true, ec);
    socket.connect(entry.endpoint(), ec);
    if (ec == boost::asio::error::would_block || ec == boost::asio::error::in_progress) {
      pollfd p{socket.native_handle(), POLLOUT, 0};
      int ready = ::poll(&p, 1, static_cast<int>(limit.count()));
      if (ready <= 0) {
        ec = boost::asio::error::timed_out;
      } else {
        int so_error = 0;
        socklen_t len = sizeof so_error;
        ::getsockopt(socket.native_handle(), SOL_SOCKET, SO_ERROR, &so_error, &len);
        ec = beast::error_code(so_error, boost::asio::error::get_system_category());
      }
    }
    if (!ec) {
      socket.non_blocking(false, ec);
      socket.set_option(tcp::no_delay(true), ec);
      return true;
    }
    error = "cannot connect to " + host + ":" + port + ": " + ec.message();
  }
  if (error.empty()) error = "cannot connect to " + host + ":" + port + ": no address";
  return false;
}

/// Asks an HTTP proxy for a tunnel to host:port (RFC 9110 CONNECT), with the proxy's user and
/// password as Basic credentials (RFC 7617) where its URL has them.
bool open_tunnel(tcp::socket& socket, const Url& proxy, const Url& target, std::string& error) {
  beast::error_code ec;
  const std::string authority = target.authority();
  http::request<http::empty_body> req{http::verb::connect, authority, 11};
  req.set(http::field::host, authority);
  if (!proxy.user.empty() || !proxy.password.empty())
    req.set(http::field::proxy_authorization, "Basic " + base64(proxy.user + ":" + proxy.password));
  http::write(socket, req, ec);
  if (ec) {
    error = "proxy CONNECT: " + ec.message();
    return false;
  }
  beast::flat_buffer buffer;
  http::response_parser<http::empty_body> parser;
  parser.skip(true);  // a CONNECT reply has no body
  http::read(socket, buffer, parser, ec);
  if (ec) {
    error = "proxy CONNECT: " + ec.message();
    return false;
  }
  const int status = static_cast<int>(parser.get().result_int());
  if (status / 100 != 2) {
    error = "the proxy refused the tunnel to " + authority + ": HTTP " + std::to_string(status);
    if (status == 407)
      error += proxy.user.empty()
                   ? " (it wants credentials: HTTPS_PROXY=http://user:password@host:port)"
                   : " (it does not take the user and password of HTTPS_PROXY)";
    return false;
  }
  return true;
}

template <class Stream>
void exchange(Stream& stream, const Url& url, const HttpRequest& request,
              const TransportOptions& options, Watchdog& watchdog, const BodyListener& on_body,
              TransportResult& out) {
  beast::error_code ec;
  http::request<http::string_body> req{http::string_to_verb(request.method), url.target, 11};
  const bool default_port =
      (url.scheme == "https" && url.port == "443") || (url.scheme == "http" && url.port == "80");
  const std::string authority = url.authority();
  // Without the default port: "api.openai.com", "[2001:db8::1]".
  req.set(http::field::host,
          default_port ? authority.substr(0, authority.size() - url.port.size() - 1) : authority);
  req.set(http::field::user_agent, "kforge");
  for (const auto& [name, value] : request.headers) req.set(name, value);
  req.body() = request.body;
  req.prepare_payload();
  http::write(stream, req, ec);
  watchdog.touch();
  if (ec) {
    out.error = "sending the request: " + ec.message();
    return;
  }
  beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  parser.body_limit(options.body_limit);
  http::read_header(stream, buffer, parser, ec);
  watchdog.touch();
  if (ec) {
    out.error = "reading the response: " + ec.message();
    return;
  }
  out.ok = true;
  out.response.status = static_cast<int>(parser.get().result_int());
  for (const auto& field : parser.get())
    out.response.headers[lower(std::string(field.name_string()))] = std::string(field.value());
  size_t delivered = 0;
  auto deliver = [&] {
    const auto& body = parser.get().body();
    if (body.size() > delivered && on_body) on_body(std::string_view(body).substr(delivered));
    delivered = body.size();
  };
  while (!parser.is_done()) {
    http::read_some(stream, buffer, parser, ec);
    watchdog.touch();
    deliver();
    if (ec) break;
  }
  out.response.body = parser.release().body();
  out.response.complete = !ec;
  if (ec) out.error = "the response was cut short: " + ec.message();
}

}  // namespace

std::string Url::authority() const {
  return (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" + port;
}

Result<Url> parse_url(std::string_view text) {
  Url url;
  auto fail = [&](const std::string& why) {
    return Result<Url>::failure("\"" + std::string(text) + "\": " + why);
  };
  auto scheme_end = text.find("://");
  if (scheme_end == std::string_view::npos)
    return Result<Url>::failure("\"" + std::string(text) +
                                "\" is not an absolute URL (http://... or https://...)");
  url.scheme = lower(std::string(text.substr(0, scheme_end)));
  if (url.scheme != "http" && url.scheme != "https")
    return fail("only http and https are supported");
  auto rest = text.substr(scheme_end + 3);
  auto end = rest.find_first_of("/?#");
  auto authority = rest.substr(0, end);
  url.target = end == std::string_view::npos ? "/" : std::string(rest.substr(end));
  if (url.target[0] != '/') url.target = "/" + url.target;
  if (auto at = authority.rfind('@'); at != std::string_view::npos) {
    auto userinfo = authority.substr(0, at);
    authority = authority.substr(at + 1);
    auto colon = userinfo.find(':');
    auto user = percent_decoded(userinfo.substr(0, colon));
    auto password = percent_decoded(
        colon == std::string_view::npos ? std::string_view() : userinfo.substr(colon + 1));
    if (!user || !password) return fail("a bad %-escape in the user or password");
    url.user = std::move(*user);
    url.password = std::move(*password);
  }
  std::string_view port;
  if (!authority.empty() && authority[0] == '[') {
    // An IPv6 address (RFC 3986 3.2.2): "[2001:db8::1]" or "[::1]:8080".
    auto close = authority.find(']');
    if (close == std::string_view::npos) return fail("an IPv6 address without its closing ]");
    url.host = std::string(authority.substr(1, close - 1));
    auto after = authority.substr(close + 1);
    if (!after.empty() && after[0] != ':') return fail("text after the IPv6 address's ]");
    if (!after.empty()) port = after.substr(1);
    beast::error_code ec;
    boost::asio::ip::make_address_v6(url.host, ec);
    if (ec) return fail(url.host + " is not an IPv6 address");
  } else {
    auto colon = authority.find(':');
    if (colon != std::string_view::npos && authority.find(':', colon + 1) != std::string_view::npos)
      return fail("an IPv6 address must be written in brackets, as in https://[::1]:8080");
    url.host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) port = authority.substr(colon + 1);
  }
  url.port = port.empty() ? (url.scheme == "https" ? "443" : "80") : std::string(port);
  if (url.host.empty() || !std::all_of(url.port.begin(), url.port.end(), [](unsigned char c) {
        return std::isdigit(c);
      }))
    return fail("no host, or a port that is not a number");
  return {std::move(url), {}};
}

std::string proxy_from_environment(const std::string& host) {
  if (is_loopback(host)) return {};
  const char* no_proxy = std::getenv("NO_PROXY");
  if (!no_proxy) no_proxy = std::getenv("no_proxy");
  if (no_proxy) {
    std::string list = no_proxy, item;
    for (size_t i = 0; i <= list.size(); ++i) {
      if (i < list.size() && list[i] != ',') {
        if (!std::isspace(static_cast<unsigned char>(list[i]))) item += list[i];
        continue;
      }
      if (item == "*") return {};
      if (!item.empty()) {
        if (item[0] == '.') item.erase(0, 1);
        if (host == item || (host.size() > item.size() &&
                             host.compare(host.size() - item.size(), item.size(), item) == 0 &&
                             host[host.size() - item.size() - 1] == '.'))
          return {};
      }
      item.clear();
    }
  }
  const char* proxy = std::getenv("HTTPS_PROXY");
  if (!proxy) proxy = std::getenv("https_proxy");
  return proxy ? proxy : "";
}

TransportResult send_http(const HttpRequest& request, const TransportOptions& options,
                          const BodyListener& on_body) {
  TransportResult out;
  auto url = parse_url(request.url);
  if (!url) {
    out.error = url.error;
    return out;
  }
  if (!url->user.empty() || !url->password.empty()) {
    out.error = "\"" + request.url +
                "\": a user and password in a provider's URL are not sent (the key goes in "
                "api_key_env or key_file)";
    return out;
  }
  // An explicit proxy is used as given; the environment's is not for loopback or NO_PROXY hosts.
  std::string proxy_text = options.proxy;
  if (proxy_text.empty() && url->scheme == "https") proxy_text = proxy_from_environment(url->host);
  std::optional<Url> proxy;
  if (!proxy_text.empty() && url->scheme == "https") {
    if (proxy_text.find("://") == std::string::npos) proxy_text = "http://" + proxy_text;
    auto parsed = parse_url(proxy_text);
    if (!parsed) {
      out.error = "HTTPS_PROXY: " + parsed.error;
      return out;
    }
    proxy = std::move(*parsed);
  }
  try {
    boost::asio::io_context io;
    tcp::socket socket(io);
    const Url& first_hop = proxy ? *proxy : *url;
    if (!connect_within(socket, first_hop.host, first_hop.port, options.connect_timeout,
                        out.error))
      return out;
    Watchdog watchdog(options);
    watchdog.watch_socket(socket.native_handle());
    auto finish = [&] {
      if (watchdog.fired()) {
        out.timed_out = true;
        out.error = watchdog.why() + (out.error.empty() ? "" : " (" + out.error + ")");
      }
    };
    if (proxy && url->scheme == "https" && !open_tunnel(socket, *proxy, *url, out.error)) {
      finish();
      return out;
    }
    if (url->scheme == "http") {
      exchange(socket, *url, request, options, watchdog, on_body, out);
      finish();
      return out;
    }
    ssl::context tls(ssl::context::tls_client);
    tls.set_default_verify_paths();
    if (!options.ca_file.empty()) {
      beast::error_code ec;
      tls.load_verify_file(options.ca_file, ec);
      if (ec) {
        out.error = "cannot load CA file " + options.ca_file + ": " + ec.message();
        return out;
      }
    }
    tls.set_verify_mode(ssl::verify_peer);
    beast::ssl_stream<tcp::socket&> stream(socket, tls);
    stream.set_verify_callback(ssl::host_name_verification(url->host));
    // Server Name Indication carries names only, never an address (RFC 6066 3).
    beast::error_code not_an_address;
    boost::asio::ip::make_address(url->host, not_an_address);
    if (not_an_address && !SSL_set_tlsext_host_name(stream.native_handle(), url->host.c_str())) {
      out.error = "cannot set the TLS server name for " + url->host;
      return out;
    }
    beast::error_code ec;
    stream.handshake(ssl::stream_base::client, ec);
    watchdog.touch();
    if (ec) {
      out.error = "TLS handshake with " + url->host + ": " + ec.message();
      finish();
      return out;
    }
    exchange(stream, *url, request, options, watchdog, on_body, out);
    finish();
  } catch (const std::exception& e) {
    out.ok = false;
    out.error = std::string("HTTP exchange failed: ") + e.what();
  }
  return out;
}

}  // namespace kforge::llm
