#include "tools/kforge/actor_host.hpp"

#include <caf/all.hpp>
#include <caf/io/middleman.hpp>
#include <csignal>
#include <cstdlib>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <iostream>

#include "actors/stage_handles.hpp"
#include "evaluation/hashing.hpp"
#include "evaluation/task_export.hpp"
#include "messages/errors.hpp"
#include "messages/registration.hpp"
#include "tools/kforge/tables.hpp"

namespace kforge::cli {

Result<std::unique_ptr<archive::Archive>> open_archive_to_read(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    return Result<std::unique_ptr<archive::Archive>>::failure(
        "no archive at " + path +
        " (kforge run --archive PATH writes one; the daemon's is in its state folder)");
  return archive::Archive::open(path);
}

std::string default_state_dir() {
  if (const char* s = std::getenv("KFORGE_STATE"); s && *s) return s;
  if (const char* x = std::getenv("XDG_STATE_HOME"); x && *x) return std::string(x) + "/kforge";
  const char* home = std::getenv("HOME");
  return std::string(home && *home ? home : "/tmp") + "/.local/state/kforge";
}

actor_host::actor_host(bool network) {
  register_message_types(config_);
  if (network) configure_network(config_);
  system_ = std::make_unique<caf::actor_system>(config_);
}

void configure_network(caf::actor_system_config& config) {
  config.load<caf::io::middleman>();
  // Only kforge's own processes of this protocol talk to each other.
  config.set("middleman.app-identifiers", std::vector<std::string>{kNetworkIdentifier});
  // A peer that stops answering (a host that went down without closing its connections) is
  // given up after the timeout, as a closed connection is at once.
  config.set("middleman.heartbeat-interval", caf::timespan{std::chrono::seconds(2)});
  config.set("middleman.connection-timeout", caf::timespan{std::chrono::seconds(20)});
}

actor_host::~actor_host() {
  // Every actor ends before the runtime they point into goes (a runner in a blocking call ends
  // when the call returns; the worker's own step timeouts bound that).
  if (runtime_) runtime_->stop(*system_);
  system_->await_all_actors_done();
  runtime_.reset();
  system_.reset();
}

Result<void> actor_host::start(runtime_options options) {
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(options.archive_path).parent_path(),
                                      ec);
  auto started = runtime::start(*system_, std::move(options));
  if (!started) return Result<void>::failure(started.error);
  runtime_ = std::move(*started);
  return {};
}

Result<void> actor_host::start_foreground(const std::string& archive_path, const std::string& cache,
                                          unsigned jobs, bool allow_unconfined) {
  runtime_options options;
  options.archive_path = archive_path;
  options.cache_dir = cache.empty() ? evaluation::default_cache_dir() : cache;
  options.compile_slots = jobs;
  options.allow_unconfined = allow_unconfined;
  return start(options);
}

Result<experiment_record> actor_host::record_experiment(const search::ExperimentSpec& spec) {
  experiment_record record{0, spec.name, spec.to_json().dump(), spec.seed, "starting"};
  caf::scoped_actor self{*system_};
  Result<experiment_record> out;
  self->request(runtime_->stages.archive, kArchiveTimeout, record_atom::value, record)
      .receive(
          [&](int64_t id) {
            record.id = id;
            out.value = record;
          },
          [&](caf::error& e) { out.error = describe(e); });
  return out;
}

Result<std::vector<experiment_record>> actor_host::experiments() {
  caf::scoped_actor self{*system_};
  Result<std::vector<experiment_record>> out;
  self->request(runtime_->stages.archive, kArchiveTimeout, list_atom::value, std::string())
      .receive([&](std::vector<experiment_record>& all) { out.value = std::move(all); },
               [&](caf::error& e) { out.error = "reading the archive: " + describe(e); });
  return out;
}

Result<json::Value> actor_host::query(const query_request& q) {
  caf::scoped_actor self{*system_};
  Result<json::Value> out;
  self->request(runtime_->stages.archive, kArchiveTimeout, query_atom::value, q)
      .receive([&](std::string& text) { out = json::parse(text); },
               [&](caf::error& e) { out.error = describe(e); });
  return out;
}

coordinator_actor actor_host::start_coordinator(const experiment_record& record,
                                                const search::ExperimentSpec& spec,
                                                experiment_listener listener, bool resume) {
  coordinator_config cfg;
  cfg.experiment = record;
  cfg.spec = spec;
  cfg.resume = resume;
  cfg.listener = std::move(listener);
  return system_->spawn(coordinator_impl, std::move(cfg), runtime_->stages);
}

Result<search::ExperimentSpec> load_experiment(const std::string& path, const runtime& rt,
                                               bool offline) {
  using Loaded = Result<search::ExperimentSpec>;
  auto text = evaluation::read_file(path);
  if (!text.ok) return Loaded::failure("cannot read the configuration " + path + ": " + text.error);
  auto parsed = search::parse_experiment_spec(text.text);
  if (!parsed.ok()) return Loaded::failure(path + ":\n" + parsed.error_text());
  parsed.spec.offline = parsed.spec.offline || offline;
  std::error_code ec;
  auto problems = resolve_spec(parsed.spec, rt, std::filesystem::current_path(ec).string());
  if (!problems.empty()) {
    std::string error = path + ":\n";
    for (const auto& p : problems) error += "  " + p + "\n";
    return Loaded::failure(error);
  }
  return {std::move(parsed.spec), {}};
}

namespace {

std::atomic<int> g_interrupts{0};
std::atomic<bool> g_terminated{false};

void on_interrupt(int) {
  ++g_interrupts;
}

// A service manager's stop: leave within its grace period, not after the evaluations in flight
// (a heavy one takes minutes); the archive has every finished stage, so the experiment resumes.
void on_terminate(int) {
  g_terminated = true;
}

}  // namespace

Result<unfinished_experiment> load_experiment(actor_host& host, int64_t id) {
  using Found = Result<unfinished_experiment>;
  auto all = host.experiments();
  if (!all) return Found::failure(all.error);
  auto e = std::find_if(all->begin(), all->end(),
                        [id](const experiment_record& r) { return r.id == id; });
  if (e == all->end())
    return Found::failure("no experiment " + std::to_string(id) + " in the archive");
  auto parsed = search::parse_experiment_spec(e->config_json);
  if (!parsed.ok())
    return Found::failure("experiment " + std::to_string(id) +
                          " has an unreadable configuration: " + parsed.error_text());
  return {unfinished_experiment{*e, std::move(parsed.spec)}, {}};
}

Result<unfinished_experiment> load_unfinished(actor_host& host, int64_t id) {
  auto found = load_experiment(host, id);
  if (!found) return found;
  const auto& status = found->record.status;
  if (status == "finished" || status == "stopped" || status == "failed")
    return Result<unfinished_experiment>::failure("experiment " + std::to_string(id) +
                                                  " has ended (" + status + ")");
  return found;
}

Result<unfinished_experiment> begin_foreground(actor_host& host, const std::string& archive_path,
                                               const std::string& cache, unsigned jobs,
                                               bool allow_unconfined, int64_t resume_id) {
  using Begun = Result<unfinished_experiment>;
  if (auto started = host.start_foreground(archive_path, cache, jobs, allow_unconfined); !started)
    return Begun::failure(started.error);
  if (resume_id == 0) return {unfinished_experiment{}, {}};
  auto unfinished = load_unfinished(host, resume_id);
  if (!unfinished) return Begun::failure(unfinished.error + " (" + archive_path + ")");
  return unfinished;
}

experiment_status follow_experiment(actor_host& host, const experiment_record& record,
                                    const search::ExperimentSpec& spec, bool resume,
                                    const std::string& command,
                                    const std::function<void(const event_record&)>& on_event,
                                    const std::function<void()>& on_quiet) {
  caf::scoped_actor self{host.system()};
  auto coordinator =
      host.start_coordinator(record, spec, caf::actor_cast<experiment_listener>(self), resume);
  std::signal(SIGINT, on_interrupt);
  std::signal(SIGTERM, on_terminate);
  bool done = false, stop_sent = false;
  experiment_status final_status;
  // Signals are looked at after every message as well as in quiet spells: a busy experiment
  // sends events more often than every 250 ms.
  auto heed_signals = [&] {
    if (g_interrupts >= 2 || g_terminated) {
      std::cerr << "\n"
                << command << (g_terminated ? ": terminated" : "") << ": leaving now; experiment "
                << record.id << " stays resumable (" << command << " --resume " << record.id
                << ")\n";
      // Exits as kill -9 would (the archive is written before anything is reported, so nothing
      // is lost); the workers and compilers go with it.
      std::_Exit(g_terminated ? 143 : 130);
    }
    if (g_interrupts == 1 && !stop_sent) {
      stop_sent = true;
      std::cerr << "\n"
                << command
                << ": stopping (candidates in the pipeline finish; Ctrl-C again to leave at "
                   "once)\n";
      self->request(coordinator, std::chrono::seconds(10), stop_atom::value)
          .receive([] {}, [](caf::error&) {});
    }
  };
  while (!done) {
    self->receive([&](event_atom, event_record& ev) { on_event(ev); },
                  [&](done_atom, experiment_status& s) {
                    final_status = std::move(s);
                    done = true;
                  },
                  caf::after(std::chrono::milliseconds(250)) >>
                      [&] {
                        if (on_quiet) on_quiet();
                      });
    if (!done) heed_signals();
  }
  return final_status;
}

std::vector<std::string> actors_at_work(actor_host& host) {
  std::vector<std::string> out;
  caf::scoped_actor self{host.system()};
  for (const auto& r : host.rt().reporters)
    self->request(r, std::chrono::milliseconds(500), status_atom::value)
        .receive(
            [&](actor_status& s) {
              if (!s.current.empty()) out.push_back(s.name + ": " + s.current);
            },
            [](caf::error&) {});
  return out;
}

std::string elapsed_stamp(std::chrono::steady_clock::time_point start) {
  return "[" +
         format("%6.1fs",
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()) +
         "] ";
}

}  // namespace kforge::cli
