// What `kforge run` and `kforge daemon` share: the actor system with kforge's types registered,
// the runtime's stage actors, where state lives by default, and reading a configuration file.
#pragma once

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "actors/coordinator.hpp"
#include "actors/runtime.hpp"
#include "common/json.hpp"
#include "common/result.hpp"

namespace kforge::cli {

/// $KFORGE_STATE, else $XDG_STATE_HOME/kforge, else ~/.local/state/kforge.
std::string default_state_dir();

class actor_host {
 public:
  actor_host();
  ~actor_host();
  caf::actor_system& system() { return *system_; }
  /// Starts the stage actors; false with `error` when it cannot (unopenable archive, ...).
  bool start(runtime_options options, std::string& error);
  /// start() for a foreground command: the archive, the cache ("" for the default), compiler
  /// slots (0: one per core) and whether candidates may run unconfined.
  bool start_foreground(const std::string& archive_path, const std::string& cache, unsigned jobs,
                        bool allow_unconfined, std::string& error);
  runtime& rt() { return *runtime_; }
  /// The archive's experiments, asked of the archive actor (the database's one owner).
  Result<std::vector<experiment_record>> experiments();
  /// A read of the archive (query_request's kinds), asked of the archive actor.
  Result<json::Value> query(const query_request& q);
  /// Records a new experiment (status "starting") in the archive; false with `error` if not.
  bool record_experiment(const search::ExperimentSpec& spec, experiment_record& record,
                         std::string& error);
  /// Spawns the experiment's coordinator; `listener` hears its events and its end.
  coordinator_actor start_coordinator(const experiment_record& record,
                                      const search::ExperimentSpec& spec,
                                      experiment_listener listener, bool resume);

 private:
  caf::actor_system_config config_;
  std::unique_ptr<caf::actor_system> system_;
  std::unique_ptr<runtime> runtime_;
};

/// Reads and parses an experiment configuration and resolves it against the runtime (task
/// folders relative to the current directory or kforge's source tree). `error` lists every
/// problem.
bool load_experiment(const std::string& path, const runtime& rt, search::ExperimentSpec& spec,
                     std::string& error, bool offline = false);

/// An unfinished experiment of the host's archive with its configuration, for `--resume`;
/// false with `error` (one line) when there is none, it has ended or its configuration is
/// unreadable.
bool load_unfinished(actor_host& host, int64_t id, experiment_record& record,
                     search::ExperimentSpec& spec, std::string& error);

/// Runs a recorded experiment in the foreground until it ends and returns how it ended:
/// `on_event` hears each event once it is archived. Ctrl-C once stops proposing and lets the
/// pipeline finish; twice leaves at once (exit 130), the experiment staying resumable. `command`
/// names the caller in those messages.
experiment_status follow_experiment(actor_host& host, const experiment_record& record,
                                    const search::ExperimentSpec& spec, bool resume,
                                    const std::string& command,
                                    const std::function<void(const event_record&)>& on_event);

/// "[  12.3s] ": the time since `start`, for lines of a foreground run.
std::string elapsed_stamp(std::chrono::steady_clock::time_point start);

}  // namespace kforge::cli
