// `kforge node`: hosts evaluators (one per GPU it owns, or one CPU evaluator) and a compiler pool
// for its own device, and offers them to a daemon through CAF's middleman; it rejoins whenever the
// connection is lost (the daemon restarted, the network came back).
#pragma once

#include <string>
#include <vector>

namespace kforge::cli {

int run_node(const std::vector<std::string>& args);

/// "HOST:PORT" (the last colon separates them; "[::1]:PORT" for IPv6): host and port, or false.
bool parse_join_address(const std::string& text, std::string& host, uint16_t& port);

}  // namespace kforge::cli
