// kforge-node-scale-bench: how a daemon's throughput grows with the number of evaluators that nodes
// offer it, and what limits it. The daemon side is the real one (coordinator, built-in proposer,
// verifier, compiler pool, archive, evaluator pool, node registry) with --cpu-evaluators 0; the
// evaluators are fixed-delay stand-ins (each answers a correct result after --delay seconds, one
// candidate at a time, as a worker does) in a second actor system of the same process that joins
// through CAF's middleman on loopback, so every candidate crosses the network as a real node's
// does. For each evaluator count the same experiment runs twice: "cold" (every candidate compiled
// on the daemon) and "warm" (the same candidates again: compile-cache hits), which leaves the
// coordinator, archive and network as what can limit. Prints candidates per minute, the ideal
// (evaluators / delay), and each stage's utilisation.
//
//   build/bench/kforge-node-scale-bench [--delay 2] [--evaluators 1,2,8,64] [--candidates 16]
//
// Each run has max(--candidates, 4 x evaluators) candidates over the four bundled tasks (the
// built-in proposer runs out near 25 a task); a last pair of runs has the largest count of
// evaluators answering at once, which measures what the daemon itself allows.
#include <caf/all.hpp>
#include <caf/io/middleman.hpp>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

#include "actors/coordinator.hpp"
#include "evaluation/build_config.hpp"
#include "evaluation/task_export.hpp"
#include "messages/registration.hpp"
#include "tools/kforge/actor_host.hpp"
#include "tools/kforge/tables.hpp"

using namespace kforge;
using namespace std::chrono_literals;

namespace {

/// The bundled tasks the experiment optimises (the built-in proposer has a few dozen candidates
/// for each).
constexpr const char* kTasks[] = {"softmax", "layernorm", "cross_entropy", "linear_relu"};

/// A stand-in evaluator: blocks for `delay` (on its own thread, as a worker's runner does) and
/// answers a correct one-config result whose speedup varies with the candidate.
node_evaluator_actor::behavior_type simulated_evaluator(std::chrono::milliseconds delay) {
  return {
      [](status_atom) {
        actor_status s;
        s.name = "simulated evaluator";
        return s;
      },
      [](device_atom) {
        device_info d;
        d.ok = true;
        d.backend = "cpu";
        d.name = "simulated";
        return d;
      },
      [delay](evaluate_atom, node_eval_request& r) {
        std::this_thread::sleep_for(delay);
        eval_result out;
        out.candidate_id = r.eval.candidate_id;
        out.config_set = r.eval.worker.mode;
        out.device = "simulated (node bench)";
        out.seconds = std::chrono::duration<double>(delay).count();
        evaluation::ConfigReport c;
        c.name = "simulated";
        c.correct = true;
        c.eager.median_ms = c.eager.p10_ms = c.eager.p90_ms = 1.0;
        c.kernel.median_ms = c.kernel.p10_ms = c.kernel.p90_ms =
            0.5 + static_cast<double>(r.eval.candidate_id % 7) / 10;
        c.speedup = c.eager.median_ms / c.kernel.median_ms;
        c.record_json = R"({"index":0,"name":"simulated","correct":true})";
        out.report.verdict = EvalVerdict::correct;
        out.report.configs = {c};
        return out;
      },
  };
}

struct Row {
  int evaluators = 0;
  std::string regime;
  double wall = 0, per_minute = 0, ideal = 0;
  int64_t evaluated = 0;
  std::map<std::string, double> utilisation;  ///< by stage
};

actor_status status_of(caf::scoped_actor& self, const status_reporter& who) {
  actor_status s;
  self->request(who, 5s, status_atom::value)
      .receive([&](actor_status& x) { s = x; }, [](caf::error&) {});
  return s;
}

/// One experiment on a fresh daemon side with `n` stand-ins joined; the archive at `archive`.
Row run_once(int n, std::chrono::milliseconds delay, int candidates, const std::string& archive,
             const std::string& cache, const std::string& regime) {
  Row row;
  row.evaluators = n;
  row.regime = regime;
  cli::actor_host host(true);
  runtime_options options;
  options.archive_path = archive;
  options.cache_dir = cache;
  options.node_token = "bench-token";
  options.cpu_evaluator = false;
  if (auto started = host.start(options); !started) {
    std::cerr << "kforge-node-scale-bench: " << started.error << "\n";
    std::exit(2);
  }
  auto port = host.system().middleman().publish(host.rt().registry, 0, "127.0.0.1");
  if (!port) {
    std::cerr << "kforge-node-scale-bench: " << host.system().render(port.error()) << "\n";
    std::exit(2);
  }
  // The nodes' side: its own actor system, joined over loopback.
  caf::actor_system_config node_config;
  register_message_types(node_config);
  cli::configure_network(node_config);
  caf::actor_system nodes{node_config};
  std::vector<node_evaluator_actor> offered;
  node_join join;
  join.token = options.node_token;
  join.node = "bench";
  for (int i = 0; i < n; ++i) {
    offered.push_back(nodes.spawn<caf::detached>(simulated_evaluator, delay));
    join.devices.push_back(device_info{true, "cpu", "simulated", "", "", ""});
  }
  {
    auto registry = nodes.middleman().remote_actor<node_registry_actor>("127.0.0.1", *port);
    caf::scoped_actor self{nodes};
    self->request(*registry, 60s, join_atom::value, join, offered)
        .receive([](node_welcome&) {},
                 [&](caf::error& e) {
                   std::cerr << "kforge-node-scale-bench: join: " << nodes.render(e) << "\n";
                   std::exit(2);
                 });
  }
  const std::string source = build::source_dir;
  std::string tasks;
  for (const char* t : kTasks)
    tasks += std::string(tasks.empty() ? "" : ", ") + "\"" + source + "/tasks/" + t + "\"";
  const std::string config = R"({"name": "node-scale", "seed": 3, "tasks": [)" + tasks + R"(],
      "backends": ["cpu"], "config_set": "single",
      "budget": {"candidates_per_target": )" +
                             std::to_string((candidates + 3) / 4) + R"(},
      "evaluation": {"seeds": 1}, "search": {"pipeline_depth": 128}})";
  const auto config_path = archive + ".json";
  std::ofstream(config_path) << config;
  auto spec = cli::load_experiment(config_path, host.rt());
  if (!spec) {
    std::cerr << "kforge-node-scale-bench: " << spec.error << "\n";
    std::exit(2);
  }
  caf::scoped_actor self{host.system()};
  auto record = host.record_experiment(*spec);
  const auto start = std::chrono::steady_clock::now();
  double first = -1, last = -1;
  host.start_coordinator(*record, *spec, caf::actor_cast<experiment_listener>(self), false);
  experiment_status final_status;
  for (bool done = false; !done;)
    self->receive(
        [&](event_atom, event_record& ev) {
          if (events::kind_named(ev.kind) != events::Kind::evaluated) return;
          last = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
          if (first < 0) first = last;
        },
        [&](done_atom, experiment_status& s) {
          final_status = std::move(s);
          done = true;
        });
  row.wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  row.evaluated = final_status.evaluated;
  // The search's rate, from its first evaluation to its last: the export before, and the
  // confirmations after (timed one at a time on one evaluator, by design), are not the rate's.
  row.per_minute =
      last > first ? 60.0 * static_cast<double>(row.evaluated - 1) / (last - first) : 0;
  row.ideal = delay.count() > 0 ? 60.0 * n / std::chrono::duration<double>(delay).count() : 0;
  const unsigned slots = std::max(1u, std::thread::hardware_concurrency());
  auto& s = host.rt().stages;
  auto utilisation = [&](const status_reporter& who, double parallel) {
    auto st = status_of(self, who);
    return st.uptime_seconds > 0 ? st.busy_seconds / (st.uptime_seconds * parallel) : 0;
  };
  row.utilisation["compiler"] = utilisation(caf::actor_cast<status_reporter>(s.compiler), slots);
  row.utilisation["archive"] = utilisation(caf::actor_cast<status_reporter>(s.archive), 1);
  row.utilisation["evaluators"] =
      utilisation(caf::actor_cast<status_reporter>(host.rt().pools.at("cpu")), n);
  row.utilisation["proposer"] =
      utilisation(caf::actor_cast<status_reporter>(s.proposers.at("builtin")), 1);
  for (auto& o : offered) caf::anon_send_exit(o, caf::exit_reason::user_shutdown);
  return row;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  double delay_s = 2;
  int candidates = 16;
  std::vector<int> counts{1, 2, 8, 64};
  for (size_t i = 0; i + 1 < args.size(); i += 2) {
    if (args[i] == "--delay") {
      delay_s = std::stod(args[i + 1]);
    } else if (args[i] == "--candidates") {
      candidates = std::stoi(args[i + 1]);
    } else if (args[i] == "--evaluators") {
      counts.clear();
      std::stringstream list(args[i + 1]);
      for (std::string item; std::getline(list, item, ',');) counts.push_back(std::stoi(item));
    } else {
      std::cerr << "usage: kforge-node-scale-bench [--delay S] [--evaluators 1,2,8,64] "
                   "[--candidates N]\n";
      return 2;
    }
  }
  const auto delay = std::chrono::milliseconds(static_cast<int64_t>(delay_s * 1000));
  const auto dir = std::filesystem::temp_directory_path() / "kforge-node-scale-bench";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string cache = (dir / "cache").string();
  std::cout << cli::pad("evaluators", 11) << cli::pad("delay s", 8) << cli::pad("regime", 7)
            << cli::pad("evaluated", 10) << cli::pad("wall s", 8) << cli::pad("per min", 9)
            << cli::pad("ideal", 8) << cli::pad("evaluators", 11) << cli::pad("compiler", 9)
            << cli::pad("archive", 8) << "proposer\n";
  int run = 0;
  // The last row: as many evaluators as the largest count, each answering at once: the rate the
  // daemon's own stages allow, whatever the evaluators.
  std::vector<std::pair<int, std::chrono::milliseconds>> runs;
  for (int n : counts) runs.emplace_back(n, delay);
  runs.emplace_back(counts.empty() ? 64 : counts.back(), std::chrono::milliseconds(0));
  for (const auto& [n, run_delay] : runs)
    for (const char* regime : {"cold", "warm"}) {
      // Cold: a cache of its own; warm: the cold run's cache, with its candidates compiled.
      const std::string run_cache =
          cache + "-" + std::to_string(n) + "-" + std::to_string(run_delay.count());
      // At least four candidates an evaluator, so that the rate is the steady state's.
      auto row =
          run_once(n, run_delay, std::max(candidates, 4 * n),
                   (dir / ("run" + std::to_string(run++) + ".db")).string(), run_cache, regime);
      auto pct = [](double x) { return cli::format("%.0f%%", 100 * x); };
      std::cout << cli::pad(std::to_string(n), 11)
                << cli::pad(cli::format("%.1f", std::chrono::duration<double>(run_delay).count()),
                            8)
                << cli::pad(regime, 7) << cli::pad(std::to_string(row.evaluated), 10)
                << cli::pad(cli::format("%.1f", row.wall), 8)
                << cli::pad(cli::format("%.1f", row.per_minute), 9)
                << cli::pad(cli::format("%.0f", row.ideal), 8)
                << cli::pad(pct(row.utilisation["evaluators"]), 11)
                << cli::pad(pct(row.utilisation["compiler"]), 9)
                << cli::pad(pct(row.utilisation["archive"]), 8) << pct(row.utilisation["proposer"])
                << std::endl;
    }
  return 0;
}
