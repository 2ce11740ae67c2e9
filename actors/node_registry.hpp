// The daemon's door for nodes (`kforge node`), published on --node-port through CAF's middleman:
// a node presents the daemon's node token and offers its evaluators; each goes to the evaluator
// pool of its kind (a CPU evaluator to "cpu", a GPU to the pool of the daemon's GPU of the same
// name). A wrong token is refused and logged. The registry also gathers every pool's status rows
// (the pools' and their node members') for the console, the dashboard and /metrics.
#pragma once

#include <map>
#include <string>

#include "actors/stage_stats.hpp"
#include "messages/interfaces.hpp"

namespace kforge {

struct node_registry_state {
  std::string token;
  std::map<std::string, evaluator_pool_actor> pools;  ///< by evaluator key
  std::map<std::string, std::string> gpu_names;       ///< cuda pool key -> its device's name
  stage_stats stats{"node registry", "nodes"};
  static inline const char* name = "kforge.node_registry";
};

node_registry_actor::behavior_type node_registry_impl(
    node_registry_actor::stateful_pointer<node_registry_state> self, std::string token,
    std::map<std::string, evaluator_pool_actor> pools);

/// Whether `presented` is `token`, in time that does not depend on where they differ.
bool same_token(const std::string& presented, const std::string& token);

/// Where a node's evaluator with `device` goes: the key of the pool that takes it ("" for none)
/// and, where none does, why. `gpu_names` are the daemon's cuda pools' device names.
std::pair<std::string, std::string> place_evaluator(
    const device_info& device, const std::map<std::string, evaluator_pool_actor>& pools,
    const std::map<std::string, std::string>& gpu_names);

}  // namespace kforge
