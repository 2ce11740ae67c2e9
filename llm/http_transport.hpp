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
  std::string host;
  std::string port;
  std::string target;  ///< path and query, at least "/"
};

/// Parses an absolute http(s) URL, or says what is wrong with it.
Result<Url> parse_url(std::string_view text);

struct TransportOptions {
  std::chrono::milliseconds connect_timeout{15000};
  std::chrono::milliseconds idle_timeout{120000};  ///< longest silence while waiting for bytes
  std::chrono::milliseconds total_timeout{900000};
  std::string ca_file;  ///< extra trust anchors (a private CA, tests); the system store is kept
  /// "http://host:port" of a CONNECT proxy for https; empty: taken from HTTPS_PROXY/https_proxy
  /// unless NO_PROXY names the host or the host is loopback.
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
