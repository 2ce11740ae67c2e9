#include "actors/experiment_setup.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <memory>

#include "actors/evaluator.hpp"
#include "actors/stage_handles.hpp"
#include "common/json.hpp"
#include "messages/errors.hpp"

namespace kforge {
namespace {

using namespace std::chrono_literals;

std::string task_name(const std::string& dir) {
  auto p = std::filesystem::path(dir);
  if (p.filename().empty()) p = p.parent_path();
  return p.filename().string();
}

bool on_gpu(const search::ExperimentSpec& spec) {
  return std::find(spec.backends.begin(), spec.backends.end(), "cuda") != spec.backends.end();
}

using self_ptr = experiment_setup_actor::stateful_pointer<experiment_setup_state>;
using promise_ptr = std::shared_ptr<caf::typed_response_promise<experiment_layout>>;

/// Answers with the layout and ends the setup.
void answer(self_ptr self, promise_ptr promise, experiment_layout layout) {
  if (!promise->pending()) return;
  promise->deliver(std::move(layout));
  self->quit();
}

/// Reads experiment `id` from the archive into `into`, then carries on (or answers the error).
void load(self_ptr self, archive_actor archive, int64_t id, promise_ptr promise,
          std::shared_ptr<experiment_layout> layout, experiment_snapshot experiment_layout::*into,
          std::string what, std::function<void()> then) {
  self->request(archive, kArchiveTimeout, load_atom::value, id)
      .then(
          [layout, into, then](experiment_snapshot& s) {
            (*layout).*into = std::move(s);
            then();
          },
          [self, promise, layout, what](caf::error& e) {
            layout->error = what + ": " + describe(e);
            answer(self, promise, std::move(*layout));
          });
}

/// The archive's part: the replayed experiment's decisions, then the resumed one's candidates.
void read_archive(self_ptr self, const setup_config& cfg, archive_actor archive,
                  experiment_layout layout, promise_ptr promise) {
  auto shared = std::make_shared<experiment_layout>(std::move(layout));
  auto resume = [self, cfg, archive, shared, promise] {
    if (!cfg.resume) return answer(self, promise, std::move(*shared));
    load(self, archive, cfg.experiment_id, promise, shared, &experiment_layout::resumed,
         "loading the experiment",
         [self, shared, promise] { answer(self, promise, std::move(*shared)); });
  };
  if (!cfg.spec.replay_of) return resume();
  load(self, archive, cfg.spec.replay_of, promise, shared, &experiment_layout::replayed,
       "loading experiment " + std::to_string(cfg.spec.replay_of) + " to replay", resume);
}

/// Asks each cuda evaluator the layout uses for its architecture, then `then`.
void ask_devices(self_ptr self, experiment_layout layout,
                 const std::map<std::string, evaluator_actor>& evaluators, promise_ptr promise,
                 std::function<void(experiment_layout)> then) {
  std::vector<std::string> keys;
  for (const auto& t : layout.targets) {
    if (!t.failed.empty()) continue;
    auto key = evaluator_key(t.tgt.backend, t.tgt.device);
    if (!evaluators.count(key)) {
      std::string have;
      for (const auto& [k, e] : evaluators) have += (have.empty() ? "" : ", ") + k;
      layout.error = "no evaluator for " + key + " (this runtime has " +
                     (have.empty() ? std::string("none") : have) + ")";
      return answer(self, promise, std::move(layout));
    }
    if (t.tgt.backend == "cuda" && std::find(keys.begin(), keys.end(), key) == keys.end())
      keys.push_back(key);
  }
  if (keys.empty()) return then(std::move(layout));
  auto shared = std::make_shared<experiment_layout>(std::move(layout));
  auto pending = std::make_shared<size_t>(keys.size());
  auto failed = [self, shared, promise, pending](const std::string& error) {
    *pending = 0;
    shared->error = error;
    answer(self, promise, std::move(*shared));
  };
  for (const auto& key : keys) {
    self->request(evaluators.at(key), 5min, device_atom::value)
        .then(
            [shared, pending, failed, then, key](device_info& d) {
              if (*pending == 0) return;
              if (!d.ok) return failed("the " + key + " worker did not start: " + d.error);
              shared->cuda_arch[key] = d.cuda_arch;
              if (--*pending == 0) then(std::move(*shared));
            },
            [pending, failed, key](caf::error& e) {
              if (*pending > 0) failed(key + ": " + describe(e));
            });
  }
}

}  // namespace

std::string config_set_for(const search::ExperimentSpec& spec, const std::string& backend) {
  if (spec.config_set != "auto") return spec.config_set;
  return backend == "cuda" ? "multi" : "single";
}

experiment_layout lay_out_targets(const search::ExperimentSpec& spec,
                                  const std::vector<export_result>& exports, int gpus) {
  experiment_layout out;
  int next_gpu = 0;
  for (size_t k = 0; k < spec.tasks.size() && k < exports.size(); ++k) {
    const auto& e = exports[k];
    for (const auto& direction : spec.directions) {
      std::string why;
      if (!e.ok) {
        why = "the task cannot be exported: " + e.error;
      } else if (auto f = e.failed_directions.find(direction); f != e.failed_directions.end()) {
        why = "the " + direction + " direction cannot be exported: " + f->second;
      } else if (std::find(e.directions.begin(), e.directions.end(), direction) ==
                 e.directions.end()) {
        out.notes.push_back(make_event(events::DirectionMissing{spec.tasks[k], direction}));
        continue;
      }
      for (const auto& backend : spec.backends) {
        target_layout l;
        l.tgt.task = task_name(spec.tasks[k]);
        l.tgt.task_dir = spec.tasks[k];
        l.tgt.direction = direction;
        l.tgt.backend = backend;
        if (backend == "cuda" && gpus > 0 && why.empty()) l.tgt.device = next_gpu++ % gpus;
        l.tgt.config_set = config_set_for(spec, backend);
        if (why.empty()) l.export_dir = e.export_dir;
        if (spec.compiled_baseline == "off") {
        } else if (backend == "cpu" && on_gpu(spec)) {
          l.compiled_unavailable = "the compiled baseline is built for the GPU targets only";
        } else if (why.empty()) {
          l.compiled_pending = spec.compiled_baseline;  // built by the pipeline, when first needed
        }
        l.failed = why;
        out.targets.push_back(std::move(l));
      }
    }
  }
  if (out.targets.empty()) {
    out.error = "no task has any of the configured directions";
    return out;
  }
  std::string reasons;
  for (const auto& t : out.targets)
    if (!t.failed.empty()) reasons += (reasons.empty() ? "" : "; ") + t.tgt.key() + ": " + t.failed;
  if (std::all_of(out.targets.begin(), out.targets.end(),
                  [](const auto& t) { return !t.failed.empty(); }))
    out.error = "no target can start: " + reasons;
  return out;
}

std::map<int64_t, search::Decision> recorded_decisions(const experiment_snapshot& snapshot) {
  std::map<int64_t, int64_t> sequence_of_id;
  for (const auto& cs : snapshot.candidates)
    sequence_of_id[cs.candidate.id] = cs.candidate.sequence;
  std::map<int64_t, search::Decision> out;
  for (const auto& cs : snapshot.candidates) {
    const auto& c = cs.candidate;
    auto parent = sequence_of_id.find(c.parent_id);
    out[c.sequence] =
        search::recorded_decision(c.decision, target_key(c), c.proposer,
                                  parent == sequence_of_id.end() ? int64_t{-1} : parent->second);
  }
  return out;
}

resumed_experiment restore(search::Planner& planner, const experiment_snapshot& snapshot,
                           const std::vector<target_layout>& targets, bool llm_verifiers) {
  resumed_experiment out;
  for (const auto& u : snapshot.models) {
    out.counts.usage[u.name] = u;
    out.counts.cost_usd += u.cost_usd;
  }
  std::map<std::string, size_t> by_key;
  for (size_t t = 0; t < targets.size(); ++t) by_key[targets[t].tgt.key()] = t;
  const auto decisions = recorded_decisions(snapshot);
  for (const auto& cs : snapshot.candidates) {
    const auto& c = cs.candidate;
    auto it = by_key.find(target_key(c));
    if (it == by_key.end()) continue;  // a target the configuration no longer has
    const size_t t = it->second;
    const int64_t n = c.sequence;
    out.candidates[n] = {c, cs.times, cs.profile_brief};
    const auto& d = decisions.at(n);
    auto m = make_member(c, t, d);
    planner.population().add(m);
    if (cs.finished) planner.population().finish(n, cs.correct, cs.speedup, cs.speed_of_light);
    if (d.fix_of >= 0) planner.fixed(d.fix_of);
    ++out.counts.proposed;
    if (cs.failed_stage != Stage::none) planner.failed(n, {cs.failed_stage, cs.failure});
    pipeline_job job{c, static_cast<int32_t>(t), pipeline_entry::verify};
    if (cs.finished) {
      out.counts.evaluated += cs.verified && cs.compiled;
      out.counts.rejected += !(cs.verified && cs.compiled);
      out.counts.correct += cs.correct;
      // The profile was lost with the process: it is made again from the archived results.
      job.entry = pipeline_entry::profile;
      if (cs.correct && !cs.profiled) out.jobs.push_back(job);
      continue;
    }
    ++out.carried_on;
    if (!cs.verified)
      job.entry = pipeline_entry::verify;
    else if (!cs.compiled && llm_verifiers)
      // The LLM verdicts may have been lost with the process; asking again hits the cache.
      job.entry = pipeline_entry::llm_verify;
    else
      job.entry = cs.compiled ? pipeline_entry::recompile : pipeline_entry::compile;
    out.jobs.push_back(job);
  }
  for (const auto& r : snapshot.strategies)
    if (auto it = by_key.find(r.target_key); it != by_key.end())
      planner.generated(it->second, r.round, r.serves, r.source, r.strategies);
  return out;
}

experiment_setup_actor::behavior_type experiment_setup_impl(
    experiment_setup_actor::stateful_pointer<experiment_setup_state> self, setup_config cfg,
    archive_actor archive, compiler_actor compiler,
    std::map<std::string, evaluator_actor> evaluators) {
  return {
      [self, cfg, archive, compiler, evaluators](setup_atom) -> caf::result<experiment_layout> {
        const auto& spec = cfg.spec;
        if (spec.tasks.empty()) {
          experiment_layout none;
          none.error = "the configuration names no task";
          self->quit();
          return none;
        }
        auto promise = std::make_shared<caf::typed_response_promise<experiment_layout>>(
            self->make_response_promise<experiment_layout>());
        auto exports = std::make_shared<std::vector<export_result>>(spec.tasks.size());
        auto pending = std::make_shared<size_t>(spec.tasks.size());
        for (size_t i = 0; i < spec.tasks.size(); ++i) {
          // The export only, seconds. The compiled baseline (minutes with max-autotune) is not
          // built here: the pipeline builds each task's before its first evaluation, while the
          // targets whose baselines are ready are evaluated (lay_out_targets marks them).
          export_request req;
          req.task_dir = spec.tasks[i];
          req.compiled_baseline = "off";
          self->request(compiler, 120min, export_atom::value, req)
              .then(
                  [self, cfg, archive, evaluators, exports, pending, promise, i](export_result& r) {
                    (*exports)[i] = std::move(r);
                    if (--*pending > 0 || !promise->pending()) return;
                    int gpus = 0;
                    while (evaluators.count(evaluator_key("cuda", gpus))) ++gpus;
                    auto layout = lay_out_targets(cfg.spec, *exports, gpus);
                    if (!layout.error.empty()) return answer(self, promise, std::move(layout));
                    ask_devices(self, std::move(layout), evaluators, promise,
                                [self, cfg, archive, promise](experiment_layout l) {
                                  read_archive(self, cfg, archive, std::move(l), promise);
                                });
                  },
                  [self, spec, promise, i](caf::error& e) {
                    experiment_layout failed;
                    failed.error = "exporting " + spec.tasks[i] + ": " + describe(e);
                    answer(self, promise, std::move(failed));
                  });
        }
        return caf::delegated<experiment_layout>();
      },
  };
}

}  // namespace kforge
