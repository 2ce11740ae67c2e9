#include "tools/kforge/actor_host.hpp"

#include <caf/all.hpp>
#include <cstdlib>

#include <filesystem>

#include "gpu/hashing.hpp"
#include "messages/errors.hpp"
#include "messages/registration.hpp"

namespace kforge::cli {

std::string default_state_dir() {
  if (const char* s = std::getenv("KFORGE_STATE"); s && *s) return s;
  if (const char* x = std::getenv("XDG_STATE_HOME"); x && *x) return std::string(x) + "/kforge";
  const char* home = std::getenv("HOME");
  return std::string(home && *home ? home : "/tmp") + "/.local/state/kforge";
}

actor_host::actor_host() {
  register_message_types(config_);
  system_ = std::make_unique<caf::actor_system>(config_);
}

actor_host::~actor_host() {
  // Every actor ends before the runtime they point into goes (a runner in a blocking call ends
  // when the call returns; the worker's own step timeouts bound that).
  if (runtime_) runtime_->stop(*system_);
  system_->await_all_actors_done();
  runtime_.reset();
  system_.reset();
}

bool actor_host::start(runtime_options options, std::string& error) {
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(options.archive_path).parent_path(),
                                      ec);
  runtime_ = runtime::start(*system_, std::move(options), error);
  return runtime_ != nullptr;
}

bool actor_host::record_experiment(const search::ExperimentSpec& spec, experiment_record& record,
                                   std::string& error) {
  record = {0, spec.name, spec.to_json().dump(), spec.seed, "starting"};
  caf::scoped_actor self{*system_};
  self->request(runtime_->stages.archive, std::chrono::minutes(1), record_atom::value, record)
      .receive([&](int64_t id) { record.id = id; }, [&](caf::error& e) { error = describe(e); });
  return record.id != 0;
}

coordinator_actor actor_host::start_coordinator(const experiment_record& record,
                                                const search::ExperimentSpec& spec,
                                                caf::actor listener, bool resume) {
  coordinator_config cfg;
  cfg.experiment = record;
  cfg.spec = spec;
  cfg.resume = resume;
  cfg.archive_path = runtime_->archive_path;
  cfg.listener = std::move(listener);
  return system_->spawn(coordinator_impl, std::move(cfg), runtime_->stages);
}

bool load_experiment(const std::string& path, const runtime& rt, search::ExperimentSpec& spec,
                     std::string& error, bool offline) {
  auto text = gpu::read_file(path);
  if (!text.ok) {
    error = "cannot read the configuration " + path + ": " + text.error;
    return false;
  }
  auto parsed = search::parse_experiment_spec(text.text);
  if (!parsed.ok()) {
    error = path + ":\n" + parsed.error_text();
    return false;
  }
  parsed.spec.offline = parsed.spec.offline || offline;
  std::error_code ec;
  auto problems = resolve_spec(parsed.spec, rt, std::filesystem::current_path(ec).string());
  if (!problems.empty()) {
    error = path + ":\n";
    for (const auto& p : problems) error += "  " + p + "\n";
    return false;
  }
  spec = std::move(parsed.spec);
  return true;
}

}  // namespace kforge::cli
