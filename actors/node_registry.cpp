#include "actors/node_registry.hpp"

#include <chrono>
#include <memory>

#include "common/log.hpp"
#include "messages/errors.hpp"

namespace kforge {
namespace {

using self_ptr = node_registry_actor::stateful_pointer<node_registry_state>;
using namespace std::chrono_literals;

/// How the node names its evaluator `i` of `devices`: "cpu", "cuda:0", "cuda:1", ...
std::string node_key(const std::vector<device_info>& devices, size_t i) {
  if (devices[i].backend != "cuda") return devices[i].backend;
  int gpu = 0;
  for (size_t k = 0; k < i; ++k) gpu += devices[k].backend == "cuda";
  return "cuda:" + std::to_string(gpu);
}

/// Places each of the node's evaluators in its pool and answers the node.
void place_all(self_ptr self, const node_join& j, const std::vector<node_evaluator_actor>& offered,
               caf::typed_response_promise<node_welcome> promise) {
  auto& st = self->state;
  node_welcome welcome;
  welcome.node = j.node;
  std::string summary;
  for (size_t i = 0; i < offered.size(); ++i) {
    auto [key, why] = place_evaluator(j.devices[i], st.pools, st.gpu_names, st.open_pools);
    // A pool for nodes' GPUs takes this kind of GPU from now on.
    if (st.open_pools.count(key) && !st.gpu_names.count(key)) st.gpu_names[key] = j.devices[i].name;
    const std::string name = "node " + j.node + " evaluator " + node_key(j.devices, i);
    if (!key.empty())
      self->send(st.pools.at(key), join_atom::value, offered[i], j.devices[i], name);
    welcome.placed.push_back(key);
    welcome.refused.push_back(why);
    summary += (summary.empty() ? "" : "; ") + node_key(j.devices, i) + " (" + j.devices[i].name +
               ") " + (key.empty() ? "refused: " + why : "serves " + key);
  }
  log::info("node " + j.node + " joined: " + summary);
  st.stats.finished();
  promise.deliver(std::move(welcome));
}

}  // namespace

bool same_token(const std::string& presented, const std::string& token) {
  if (token.empty() || presented.size() != token.size()) return false;
  unsigned char differ = 0;
  for (size_t i = 0; i < token.size(); ++i)
    differ |= static_cast<unsigned char>(presented[i] ^ token[i]);
  return differ == 0;
}

std::pair<std::string, std::string> place_evaluator(
    const device_info& device, const std::map<std::string, evaluator_pool_actor>& pools,
    const std::map<std::string, std::string>& gpu_names, const std::set<std::string>& open_pools) {
  if (!device.ok) return {"", "its worker did not start: " + device.error};
  if (device.backend == "cpu") {
    if (pools.count("cpu")) return {"cpu", ""};
    return {"", "the daemon takes no CPU evaluators"};
  }
  if (device.backend != "cuda") return {"", "unknown backend `" + device.backend + "`"};
  // A target's candidates are timed on one kind of GPU: a node's GPU joins the pool of a daemon
  // GPU with the same name.
  std::string names;
  for (const auto& [key, name] : gpu_names) {
    if (name == device.name && pools.count(key)) return {key, ""};
    names += (names.empty() ? "" : ", ") + key + " " + name;
  }
  // Else the first pool for nodes' GPUs that no kind of GPU has taken yet.
  for (const auto& key : open_pools)
    if (!gpu_names.count(key) && pools.count(key)) return {key, ""};
  return {"", "the daemon has no GPU named " + device.name + " to pool it with (" +
                  (names.empty() ? std::string("it has none") : "it has " + names) +
                  ") and no pool for nodes' GPUs left (kforge daemon --node-gpu-pools)"};
}

node_registry_actor::behavior_type node_registry_impl(
    node_registry_actor::stateful_pointer<node_registry_state> self, std::string token,
    std::map<std::string, evaluator_pool_actor> pools, std::set<std::string> open_pools) {
  self->state.token = std::move(token);
  self->state.pools = std::move(pools);
  self->state.open_pools = std::move(open_pools);
  return {
      [self](status_atom) { return self->state.stats.status(); },
      [self](join_atom, node_join& j,
             std::vector<node_evaluator_actor>& offered) -> caf::result<node_welcome> {
        auto& st = self->state;
        if (!same_token(j.token, st.token)) {
          st.stats.note_error("refused a node calling itself `" + j.node +
                              "`: it did not present this daemon's node token");
          return make_error(error_code::not_authorized,
                            "the token is not this daemon's node token (<state>/node_token)");
        }
        if (j.devices.size() != offered.size())
          return make_error(error_code::invalid_request,
                            "the node named " + std::to_string(j.devices.size()) + " devices for " +
                                std::to_string(offered.size()) + " evaluators");
        st.stats.started("node " + j.node);
        auto promise = self->make_response_promise<node_welcome>();
        // The daemon's GPUs are asked their names once, when a node first offers a GPU.
        std::vector<std::string> unknown;
        for (const auto& d : j.devices)
          if (d.backend == "cuda") {
            for (const auto& [key, pool] : st.pools)
              if (key.rfind("cuda:", 0) == 0 && !st.gpu_names.count(key) &&
                  !st.open_pools.count(key))
                unknown.push_back(key);
            break;
          }
        if (unknown.empty()) {
          place_all(self, j, offered, promise);
          return promise;
        }
        auto pending = std::make_shared<size_t>(unknown.size());
        auto next = [self, j, offered, promise, pending]() mutable {
          if (--*pending == 0) place_all(self, j, offered, promise);
        };
        for (const auto& key : unknown)
          self->request(st.pools.at(key), 10min, device_atom::value)
              .then(
                  [self, key, next](device_info& d) mutable {
                    if (d.ok) self->state.gpu_names[key] = d.name;
                    next();
                  },
                  [next](caf::error&) mutable { next(); });
        return promise;
      },
      [self](nodes_atom) -> caf::result<std::vector<actor_status>> {
        auto promise = self->make_response_promise<std::vector<actor_status>>();
        auto& pools = self->state.pools;
        auto rows = std::make_shared<std::vector<std::vector<actor_status>>>(pools.size());
        auto pending = std::make_shared<size_t>(pools.size() + 1);
        auto next = [self, rows, pending, promise]() mutable {
          if (--*pending > 0) return;
          std::vector<actor_status> out{self->state.stats.status()};
          for (auto& r : *rows) out.insert(out.end(), r.begin(), r.end());
          promise.deliver(std::move(out));
        };
        size_t i = 0;
        for (const auto& [key, pool] : pools) {
          self->request(pool, 1s, nodes_atom::value)
              .then(
                  [rows, i, next](std::vector<actor_status>& r) mutable {
                    (*rows)[i] = std::move(r);
                    next();
                  },
                  [next](caf::error&) mutable { next(); });
          ++i;
        }
        next();
        return promise;
      },
  };
}

}  // namespace kforge
