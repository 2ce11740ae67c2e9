// kforge-experiment-bench: runs one experiment in-process (like `kforge run`) and measures the
// runtime: how busy the evaluator is (the fraction of wall time it spends evaluating: worker
// start, checks and timing), how busy while compiled candidates were waiting for it (busy time
// over the time it had work queued or running), candidates evaluated per minute, the time to the
// first evaluation and to the first correct kernel, and the best speedup over eager PyTorch per
// target after the budget. --headers overrides the experiment's evaluation.headers (auto, light,
// full), so one config measures candidates built with kforge's light headers against LibTorch's.
//
//   build-gpu/bench/kforge-experiment-bench configs/builtin_gpu.json --archive /tmp/bench.db
//       [--headers full]
#include <caf/all.hpp>

#include <iostream>

#include "actors/coordinator.hpp"
#include "evaluation/task_export.hpp"
#include "messages/errors.hpp"
#include "tools/kforge/actor_host.hpp"
#include "tools/kforge/tables.hpp"

using namespace kforge;

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  std::string config, archive_path = "/tmp/kforge-experiment-bench.db", cache, headers;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--archive" && i + 1 < args.size())
      archive_path = args[++i];
    else if (args[i] == "--cache" && i + 1 < args.size())
      cache = args[++i];
    else if (args[i] == "--headers" && i + 1 < args.size())
      headers = args[++i];
    else
      config = args[i];
  }
  if (config.empty()) {
    std::cerr << "usage: kforge-experiment-bench CONFIG [--archive PATH] [--cache DIR] "
                 "[--headers auto|light|full]\n";
    return 2;
  }
  cli::actor_host host;
  runtime_options options;
  options.archive_path = archive_path;
  options.cache_dir = cache.empty() ? evaluation::default_cache_dir() : cache;
  if (auto started = host.start(options); !started) {
    std::cerr << "kforge-experiment-bench: " << started.error << "\n";
    return 2;
  }
  auto loaded = cli::load_experiment(config, host.rt());
  if (!loaded) {
    std::cerr << "kforge-experiment-bench: " << loaded.error << "\n";
    return 2;
  }
  auto spec = std::move(*loaded);
  if (!headers.empty()) {
    auto chosen = parse_headers(headers);
    if (!chosen) {
      std::cerr << "kforge-experiment-bench: --headers must be auto, light or full, not '"
                << headers << "'\n";
      return 2;
    }
    spec.headers = *chosen;
  }
  auto& rt = host.rt();
  caf::scoped_actor self{host.system()};
  auto recorded = host.record_experiment(spec);
  if (!recorded) {
    std::cerr << "kforge-experiment-bench: " << recorded.error << "\n";
    return 2;
  }
  const experiment_record record = *recorded;
  const auto start = std::chrono::steady_clock::now();
  host.start_coordinator(record, spec, caf::actor_cast<experiment_listener>(self), false);
  double first_evaluation = -1, first_correct = -1;
  bool done = false;
  experiment_status final_status;
  while (!done)
    self->receive(
        [&](event_atom, event_record& ev) {
          if (events::kind_named(ev.kind) != events::Kind::evaluated) return;
          const double now =
              std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
          if (first_evaluation < 0) first_evaluation = now;
          auto detail = json::parse(ev.detail_json);
          if (first_correct < 0 && detail.value &&
              (*detail.value)["verdict"].as_string() == "correct")
            first_correct = now;
        },
        [&](done_atom, experiment_status& s) {
          final_status = std::move(s);
          done = true;
        });
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // The evaluators' own bookkeeping: slot-seconds busy, seconds with work waiting or running.
  std::cout << "experiment " << record.id << " (" << config << "): " << final_status.status << "\n";
  std::cout << cli::pad("evaluator", 14) << cli::pad("evaluated", 10) << cli::pad("busy s", 9)
            << cli::pad("loaded s", 9) << cli::pad("busy/wall", 10) << "busy/loaded\n";
  for (const auto& [key, evaluator] : rt.stages.evaluators) {
    actor_status s;
    self->request(evaluator, std::chrono::seconds(5), status_atom::value)
        .receive([&](actor_status& x) { s = x; }, [](caf::error&) {});
    if (s.completed + s.failed == 0) continue;
    std::cout << cli::pad(key, 14) << cli::pad(std::to_string(s.completed + s.failed), 10)
              << cli::pad(cli::format("%.1f", s.busy_seconds), 9)
              << cli::pad(cli::format("%.1f", s.loaded_seconds), 9)
              << cli::pad(cli::format("%.1f%%", 100 * s.busy_seconds / wall), 10)
              << cli::format("%.1f%%",
                             s.loaded_seconds > 0 ? 100 * s.busy_seconds / s.loaded_seconds : 0)
              << "\n";
  }
  std::cout << "headers " << to_string(spec.headers) << ", wall " << cli::format("%.1f s", wall)
            << ", first evaluation after " << cli::format("%.1f s", first_evaluation)
            << ", first correct after " << cli::format("%.1f s", first_correct) << ", "
            << final_status.evaluated << " evaluated ("
            << cli::format("%.1f", 60.0 * final_status.evaluated / wall) << " per minute), "
            << final_status.correct << " correct, " << final_status.rejected << " rejected\n\n";
  if (auto view = host.query({"experiment", record.id})) std::cout << cli::experiment_table(*view);
  return final_status.status == "finished" ? 0 : 1;
}
