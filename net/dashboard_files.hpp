// The daemon's web dashboard: its page, script and style (net/dashboard/), built into the binary
// by cmake/embed_files.cmake. They hold no data; the page asks the API for it with the token the
// person gives it (docs/daemon.md, "The dashboard").
#pragma once

#include <map>
#include <string>

#include "net/http_server.hpp"

namespace kforge::net {

/// The dashboard's files by the path they are served at ("/", "/dashboard/app.js", ...), each
/// with its content type and headers that keep the page to its own origin.
std::map<std::string, HttpResponse> dashboard_files();

/// A public file's response: its type, no caching, and a content security policy that lets it
/// load and connect to its own origin only, never be framed, and never send a referrer.
HttpResponse page(const std::string& content_type, std::string body);

}  // namespace kforge::net
