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
#include "archive/archive.hpp"
#include "common/json.hpp"
#include "common/result.hpp"

namespace kforge::cli {

/// $KFORGE_STATE, else $XDG_STATE_HOME/kforge, else ~/.local/state/kforge.
std::string default_state_dir();
/// An archive the user asked to read: refused when no file is there, rather than creating an
/// empty one at a mistyped path.
Result<std::unique_ptr<archive::Archive>> open_archive_to_read(const std::string& path);

/// What kforge's processes say when they connect through CAF's middleman: a daemon and a node of
/// different protocol versions refuse each other.
inline constexpr const char* kNetworkIdentifier = "kforge-nodes-1";

/// Loads CAF's middleman into `config` with kforge's identifier and heartbeats.
void configure_network(caf::actor_system_config& config);

class actor_host {
 public:
  /// `network`: CAF's middleman is loaded (the daemon with --node-port, `kforge node`).
  explicit actor_host(bool network = false);
  ~actor_host();
  caf::actor_system& system() { return *system_; }
  /// Starts the stage actors, or says why it cannot (an unopenable archive, ...).
  Result<void> start(runtime_options options);
  /// start() for a foreground command: the archive, the cache ("" for the default), compiler
  /// slots (0: one per core) and whether candidates may run unconfined.
  Result<void> start_foreground(const std::string& archive_path, const std::string& cache,
                                unsigned jobs, bool allow_unconfined);
  runtime& rt() { return *runtime_; }
  /// The archive's experiments, asked of the archive actor (the database's one owner).
  Result<std::vector<experiment_record>> experiments();
  /// A read of the archive (query_request's kinds), asked of the archive actor.
  Result<json::Value> query(const query_request& q);
  /// Records a new experiment (status "starting") in the archive: its record, with its id.
  Result<experiment_record> record_experiment(const search::ExperimentSpec& spec);
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
/// folders relative to the current directory or kforge's source tree). The error lists every
/// problem, a line each.
Result<search::ExperimentSpec> load_experiment(const std::string& path, const runtime& rt,
                                               bool offline = false);

/// An experiment of the archive that has not ended, with its configuration.
struct unfinished_experiment {
  experiment_record record;
  search::ExperimentSpec spec;
};

/// Experiment `id` of the host's archive with its configuration, whatever its status; the error
/// (one line) says when there is none or its configuration is unreadable.
Result<unfinished_experiment> load_experiment(actor_host& host, int64_t id);

/// The unfinished experiment `id` of the host's archive, for `--resume`; the error (one line)
/// says when there is none, it has ended or its configuration is unreadable.
Result<unfinished_experiment> load_unfinished(actor_host& host, int64_t id);

/// What `kforge run` and `kforge suite` begin with: the host started for a foreground command
/// (see actor_host::start_foreground) and, when `resume_id` is not 0, the experiment to resume
/// (an empty record otherwise). The error is one line, naming the archive where it matters.
Result<unfinished_experiment> begin_foreground(actor_host& host, const std::string& archive_path,
                                               const std::string& cache, unsigned jobs,
                                               bool allow_unconfined, int64_t resume_id);

/// Runs a recorded experiment in the foreground until it ends and returns how it ended:
/// `on_event` hears each event once it is archived. Ctrl-C once stops proposing and lets the
/// pipeline finish; twice leaves at once (exit 130), the experiment staying resumable. `command`
/// names the caller in those messages. `on_quiet` runs whenever a quarter second passed without
/// an event (progress lines).
experiment_status follow_experiment(actor_host& host, const experiment_record& record,
                                    const search::ExperimentSpec& spec, bool resume,
                                    const std::string& command,
                                    const std::function<void(const event_record&)>& on_event,
                                    const std::function<void()>& on_quiet = {});

/// What the runtime's actors are doing now, one "name: work" each (those with work in flight).
std::vector<std::string> actors_at_work(actor_host& host);

/// "[  12.3s] ": the time since `start`, for lines of a foreground run.
std::string elapsed_stamp(std::chrono::steady_clock::time_point start);

}  // namespace kforge::cli
