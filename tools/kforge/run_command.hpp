// `kforge run CONFIG`: one experiment in the foreground, without a daemon; `kforge show ID`: one
// archived candidate; `kforge report ID`: what an experiment's LLMs were worth.
#pragma once

#include <string>
#include <vector>

namespace kforge::cli {

int run_experiment(const std::vector<std::string>& args);
int run_show(const std::vector<std::string>& args);
/// `kforge list`: the experiments in an archive, without a daemon.
int run_list(const std::vector<std::string>& args);
/// `kforge report EXPERIMENT`: money, cost per correct kernel, LLM verifiers against the hardware.
int run_report(const std::vector<std::string>& args);

}  // namespace kforge::cli
