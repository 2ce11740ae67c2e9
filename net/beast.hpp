// The Boost.Beast and Asio parts net/'s server and client use, with the short names they use
// them by. Included by net/'s sources only (the public headers do not expose Beast).
#pragma once

// Boost 1.74's Asio in C++20 needs <utility> before it.
#include <utility>

#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>

namespace kforge::net::beast_names {

namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;
using tcp = boost::asio::ip::tcp;

}  // namespace kforge::net::beast_names
