// `kforge run CONFIG`: one experiment in the foreground, without a daemon; `kforge show ID`: one
// archived candidate.
#pragma once

#include <string>
#include <vector>

namespace kforge::cli {

int run_experiment(const std::vector<std::string>& args);
int run_show(const std::vector<std::string>& args);

}  // namespace kforge::cli
