#include "net/dashboard_files.hpp"

namespace kforge::net {

HttpResponse page(const std::string& content_type, std::string body) {
  HttpResponse r{200, content_type, std::move(body), {}};
  r.headers = {
      {"Cache-Control", "no-cache"},
      {"Content-Security-Policy",
       "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"},
      {"X-Content-Type-Options", "nosniff"},
      {"Referrer-Policy", "no-referrer"},
  };
  return r;
}

}  // namespace kforge::net
