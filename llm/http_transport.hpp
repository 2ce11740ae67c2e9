// One HTTP(S) exchange with an LLM provider over Boost.Beast: TLS with certificate and host-name
// verification and SNI, an HTTP CONNECT tunnel through `HTTPS_PROXY`, and timeouts on connect,
// on silence (no byte for too long) and on the whole exchange. The body can be watched as it
// arrives, which is how streamed (SSE) replies are read.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/result.hpp"

namespace kforge::llm {

struct Url {
  std::string scheme;  ///< "http" or "https"
  std::string host;    ///< a name, an IPv4 address or an IPv6 address (without its brackets)
  std::string port;
  std::string target;  ///< path and query, at least "/"
  std::string user;    ///< from "user:password@" (percent-decoded): only a proxy's URL has them
  std::string password;

  /// "host:port", an IPv6 address in brackets ("[::1]:8080"): as Host and CONNECT write it.
  std::string authority() const;
};

/// Parses an absolute http(s) URL (RFC 3986: "user:password@" before the host, an IPv6 address
/// in brackets), or says what is wrong with it.
Result<Url> parse_url(std::string_view text);

struct TransportOptions {
  std::chrono::milliseconds connect_timeout{15000};
  std::chrono::milliseconds idle_timeout{120000};  ///< longest silence while waiting for bytes
  std::chrono::milliseconds total_timeout{900000};
  std::string ca_file;  ///< extra trust anchors (a private CA, tests); the system store is kept
  /// "http://[user:password@]host:port" of a CONNECT proxy for https (credentials go in a
  /// Proxy-Authorization: Basic header); empty: taken from HTTPS_PROXY/https_proxy unless
  /// NO_PROXY names the host or the host is loopback.
  std::string proxy;
  size_t body_limit = 64 << 20;
};

struct HttpRequest {
  std::string method = "POST";
  std::string url;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
};

struct HttpResponse {
  int status = 0;
  std::map<std::string, std::string> headers;  ///< names in lower case
  std::string body;
  bool complete = false;  ///< the whole body arrived (false when the stream was cut)
};

struct TransportResult {
  bool ok = false;         ///< a response (of any status) arrived
  bool timed_out = false;  ///< cut by a timeout
  std::string error;       ///< what failed, when !ok or the body is incomplete
  HttpResponse response;
};

/// Called with each piece of the body as it arrives (after the status line and headers).
using BodyListener = std::function<void(std::string_view piece)>;

/// Sends the request and reads the response. Never throws.
TransportResult send_http(const HttpRequest& request, const TransportOptions& options,
                          const BodyListener& on_body = {});

/// The proxy URL for `host` from the environment ("" for none), as `send_http` would use it.
std::string proxy_from_environment(const std::string& host);

}  // namespace kforge::llm
