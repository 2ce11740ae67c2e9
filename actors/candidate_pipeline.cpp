#include "actors/candidate_pipeline.hpp"

#include <chrono>
#include <functional>
#include <optional>

#include "actors/archive_actor.hpp"
#include "actors/evaluator.hpp"
#include "common/json.hpp"
#include "common/statistics.hpp"
#include "messages/errors.hpp"
#include "search/random_stream.hpp"

namespace kforge {
namespace {

using self_ptr = candidate_pipeline_actor::stateful_pointer<candidate_pipeline_state>;
using namespace std::chrono_literals;

constexpr auto kVerifyTimeout = 15min;

candidate_in_flight& flight(self_ptr self, int64_t n) {
  return self->state.flights.at(n);
}
const Candidate& candidate(self_ptr self, int64_t n) {
  return flight(self, n).job.candidate;
}
const target_layout& layout(self_ptr self, int64_t n) {
  return self->state.cfg.targets.at(static_cast<size_t>(flight(self, n).job.target));
}

/// What an event about candidate n says first: its sequence, id and target.
events::Subject subject(self_ptr self, int64_t n) {
  const auto& c = candidate(self, n);
  return {n, c.id, target_key(c)};
}

/// The coordinator archives and reports the event.
void tell(self_ptr self, const events::Event& event) {
  self->send(self->state.listener, event_atom::value, make_event(event));
}

void done_with(self_ptr self, int64_t n) {
  self->state.flights.erase(n);
  self->state.stats.finished();
}

/// Answers the coordinator with candidate n's final verdict; a correct one stays to be profiled.
void answer(self_ptr self, int64_t n, candidate_outcome o) {
  o.sequence = n;
  flight(self, n).promise.deliver(o);
  if (!o.profiling) done_with(self, n);
}

/// The experiment cannot go on (an archive write failed): the coordinator hears it as an error.
void abort(self_ptr self, int64_t n, const std::string& what) {
  self->state.stats.note_error(what);
  flight(self, n).promise.deliver(make_error(error_code::archive_failure, what));
  done_with(self, n);
}

/// An error handler for archive writes of candidate n.
auto archive_failed(self_ptr self, int64_t n) {
  return [self, n](caf::error& e) { abort(self, n, "archive: " + describe(e)); };
}

/// Runs `work` now, or when the pipeline is resumed if it is paused.
void when_running(self_ptr self, std::function<void()> work) {
  auto& st = self->state;
  if (!st.paused) return work();
  st.held.push_back(std::move(work));
  st.stats.set_queued(static_cast<int64_t>(st.held.size()));
}

/// Runs `then` (when running) once target t's torch.compile baseline is built: at once when it is,
/// or when none is asked for; else once the compiler pool has built it, which it does once per
/// task for all the task's targets, while the other targets' candidates are evaluated.
void with_baseline(self_ptr self, size_t t, std::function<void()> then) {
  auto& st = self->state;
  const auto& l = st.cfg.targets.at(t);
  if (l.compiled_pending.empty()) return when_running(self, std::move(then));
  auto& waiting = st.awaiting_baseline[l.tgt.task_dir];
  waiting.push_back(std::move(then));
  if (waiting.size() > 1) return;  // asked for by an earlier candidate
  const std::string task_dir = l.tgt.task_dir;
  export_request req{task_dir, l.compiled_pending,
                     parse_backend(l.tgt.backend).value_or(Backend::cuda), l.tgt.config_set};
  auto built = [self, task_dir](const std::string& dir, const std::string& unavailable,
                                const std::string& note) {
    auto& st = self->state;
    for (auto& target : st.cfg.targets)
      if (target.tgt.task_dir == task_dir && !target.compiled_pending.empty()) {
        target.compiled_pending.clear();
        target.compiled_dir = dir;
        target.compiled_unavailable = unavailable;
      }
    if (!note.empty()) tell(self, events::CompiledBaseline{task_dir, note});
    auto ready = std::move(st.awaiting_baseline[task_dir]);
    st.awaiting_baseline.erase(task_dir);
    for (auto& work : ready) when_running(self, std::move(work));
  };
  self->request(st.stages.compiler, caf::infinite, export_atom::value, req)
      .then(
          [built](export_result& r) {
            built(r.compiled_dir,
                  r.ok ? r.compiled_error : "the task could not be exported again: " + r.error,
                  r.compiled_note);
          },
          [built](caf::error& e) {
            built("", "building the torch.compile baseline failed: " + describe(e), "");
          });
}

/// Archives a stage's verdict of candidate n, then carries on.
void record(self_ptr self, int64_t n, const verdict& v, std::function<void()> then) {
  self->request(self->state.stages.archive, kArchiveTimeout, record_atom::value,
                verdict_record{candidate(self, n).id, v})
      .then([then] { then(); }, archive_failed(self, n));
}

/// A stage could not judge the candidate (the stage itself failed): a final "error" verdict.
void stage_error(self_ptr self, int64_t n, Stage stage, const caf::error& e) {
  const std::string why =
      to_string(stage) + " of candidate " + std::to_string(n) + ": " + describe(e);
  verdict v{stage, false, "stage_error", why, {}};
  record(self, n, v, [self, n, stage, why] {
    tell(self, events::StageError{subject(self, n), to_string(stage), why});
    candidate_outcome o;
    o.stage = stage;
    o.stage_error = true;
    o.reason = o.error = why;
    answer(self, n, o);
  });
}

/// Rejected before the hardware, and archived: reported, answered.
void rejected(self_ptr self, int64_t n, const verdict& v) {
  tell(self, events::Rejected{subject(self, n), v.kind, v.reason});
  candidate_outcome o;
  o.stage = v.stage;
  o.reason = v.reason;
  answer(self, n, o);
}

/// Every judging stage has one shape: ask it about candidate n, archive what it answered, then go
/// on with the answer. `archived(answer)` is the record to archive (none: nothing to archive); a
/// stage that cannot answer is a stage error, an archive that refuses ends the candidate.
template <class Answer, class Handle, class Timeout, class Atom, class Request, class Archived>
void ask_stage(self_ptr self, int64_t n, Stage stage, const Handle& handle, Timeout timeout,
               Atom atom, Request request, Archived archived,
               std::function<void(const Answer&)> next) {
  self->request(handle, timeout, atom, std::move(request))
      .then(
          [self, n, archived, next](Answer& answered) {
            auto record = archived(answered);
            if (!record) return next(answered);
            self->request(self->state.stages.archive, kArchiveTimeout, record_atom::value,
                          std::move(*record))
                .then([next, answered] { next(answered); }, archive_failed(self, n));
          },
          [self, n, stage](caf::error& e) { stage_error(self, n, stage, e); });
}

void profile(self_ptr self, int64_t n, std::vector<evaluation::ConfigReport> configs) {
  auto& st = self->state;
  profile_request req{candidate(self, n).id, candidate(self, n).backend, flight(self, n).kernels,
                      std::move(configs)};
  auto tell_profiled = [self, n](profile_outcome p) {
    p.sequence = n;
    if (!p.error.empty()) self->state.stats.note_error(p.error);
    self->send(self->state.listener, profiled_atom::value, std::move(p));
    done_with(self, n);
  };
  self->request(st.stages.profiler, kArchiveTimeout, profile_atom::value, req)
      .then(
          [self, tell_profiled](profile_summary& p) {
            self->request(self->state.stages.archive, kArchiveTimeout, record_atom::value, p)
                .then(
                    [tell_profiled, brief = p.brief, doc = p.json] {
                      tell_profiled({0, brief, "", false, doc});
                    },
                    [tell_profiled](caf::error& e) {
                      tell_profiled({0, "", "archive: " + describe(e), true, ""});
                    });
          },
          [tell_profiled](caf::error& e) {
            tell_profiled({0, "", "profiler: " + describe(e), false, ""});
          });
}

/// A resumed candidate whose profile was lost: its kernels' resources and its results come from
/// the archive.
void reprofile(self_ptr self, int64_t n) {
  query_request q{"candidate", candidate(self, n).id};
  auto lost = [self, n](const std::string& why) {
    self->send(self->state.listener, profiled_atom::value, profile_outcome{n, "", why, false, ""});
    done_with(self, n);
  };
  self->request(self->state.stages.archive, kArchiveTimeout, query_atom::value, q)
      .then(
          [self, n, lost](std::string& text) {
            auto doc = json::parse(text);
            if (!doc.value)
              return lost("reading candidate " + std::to_string(n) + " back: " + doc.error);
            std::vector<evaluation::ConfigReport> configs;
            for (const auto& row : (*doc.value)["results"].as_array())
              configs.push_back(evaluation::read_config_report(row["detail"]));
            flight(self, n).kernels =
                evaluation::kernel_resources_from_json((*doc.value)["compile"]["resources"]);
            profile(self, n, std::move(configs));
          },
          [lost](caf::error& e) { lost("reading a candidate back: " + describe(e)); });
}

/// What the compiler pool is asked for candidate `c` of `tgt`; an error where the target names no
/// backend kforge knows (the configuration's list is checked, so only a damaged archive can).
Result<compile_request> compilation_request(self_ptr self, const Candidate& c, const target& tgt) {
  auto& st = self->state;
  compile_request req;
  req.candidate_id = c.id;
  req.source = c.source;
  if (auto backend = parse_backend(tgt.backend))
    req.backend = *backend;
  else
    return Result<compile_request>::failure("target " + tgt.key() + " names the backend `" +
                                            tgt.backend + "`, which is neither cpu nor cuda");
  if (auto a = st.cfg.cuda_arch.find(evaluator_key(tgt.backend, tgt.device));
      a != st.cfg.cuda_arch.end())
    req.cuda_arch = a->second;
  req.source_name = "candidate " + std::to_string(c.id) + " (" + c.strategy + ")";
  req.headers = st.cfg.spec.headers;
  return {std::move(req), {}};
}

/// What the evaluator is asked for a compiled candidate of target `l`.
eval_request evaluation_request(self_ptr self, const Candidate& c, const target_layout& l,
                                const evaluation::CompileResult& compiled) {
  const auto& spec = self->state.cfg.spec;
  eval_request req;
  req.candidate_id = c.id;
  req.tgt = l.tgt;
  // What it was built from, for an evaluator of a node, which builds it for its own device.
  if (auto build = compilation_request(self, c, l.tgt)) req.build = std::move(*build);
  req.compiled_mode = l.compiled_dir.empty() ? "off" : spec.compiled_baseline;
  auto& w = req.worker;
  w.export_dir = l.export_dir;
  w.library = compiled.library_path;
  w.compiled_dir = l.compiled_dir;
  w.compiled_unavailable = l.compiled_unavailable;
  w.direction = l.tgt.direction;
  w.mode = l.tgt.config_set;
  w.seeds = spec.seeds;
  w.seed = spec.seed;
  w.library_calls = spec.library_calls;
  // A suite (given kernel files) reports configs correct of all; a search needs the verdict only.
  w.stop_on_failure = spec.proposers.empty() || spec.proposers.front().kind != "files";
  w.timing.max_seconds = spec.timing_seconds;
  // A correct kernel's launches, and on CUDA their hardware counters, for its profile.
  w.trace = true;
  w.counters = l.tgt.backend == "cuda";
  w.counters_budget_s = spec.counters_budget_s;
  return req;
}

evaluator_actor evaluator_of(self_ptr self, const target_layout& l) {
  return self->state.stages.evaluators.at(evaluator_key(l.tgt.backend, l.tgt.device));
}

/// Candidate n's evaluation is archived: told, answered, and a correct one goes to be profiled.
void evaluated(self_ptr self, int64_t n, const eval_result& r) {
  const auto& report = r.report;
  const bool ok = report.verdict == EvalVerdict::correct;
  candidate_outcome o;
  o.stage = Stage::evaluate;
  o.correct = ok;
  o.speedup = ok ? geomean_speedup(r) : 0;
  o.speed_of_light = ok ? evaluation::speed_of_light_fraction(report.configs) : 0;
  if (ok) o.times = evaluation::config_times_text(report.configs);
  o.profiling = ok;
  auto e = events::about<events::Evaluated>(subject(self, n));
  e.verdict = to_string(report.verdict);
  e.strategy = candidate(self, n).strategy;
  if (ok) e.speedup = o.speedup;
  if (const double c = ok ? geomean_speedup(r, true) : 0; c > 0) e.speedup_compiled = c;
  if (!ok) {
    e.failure = report.failure_kind;
    e.reason = report.failure_message;
    o.reason = report.failure_message;
    o.failure = failure_text(report.failure_kind, evaluation_reason(r));
  }
  if (report.verdict == EvalVerdict::error) o.error = report.failure_message;
  e.seconds = r.seconds;
  if (!r.device.empty()) e.device = r.device;
  tell(self, e);
  answer(self, n, o);
  if (ok) profile(self, n, report.configs);
}

void evaluate(self_ptr self, int64_t n, const evaluation::CompileResult& built) {
  const auto& l = layout(self, n);
  flight(self, n).kernels = built.kernels;
  ask_stage<eval_result>(
      self, n, Stage::evaluate, evaluator_of(self, l), caf::infinite, evaluate_atom::value,
      evaluation_request(self, candidate(self, n), l, built),
      [](const eval_result& r) { return std::optional<eval_result>(r); },
      [self, n](const eval_result& r) { evaluated(self, n, r); });
}

/// Candidate n's compile is archived: a library goes on to be evaluated, a failure is told and
/// answered.
void compiled(self_ptr self, int64_t n, const evaluation::CompileResult& r) {
  if (r.ok)
    return with_baseline(self, static_cast<size_t>(flight(self, n).job.target),
                         [self, n, r] { evaluate(self, n, r); });
  tell(self, events::CompileFailed{subject(self, n), r.error});
  candidate_outcome o;
  o.stage = Stage::compile;
  o.reason = r.error;
  o.failure = r.log.empty() ? r.error : r.log;
  answer(self, n, o);
}

/// `record`: archive the compile outcome (false when a resumed candidate was compiled before).
void compile(self_ptr self, int64_t n, bool record) {
  auto req = compilation_request(self, candidate(self, n), layout(self, n).tgt);
  if (!req)
    return stage_error(self, n, Stage::compile, make_error(error_code::invalid_request, req.error));
  ask_stage<candidate_compile>(
      self, n, Stage::compile, self->state.stages.compiler, caf::infinite, compile_atom::value,
      std::move(*req),
      [record](const candidate_compile& c) {
        return record ? std::optional<candidate_compile>(c) : std::nullopt;
      },
      [self, n](const candidate_compile& c) { compiled(self, n, c.result); });
}

/// The LLM verifiers' turn, after the static rules (the verifier asks them all and judges).
void llm_verify(self_ptr self, int64_t n) {
  auto& st = self->state;
  const auto& spec = st.cfg.spec;
  llm_panel_request panel;
  panel.request = {candidate(self, n), layout(self, n).tgt, layout(self, n).export_dir,
                   spec.verifier_checks,
                   search::derive_seed(spec.seed, "verify", static_cast<uint64_t>(n))};
  for (const auto& [name, model] : st.cfg.llm_verifiers) {
    panel.names.push_back(name);
    panel.models.push_back(caf::actor_cast<caf::actor>(model));
  }
  panel.audit_fraction = spec.audit_fraction;
  panel.audit_seed = search::derive_seed(spec.seed, "audit", static_cast<uint64_t>(n));
  self->request(st.stages.verifier, caf::infinite, verify_atom::value, panel)
      .then(
          [self, n](llm_judgement& j) {
            auto& st = self->state;
            std::vector<LlmCall> calls;
            for (const auto& v : j.verdicts)
              calls.insert(calls.end(), v.calls.begin(), v.calls.end());
            if (!calls.empty()) self->send(st.listener, charge_atom::value, n, std::move(calls));
            auto pending = std::make_shared<size_t>(j.verdicts.size());
            auto all_archived = [self, n, j] {
              if (!j.offline_miss.empty())
                return abort(self, n,
                             "offline: verifier " + j.offline_miss +
                                 " has no cached reply for candidate " + std::to_string(n) +
                                 "; run without --offline to ask it");
              auto e = events::about<events::LlmVerified>(subject(self, n));
              e.verdict = j.rejected ? "reject" : "accept";
              if (j.rejected) e.reason = j.reasons;
              e.audited = j.audited;
              tell(self, e);
              if (!j.rejected || j.audited)
                return when_running(self, [self, n] { compile(self, n, true); });
              const verdict v{Stage::llm_verify, false, "llm_rejected", j.reasons, {}};
              record(self, n, v, [self, n, v] { rejected(self, n, v); });
            };
            if (j.verdicts.empty()) return all_archived();
            for (const auto& v : j.verdicts)
              self->request(st.stages.archive, kArchiveTimeout, record_atom::value,
                            llm_verdict_record{st.cfg.experiment_id, candidate(self, n).id, n, v})
                  .then(
                      [pending, all_archived] {
                        if (--*pending == 0) all_archived();
                      },
                      [self, n, pending](caf::error& e) {
                        if (*pending == 0) return;
                        *pending = 0;  // one failure ends the candidate; later replies are moot
                        abort(self, n, "archive: " + describe(e));
                      });
          },
          [self, n](caf::error& e) { stage_error(self, n, Stage::llm_verify, e); });
}

/// Candidate n's static verdict is archived: rejected, or on to the LLM verifiers or the compiler.
void verified(self_ptr self, int64_t n, const verdict& v) {
  if (!v.accepted) return rejected(self, n, v);
  if (!self->state.cfg.llm_verifiers.empty())
    return when_running(self, [self, n] { llm_verify(self, n); });
  when_running(self, [self, n] { compile(self, n, true); });
}

void verify(self_ptr self, int64_t n) {
  auto& st = self->state;
  verify_request req{candidate(self, n), layout(self, n).export_dir, st.cfg.spec.library_calls,
                     st.cfg.spec.max_source_bytes};
  ask_stage<verdict>(
      self, n, Stage::verify, st.stages.verifier, kVerifyTimeout, verify_atom::value,
      std::move(req),
      [self, n](const verdict& v) {
        return std::optional<verdict_record>(verdict_record{candidate(self, n).id, v});
      },
      [self, n](const verdict& v) { verified(self, n, v); });
}

/// Takes a job in where its entry says.
caf::result<candidate_outcome> take(self_ptr self, pipeline_job& job) {
  auto& st = self->state;
  const int64_t n = job.candidate.sequence;
  if (job.target < 0 || static_cast<size_t>(job.target) >= st.cfg.targets.size())
    return make_error(error_code::invalid_request,
                      "candidate " + std::to_string(n) + " names no target of the experiment");
  if (st.flights.count(n))
    return make_error(error_code::invalid_request,
                      "candidate " + std::to_string(n) + " is in the pipeline already");
  auto promise = self->make_response_promise<candidate_outcome>();
  const auto entry = job.entry;
  st.stats.started("candidate " + std::to_string(job.candidate.id));
  st.flights[n] = {std::move(job), promise, {}};
  switch (entry) {
    case pipeline_entry::verify:
      if (const int64_t earlier = flight(self, n).job.repeats; earlier >= 0) {
        const verdict v{Stage::verify,
                        false,
                        "repeated_kernel",
                        "the same kernel as " +
                            (earlier > 0 ? "candidate " + std::to_string(earlier)
                                         : std::string("an earlier candidate")) +
                            " once comments and layout are set aside (search.novelty)",
                        {}};
        record(self, n, v, [self, n, v] { rejected(self, n, v); });
        break;
      }
      when_running(self, [self, n] { verify(self, n); });
      break;
    case pipeline_entry::llm_verify:
      when_running(self, [self, n] {
        if (self->state.cfg.llm_verifiers.empty()) return compile(self, n, true);
        llm_verify(self, n);
      });
      break;
    case pipeline_entry::compile:
      when_running(self, [self, n] { compile(self, n, true); });
      break;
    case pipeline_entry::recompile:
      when_running(self, [self, n] { compile(self, n, false); });
      break;
    case pipeline_entry::profile: {
      // Finished already: the answer says so at once, and the profile follows.
      candidate_outcome o;
      o.stage = Stage::profile;
      o.profiling = true;
      answer(self, n, o);
      when_running(self, [self, n] { reprofile(self, n); });
      break;
    }
  }
  return caf::delegated<candidate_outcome>();
}

/// The confirmation an evaluation gives: per config both sides' medians and percentiles, and the
/// geometric means of eager's median over the kernel's, and of the percentiles' worst and best
/// ratios (eager's 10th over the kernel's 90th, eager's 90th over the kernel's 10th).
confirmation confirmation_of(const eval_result& r) {
  confirmation c;
  c.candidate_id = r.candidate_id;
  c.correct = r.report.verdict == EvalVerdict::correct && geomean_speedup(r) > 0;
  if (!c.correct) {
    c.reason = r.report.verdict == EvalVerdict::correct ? "not timed" : evaluation_reason(r);
    return c;
  }
  std::vector<double> low, high;
  json::Value configs{json::Array{}};
  for (const auto& k : r.report.configs) {
    json::Value x;
    x.set("index", k.index).set("name", k.name);
    x.set("kernel_ms", k.kernel.median_ms).set("kernel_p10_ms", k.kernel.p10_ms);
    x.set("kernel_p90_ms", k.kernel.p90_ms).set("eager_ms", k.eager.median_ms);
    x.set("eager_p10_ms", k.eager.p10_ms).set("eager_p90_ms", k.eager.p90_ms);
    x.set("speedup", k.speedup);
    configs.push(std::move(x));
    low.push_back(k.kernel.p90_ms > 0 ? k.eager.p10_ms / k.kernel.p90_ms : 0);
    high.push_back(k.kernel.p10_ms > 0 ? k.eager.p90_ms / k.kernel.p10_ms : 0);
  }
  c.speedup = geomean_speedup(r);
  c.speedup_low = geometric_mean(low).value_or(0);
  c.speedup_high = geometric_mean(high).value_or(0);
  c.configs_json = configs.dump();
  return c;
}

/// Compiles a finished correct candidate again (a cache hit) and evaluates it with a seed of its
/// own, then archives the confirmation and answers with it. A stage that fails makes an
/// unconfirmed answer that says why; only an archive failure is an error.
caf::result<confirmation> confirm(self_ptr self, pipeline_job& job) {
  auto& st = self->state;
  if (job.target < 0 || static_cast<size_t>(job.target) >= st.cfg.targets.size())
    return make_error(error_code::invalid_request, "candidate " +
                                                       std::to_string(job.candidate.sequence) +
                                                       " names no target of the experiment");
  auto promise = self->make_response_promise<confirmation>();
  const Candidate c = job.candidate;
  const auto t = static_cast<size_t>(job.target);
  const target_layout l = st.cfg.targets.at(t);
  st.stats.started("confirming candidate " + std::to_string(c.id));
  auto deliver = [self, promise, c](confirmation out) mutable {
    out.sequence = c.sequence;
    out.candidate_id = c.id;
    self->request(self->state.stages.archive, kArchiveTimeout, record_atom::value, out)
        .then(
            [self, promise, out]() mutable {
              self->state.stats.finished();
              promise.deliver(out);
            },
            [self, promise](caf::error& e) mutable {
              self->state.stats.finished("archive: " + describe(e));
              promise.deliver(e);
            });
  };
  auto unconfirmed = [deliver](const std::string& why) mutable {
    confirmation out;
    out.reason = why;
    deliver(out);
  };
  when_running(self, [self, c, l, t, deliver, unconfirmed]() mutable {
    auto req = compilation_request(self, c, l.tgt);
    if (!req) return unconfirmed(req.error);
    self->request(self->state.stages.compiler, caf::infinite, compile_atom::value, *req)
        .then(
            [self, c, t, deliver, unconfirmed](candidate_compile& compiled) mutable {
              if (!compiled.result.ok)
                return unconfirmed("it did not compile again: " + compiled.result.error);
              with_baseline(self, t, [self, c, t, deliver, unconfirmed, compiled]() mutable {
                const auto& l = self->state.cfg.targets.at(t);
                auto req = evaluation_request(self, c, l, compiled.result);
                req.worker.seed = search::derive_seed(self->state.cfg.spec.seed, "confirm",
                                                      static_cast<uint64_t>(c.sequence));
                req.worker.stop_on_failure = true;
                req.confirmation = true;
                // Its profile was made after the search's evaluation.
                req.worker.trace = req.worker.counters = false;
                self->request(evaluator_of(self, l), caf::infinite, evaluate_atom::value, req)
                    .then([deliver](eval_result& r) mutable { deliver(confirmation_of(r)); },
                          [unconfirmed](caf::error& e) mutable {
                            unconfirmed("evaluation: " + describe(e));
                          });
              });
            },
            [unconfirmed](caf::error& e) mutable { unconfirmed("compile: " + describe(e)); });
  });
  return promise;
}

}  // namespace

double geomean_speedup(const eval_result& r, bool over_compiled) {
  std::vector<double> speedups;
  for (const auto& c : r.report.configs) {
    if (!c.correct || !c.timed()) return 0;
    speedups.push_back(over_compiled ? c.speedup_compiled : c.speedup);
  }
  return geometric_mean(speedups).value_or(0);
}

candidate_pipeline_actor::behavior_type candidate_pipeline_impl(
    candidate_pipeline_actor::stateful_pointer<candidate_pipeline_state> self,
    pipeline_config config, stage_handles stages, pipeline_listener listener) {
  auto& st = self->state;
  st.cfg = std::move(config);
  st.stages = std::move(stages);
  st.listener = std::move(listener);
  st.paused = st.cfg.start_paused;
  return {
      [self](status_atom) { return self->state.stats.status(); },
      [self](judge_atom, pipeline_job& job) { return take(self, job); },
      [self](confirm_atom, pipeline_job& job) { return confirm(self, job); },
      [self](pause_atom) { self->state.paused = true; },
      [self](resume_atom) {
        auto& st = self->state;
        st.paused = false;
        auto held = std::move(st.held);
        st.held.clear();
        st.stats.set_queued(0);
        for (auto& work : held) work();
      },
  };
}

}  // namespace kforge
