// `kforge daemon`: hosts the actors, resumes unfinished experiments, serves the HTTP API on
// loopback; `kforge console`: attaches to it.
#pragma once

#include <string>
#include <vector>

namespace kforge::cli {

int run_daemon(const std::vector<std::string>& args);
/// `dashboard`: `kforge dashboard`, the console's command of that name with its own --help.
int run_console(const std::vector<std::string>& args, bool dashboard = false);

}  // namespace kforge::cli
