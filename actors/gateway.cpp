#include "actors/gateway.hpp"

#include <filesystem>
#include <memory>

#include "messages/errors.hpp"

namespace kforge {
namespace {

using self_ptr = gateway_actor::stateful_pointer<gateway_state>;
using namespace std::chrono_literals;

void start_experiment(self_ptr self, experiment_record record, search::ExperimentSpec spec,
                      bool resume, bool paused) {
  coordinator_config cfg;
  cfg.experiment = std::move(record);
  cfg.spec = std::move(spec);
  cfg.resume = resume;
  cfg.start_paused = paused;
  cfg.listener = caf::actor_cast<experiment_listener>(self);
  const int64_t id = cfg.experiment.id;
  auto coordinator = self->spawn(coordinator_impl, std::move(cfg), self->state.rt->stages);
  // Linked: when the gateway shuts down, its coordinators end with it (the archive has their
  // work; the next daemon resumes them). The gateway traps their exits (see its exit handler).
  self->link_to(coordinator);
  self->state.running[id] = coordinator;
  self->state.coordinators[coordinator.address()] = id;
  self->state.concluded.erase(id);
}

/// Carries on with every experiment the archive has as unfinished.
void resume_unfinished(self_ptr self) {
  self->request(self->state.rt->stages.archive, 1min, list_atom::value, std::string())
      .then(
          [self](std::vector<experiment_record>& all) {
            for (auto& e : all) {
              if (e.status != "running" && e.status != "paused" && e.status != "starting" &&
                  e.status != "stopping")
                continue;
              auto parsed = search::parse_experiment_spec(e.config_json);
              if (!parsed.ok()) {
                self->state.stats.note_error("experiment " + std::to_string(e.id) +
                                             " cannot resume: " + parsed.error_text());
                continue;
              }
              const bool paused = e.status == "paused";
              const bool stopping = e.status == "stopping";
              const int64_t id = e.id;
              start_experiment(self, std::move(e), std::move(parsed.spec), true, paused);
              if (stopping) caf::anon_send(self->state.running[id], stop_atom::value);
            }
          },
          [self](caf::error& err) { self->state.stats.note_error(describe(err)); });
}

/// Forwards a command to the experiment's coordinator, or says why it cannot.
caf::result<void> command(self_ptr self, int64_t id, auto atom) {
  auto it = self->state.running.find(id);
  if (it == self->state.running.end()) {
    auto done = self->state.concluded.find(id);
    if (done != self->state.concluded.end())
      return make_error(
          error_code::invalid_request,
          "experiment " + std::to_string(id) + " has ended (" + done->second.status + ")");
    return make_error(error_code::unknown_experiment,
                      "no running experiment " + std::to_string(id) + " in this daemon");
  }
  return self->delegate(it->second, atom);
}

}  // namespace

gateway_actor::behavior_type gateway_impl(gateway_actor::stateful_pointer<gateway_state> self,
                                          const runtime* rt, bool resume) {
  self->state.rt = rt;
  self->set_down_handler([self](caf::down_msg& down) {
    auto& subs = self->state.subscribers;
    subs.erase(std::remove_if(subs.begin(), subs.end(),
                              [&](const caf::actor& a) { return a.address() == down.source; }),
               subs.end());
  });
  // Exits of linked coordinators arrive here: a normal one is an ended experiment (its done
  // message says how), an abnormal one is reported. Any other exit request ends the gateway,
  // and with it every coordinator.
  self->set_exit_handler([self](caf::exit_msg& m) {
    auto& st = self->state;
    auto it = st.coordinators.find(m.source);
    if (it == st.coordinators.end()) return self->quit(m.reason);
    const int64_t id = it->second;
    st.coordinators.erase(it);
    if (m.reason == caf::exit_reason::normal) return;  // its done message said how it ended
    st.stats.note_error("the coordinator of experiment " + std::to_string(id) +
                        " ended: " + caf::to_string(m.reason));
    experiment_status s;
    s.id = id;
    s.status = "failed";
    s.last_error = caf::to_string(m.reason);
    st.concluded[id] = s;
    st.running.erase(id);
  });
  if (resume) resume_unfinished(self);
  return {
      [self](status_atom) { return self->state.stats.status(); },
      [self](submit_atom, std::string& config_text) -> caf::result<int64_t> {
        auto parsed = search::parse_experiment_spec(config_text);
        if (!parsed.ok()) return make_error(error_code::bad_config, parsed.error_text());
        std::error_code ec;
        auto problems =
            resolve_spec(parsed.spec, *self->state.rt, std::filesystem::current_path(ec).string());
        if (!problems.empty()) {
          std::string text;
          for (const auto& p : problems) text += p + "\n";
          return make_error(error_code::bad_config, text);
        }
        experiment_record record;
        record.name = parsed.spec.name;
        record.config_json = parsed.spec.to_json().dump();
        record.seed = parsed.spec.seed;
        record.status = "starting";
        auto promise = self->make_response_promise<int64_t>();
        auto spec = std::make_shared<search::ExperimentSpec>(std::move(parsed.spec));
        self->request(self->state.rt->stages.archive, 1min, record_atom::value, record)
            .then(
                [self, promise, record, spec](int64_t id) mutable {
                  record.id = id;
                  start_experiment(self, record, *spec, false, false);
                  promise.deliver(id);
                },
                [promise](caf::error& e) mutable { promise.deliver(std::move(e)); });
        return promise;
      },
      [self](pause_atom, int64_t id) { return command(self, id, pause_atom::value); },
      [self](resume_atom, int64_t id) { return command(self, id, resume_atom::value); },
      [self](stop_atom, int64_t id) { return command(self, id, stop_atom::value); },
      [self](state_atom) -> caf::result<system_state> {
        // Ask everyone at once; whoever does not answer within a second is shown as such.
        auto promise = self->make_response_promise<system_state>();
        auto out = std::make_shared<system_state>();
        auto& st = self->state;
        out->actors.resize(st.rt->reporters.size() + 1);
        out->actors[0] = st.stats.status();
        std::vector<int64_t> ids;
        for (const auto& [id, c] : st.running) ids.push_back(id);
        out->experiments.resize(ids.size());
        const bool nodes = static_cast<bool>(st.rt->registry);
        auto pending = std::make_shared<size_t>(st.rt->reporters.size() + ids.size() + nodes);
        auto node_rows = std::make_shared<std::vector<actor_status>>();
        auto finish = [out, pending, promise, self, node_rows]() mutable {
          if (--*pending > 0) return;
          out->actors.insert(out->actors.end(), node_rows->begin(), node_rows->end());
          for (const auto& [id, s] : self->state.concluded) out->experiments.push_back(s);
          std::sort(out->experiments.begin(), out->experiments.end(),
                    [](const auto& a, const auto& b) { return a.id < b.id; });
          promise.deliver(std::move(*out));
        };
        if (*pending == 0) {
          ++*pending;
          finish();
          return promise;
        }
        for (size_t i = 0; i < st.rt->reporters.size(); ++i)
          self->request(st.rt->reporters[i], 1s, status_atom::value)
              .then(
                  [out, i, finish](actor_status& s) mutable {
                    out->actors[i + 1] = std::move(s);
                    finish();
                  },
                  [out, i, finish](caf::error& e) mutable {
                    out->actors[i + 1].name = "(no answer)";
                    out->actors[i + 1].last_error = caf::to_string(e);
                    finish();
                  });
        if (nodes)  // the registry, then every node evaluator that joined
          self->request(st.rt->registry, 2s, nodes_atom::value)
              .then(
                  [node_rows, finish](std::vector<actor_status>& rows) mutable {
                    *node_rows = std::move(rows);
                    finish();
                  },
                  [node_rows, finish](caf::error& e) mutable {
                    node_rows->emplace_back();
                    node_rows->back().name = "node registry (no answer)";
                    node_rows->back().last_error = caf::to_string(e);
                    finish();
                  });
        for (size_t i = 0; i < ids.size(); ++i)
          self->request(st.running[ids[i]], 1s, progress_atom::value)
              .then(
                  [out, i, finish](experiment_status& s) mutable {
                    out->experiments[i] = std::move(s);
                    finish();
                  },
                  [out, i, ids, finish](caf::error& e) mutable {
                    out->experiments[i].id = ids[i];
                    out->experiments[i].status = "(no answer)";
                    out->experiments[i].last_error = caf::to_string(e);
                    finish();
                  });
        return promise;
      },
      [self](query_atom, query_request& q) {
        return self->delegate(self->state.rt->stages.archive, query_atom::value, std::move(q));
      },
      [self](subscribe_atom, caf::actor& subscriber) {
        self->monitor(subscriber);
        self->state.subscribers.push_back(subscriber);
      },
      [self](event_atom, event_record& ev) {
        for (auto& s : self->state.subscribers) caf::anon_send(s, event_atom::value, ev);
      },
      [self](done_atom, experiment_status& s) {
        self->state.running.erase(s.id);
        self->state.concluded[s.id] = s;
      },
  };
}

}  // namespace kforge
