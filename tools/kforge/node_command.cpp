#include "tools/kforge/node_command.hpp"

#include <unistd.h>

#include <caf/all.hpp>
#include <caf/io/middleman.hpp>

#include <atomic>
#include <chrono>
#include <csignal>
#include <iostream>
#include <thread>

#include "actors/evaluator.hpp"
#include "actors/node_evaluator.hpp"
#include "actors/runtime.hpp"
#include "common/log.hpp"
#include "evaluation/hashing.hpp"
#include "evaluation/task_export.hpp"
#include "messages/errors.hpp"
#include "messages/registration.hpp"
#include "tools/kforge/actor_host.hpp"
#include "tools/kforge/command_line.hpp"
#include "tools/kforge/tokens.hpp"

namespace kforge::cli {
namespace {

using namespace std::chrono_literals;

std::atomic<bool> g_stop{false};

void on_signal(int) {
  g_stop = true;
}

/// Sleeps up to `d`, less when the node is told to stop.
void pause_for(std::chrono::milliseconds d) {
  for (auto waited = 0ms; waited < d && !g_stop; waited += 100ms)
    std::this_thread::sleep_for(100ms);
}

/// The node's actors: a compiler pool, its evaluators, and what the daemon is offered of them.
struct node_actors {
  compiler_actor compiler;
  std::vector<evaluator_actor> evaluators;
  std::vector<node_evaluator_actor> offered;

  void stop(caf::actor_system& system) {
    caf::scoped_actor self{system};
    for (auto& o : offered) self->send_exit(o, caf::exit_reason::user_shutdown);
    for (auto& e : evaluators) self->send_exit(e, caf::exit_reason::user_shutdown);
    self->send_exit(compiler, caf::exit_reason::user_shutdown);
  }
};

/// The devices of the node's evaluators, asked of them (a worker starts for each).
std::vector<device_info> ask_devices(caf::actor_system& system, const node_actors& actors) {
  caf::scoped_actor self{system};
  std::vector<device_info> out;
  for (const auto& e : actors.evaluators)
    self->request(e, 10min, device_atom::value)
        .receive([&](device_info& d) { out.push_back(std::move(d)); },
                 [&](caf::error& err) {
                   out.emplace_back();
                   out.back().error = describe(err);
                 });
  return out;
}

enum class Joined { yes, retry, refused };

/// One connection to the daemon: join, then wait until it is lost or the node is stopped.
Joined join_once(caf::actor_system& system, const std::string& host, uint16_t port,
                 const node_join& join, const node_actors& actors, bool& said_unreachable) {
  const std::string where = host + ":" + std::to_string(port);
  auto registry = system.middleman().remote_actor<node_registry_actor>(host, port);
  if (!registry) {
    if (!said_unreachable)
      log::warn("cannot reach the daemon at " + where + " (" + system.render(registry.error()) +
                "); trying again every 2 s");
    said_unreachable = true;
    return Joined::retry;
  }
  said_unreachable = false;
  caf::scoped_actor self{system};
  Joined outcome = Joined::retry;
  self->request(*registry, 10min, join_atom::value, join, actors.offered)
      .receive(
          [&](node_welcome& w) {
            std::string placed;
            for (size_t i = 0; i < w.placed.size(); ++i) {
              const std::string what = join.devices[i].backend + " (" + join.devices[i].name + ")";
              if (w.placed[i].empty())
                log::warn("the daemon took no evaluator for " + what + ": " + w.refused[i]);
              else
                placed += (placed.empty() ? "" : ", ") + what + " serves " + w.placed[i];
            }
            if (placed.empty()) {
              std::cerr << "kforge node: the daemon at " << where
                        << " took none of this node's evaluators\n";
              outcome = Joined::refused;
              return;
            }
            log::info("joined the daemon at " + where + " as node " + w.node + ": " + placed);
            outcome = Joined::yes;
          },
          [&](caf::error& e) {
            if (e.category() == error_category &&
                e.code() == static_cast<uint8_t>(error_code::not_authorized)) {
              std::cerr << "kforge node: the daemon at " << where
                        << " refused this node: " << context_text(e) << "\n";
              outcome = Joined::refused;
              return;
            }
            log::warn("joining the daemon at " + where + " failed (" + describe(e) +
                      "); trying again");
          });
  if (outcome != Joined::yes) return outcome;
  self->monitor(*registry);
  bool lost = false;
  while (!g_stop && !lost)
    self->receive(
        [&](caf::down_msg& d) {
          lost = true;
          log::warn("lost the daemon at " + where + " (" + system.render(d.reason) +
                    "); rejoining when it is back");
        },
        caf::after(200ms) >> [] {});
  return Joined::yes;
}

}  // namespace

bool parse_join_address(const std::string& text, std::string& host, uint16_t& port) {
  const size_t colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == text.size()) return false;
  host = text.substr(0, colon);
  if (host.size() > 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  const std::string digits = text.substr(colon + 1);
  if (digits.size() > 5 || digits.find_first_not_of("0123456789") != std::string::npos)
    return false;
  const int value = std::stoi(digits);
  if (value < 1 || value > 65535) return false;
  port = static_cast<uint16_t>(value);
  return true;
}

int run_node(const std::vector<std::string>& args) {
  std::string join_at, token_file, gpus_text, name, cache, log_level_text = "info";
  bool cpu = false, allow_unconfined = false;
  unsigned jobs = 0;
  CommandLine line(
      "node",
      "Hosts evaluators (one per GPU, or one CPU evaluator) and a compiler pool for this host's "
      "device, and offers them to a daemon started with --node-port. Candidates arrive as source "
      "and are compiled here; tasks arrive as their files and are exported here with this host's "
      "Python. The node rejoins whenever its connection is lost. SIGINT or SIGTERM stop it; its "
      "candidates in flight go back to the daemon's queue.");
  auto& app = line.app();
  app.add_option("--join", join_at, "the daemon's node address, HOST:PORT")->required();
  app.add_option("--token-file", token_file,
                 "a copy of the daemon's <state>/node_token (keep it private)")
      ->required()
      ->type_name("FILE");
  auto* gpus_option =
      app.add_option("--gpus", gpus_text, "the GPUs to offer, by index: 0,1 (default: every GPU)")
          ->type_name("LIST");
  app.add_flag("--cpu", cpu, "offer one CPU evaluator instead of GPUs")->excludes(gpus_option);
  app.add_option("--name", name, "the node's name in the daemon's state (default: the host name)");
  add_host_options(app, cache, jobs, allow_unconfined);
  add_choice(app, "--log-level", log_level_text, {"debug", "info", "warn", "error", "off"},
             "what goes to standard error (default info)");
  if (auto code = line.parse(args)) return *code;
  std::string host;
  uint16_t port = 0;
  if (!parse_join_address(join_at, host, port))
    return line.error("--join needs HOST:PORT (a port from 1 to 65535), not '" + join_at + "'");
  auto token = read_token_file(token_file);
  if (!token) return line.error(token.error);
  std::vector<int> gpus;
  if (!gpus_text.empty()) {
    for (size_t at = 0; at <= gpus_text.size();) {
      const size_t comma = std::min(gpus_text.find(',', at), gpus_text.size());
      const std::string entry = gpus_text.substr(at, comma - at);
      if (entry.empty() || entry.size() > 3 ||
          entry.find_first_not_of("0123456789") != std::string::npos ||
          std::stoi(entry) >= gpu_count())
        return line.error("--gpus: '" + entry + "' is not a GPU of this host (it has " +
                          std::to_string(gpu_count()) + ")");
      gpus.push_back(std::stoi(entry));
      at = comma + 1;
    }
  }
  const bool offer_cpu = cpu || (gpus.empty() && gpu_count() == 0);
  auto evaluators = default_evaluators(offer_cpu, gpus, true, allow_unconfined);
  if (offer_cpu)  // the CPU alone, whatever GPUs the host has
    evaluators.erase(std::remove_if(evaluators.begin(), evaluators.end(),
                                    [](const auto& e) { return e.backend == Backend::cuda; }),
                     evaluators.end());
  if (evaluators.empty()) return line.error("this host has no evaluator to offer");
  if (name.empty()) {
    char buffer[256] = {};
    ::gethostname(buffer, sizeof buffer - 1);
    name = buffer[0] ? buffer : "node";
  }
  log::to_stderr(log::parse_level(log_level_text).value_or(log::Level::info));
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  std::signal(SIGPIPE, SIG_IGN);

  caf::actor_system_config config;
  register_message_types(config);
  configure_network(config);
  caf::actor_system system{config};
  const std::string cache_dir = cache.empty() ? evaluation::default_cache_dir() : cache;
  node_actors actors;
  if (jobs == 0) jobs = std::max(1u, std::thread::hardware_concurrency());
  actors.compiler = spawn_compiler(system, jobs, cache_dir, std::chrono::seconds(600),
                                   allow_unconfined, evaluators);
  for (const auto& e : evaluators) {
    actors.evaluators.push_back(spawn_evaluator(system, e, cache_dir));
    actors.offered.push_back(
        system.spawn(node_evaluator_impl, name, evaluator_key(e.backend, e.device),
                     cache_dir + "/node_tasks", actors.evaluators.back(), actors.compiler));
  }
  node_join join;
  join.token = *token;
  join.node = name;
  join.devices = ask_devices(system, actors);
  int exit_code = 0;
  bool said_unreachable = false;
  while (!g_stop) {
    const auto joined = join_once(system, host, port, join, actors, said_unreachable);
    if (joined == Joined::refused) {
      exit_code = 1;
      break;
    }
    pause_for(joined == Joined::yes ? 1s : 2s);
  }
  if (exit_code == 0)
    log::info("stopping; the daemon gives this node's candidates in flight to others");
  actors.stop(system);
  // A worker in a blocking evaluation ends with it (minutes for a heavy one): the node leaves
  // after 5 s all the same, and its workers die with it (docs/evaluator.md, "Process lifetime").
  std::thread([exit_code] {
    std::this_thread::sleep_for(std::chrono::seconds(5));
    std::_Exit(exit_code);
  }).detach();
  return exit_code;
}

}  // namespace kforge::cli
