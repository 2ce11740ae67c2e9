// The daemon's door for nodes (`kforge node`), published on --node-port through CAF's middleman:
// a node presents the daemon's node token and offers its evaluators; each goes to the evaluator
// pool of its kind (a CPU evaluator to "cpu", a GPU to the pool of a GPU of the same name, the
// daemon's own or one a pool for nodes' GPUs took first). A wrong token is refused and logged. The
// registry also gathers every pool's status rows (the pools' and their node members') for the
// console, the dashboard and /metrics.
#pragma once

#include <map>
#include <set>
#include <string>

#include "actors/stage_stats.hpp"
#include "messages/interfaces.hpp"

namespace kforge {

struct node_registry_state {
  std::string token;
  std::map<std::string, evaluator_pool_actor> pools;  ///< by evaluator key
  std::map<std::string, std::string> gpu_names;       ///< cuda pool key -> its device's name
  std::set<std::string> open_pools;  ///< cuda pools without a daemon GPU, for nodes' GPUs
  stage_stats stats{"node registry", "nodes"};
  static inline const char* name = "kforge.node_registry";
};

node_registry_actor::behavior_type node_registry_impl(
    node_registry_actor::stateful_pointer<node_registry_state> self, std::string token,
    std::map<std::string, evaluator_pool_actor> pools, std::set<std::string> open_pools);

/// Whether `presented` is `token`, in time that does not depend on where they differ.
bool same_token(const std::string& presented, const std::string& token);

/// Where a node's evaluator with `device` goes: the key of the pool that takes it ("" for none)
/// and, where none does, why. `gpu_names` are the cuda pools' device names (the daemon's GPUs',
/// and the kind each pool of `open_pools`, made for nodes' GPUs, took with its first GPU): a GPU
/// goes to the pool of its name, else to the first open pool no kind has taken.
std::pair<std::string, std::string> place_evaluator(
    const device_info& device, const std::map<std::string, evaluator_pool_actor>& pools,
    const std::map<std::string, std::string>& gpu_names, const std::set<std::string>& open_pools);

}  // namespace kforge
