#include "actors/archive_actor.hpp"

#include <cmath>

#include "actors/experiment_records.hpp"
#include "archive/report.hpp"
#include "archive/views.hpp"
#include "messages/errors.hpp"

namespace kforge {
namespace {

std::string reasons_json(const std::vector<std::string>& reasons) {
  json::Value list{json::Array{}};
  for (const auto& r : reasons) list.push(r);
  return list.dump();
}

experiment_record from_archive(const archive::Experiment& e) {
  return {e.id, e.name, e.config_json, e.seed, e.status};
}

caf::error failed(const std::string& what, const std::string& why) {
  return make_error(error_code::archive_failure, what + ": " + why);
}

/// What a fix prompt is told of a failed candidate, from its archived verdicts and compile log.
std::pair<Stage, std::string> archived_failure(archive::Archive& db, int64_t id) {
  for (const auto& v : db.verdicts(id)) {
    const auto stage = parse_stage(v.stage);
    if (stage == Stage::compile && v.verdict == "rejected") {
      auto log = db.compile_log(id);
      return {Stage::compile, log && !log->log.empty() ? log->log : v.reason};
    }
    if (stage == Stage::evaluate && v.verdict == to_string(EvalVerdict::incorrect))
      return {Stage::evaluate, failure_text(v.kind, v.reason)};
  }
  return {Stage::none, {}};
}

}  // namespace

std::string evaluation_reason(const eval_result& r) {
  std::string reason = r.failure_message;
  for (const auto& f : r.flags) reason += (reason.empty() ? "flag: " : "; flag: ") + f;
  return reason;
}

std::string failure_text(const std::string& kind, const std::string& reason) {
  return kind + ": " + reason;
}

archive_actor::behavior_type archive_actor_impl(archive_actor::stateful_pointer<archive_state> self,
                                                std::shared_ptr<archive::Archive> db) {
  self->state.db = std::move(db);
  // Every write is timed and counted; an error is kept for the console and returned.
  auto write = [self](const std::string& what, auto&& body) -> caf::result<void> {
    self->state.stats.started(what);
    archive::Status s = body(*self->state.db);
    self->state.stats.finished(s ? std::string() : what + ": " + s.error);
    if (!s) return failed(what, s.error);
    return caf::unit;
  };
  return {
      [self](status_atom) { return self->state.stats.status(); },
      [write](record_atom, llm_calls_record& r) {
        return write("recording LLM calls", [&](archive::Archive& db) {
          return db.add_llm_calls(r.experiment_id, r.candidate_id, r.sequence, r.calls);
        });
      },
      [write](record_atom, strategies_record& r) {
        return write("recording strategies", [&](archive::Archive& db) {
          std::vector<archive::Strategy> rows;
          for (const auto& text : r.strategies)
            rows.push_back(
                {r.experiment_id, r.sequence, r.target_key, r.round, r.serves, r.source, text});
          if (rows.empty()) return db.add_llm_calls(r.experiment_id, 0, r.sequence, r.calls);
          return db.add_strategies(rows, r.calls);
        });
      },
      [write](record_atom, llm_verdict_record& r) {
        const int64_t candidate = r.candidate_id;
        const auto& v = r.judgement;
        return write("recording an LLM verdict", [&](archive::Archive& db) {
          if (auto s = db.add_llm_calls(r.experiment_id, candidate, r.sequence, v.calls); !s)
            return s;
          std::vector<archive::LlmVerdict> rows;
          for (const auto& c : v.checks)
            rows.push_back(
                {candidate, v.verifier, c.check, c.decided, c.accepted, reasons_json(c.reasons)});
          return db.add_llm_verdicts(rows);
        });
      },
      [self](record_atom, experiment_record& e) -> caf::result<int64_t> {
        archive::Experiment a{0, e.name, e.config_json, e.seed, e.status, 0};
        auto id = self->state.db->add_experiment(a);
        if (!id) return failed("recording experiment " + e.name, id.error);
        return *id;
      },
      [self](record_atom, proposed_candidate& p) -> caf::result<int64_t> {
        const auto& c = p.candidate;
        auto id = self->state.db->add_candidate(c, p.calls);
        if (!id)
          return failed("recording candidate " + std::to_string(c.sequence) + " of experiment " +
                            std::to_string(c.experiment_id),
                        id.error);
        return *id;
      },
      [write](record_atom, verdict_record& r) -> caf::result<void> {
        const auto& v = r.outcome;
        return write(
            "verdict of candidate " + std::to_string(r.candidate_id), [&](archive::Archive& db) {
              return db.add_verdict({r.candidate_id, to_string(v.stage),
                                     v.accepted ? "accepted" : "rejected", v.kind, v.reason});
            });
      },
      [write](record_atom, compile_result& r) -> caf::result<void> {
        return write(
            "compile of candidate " + std::to_string(r.candidate_id), [&](archive::Archive& db) {
              archive::CompileLog log{r.candidate_id, r.ok,         r.cache_hit,
                                      r.seconds,      r.log,        gpu::to_json(r.kernels).dump(),
                                      r.headers,      r.light_error};
              archive::Verdict v{
                  r.candidate_id, to_string(Stage::compile), r.ok ? "accepted" : "rejected",
                  r.ok ? ""
                       : (r.error.find("timed out") != std::string::npos ? "compile_timeout"
                                                                         : "compile_error"),
                  r.error};
              return db.record_compile(log, v);
            });
      },
      [write](record_atom, eval_result& r) -> caf::result<void> {
        return write("evaluation of candidate " + std::to_string(r.candidate_id),
                     [&](archive::Archive& db) {
                       std::vector<archive::ConfigResult> rows;
                       for (const auto& c : r.configs) {
                         archive::ConfigResult row;
                         row.candidate_id = r.candidate_id;
                         row.config_set = r.config_set;
                         row.config_index = c.index;
                         row.config_name = c.name;
                         row.correct = c.correct;
                         row.max_abs_error = c.max_abs_error;
                         row.max_rel_error = c.max_rel_error;
                         if (c.timed()) {
                           row.kernel_ms = c.kernel.median_ms;
                           row.eager_ms = c.eager.median_ms;
                           row.speedup = c.speedup;
                         }
                         row.detail_json = c.record_json;
                         rows.push_back(std::move(row));
                       }
                       return db.record_evaluation(
                           rows, {r.candidate_id, to_string(Stage::evaluate), to_string(r.verdict),
                                  r.failure_kind, evaluation_reason(r)});
                     });
      },
      [write](record_atom, profile_summary& p) -> caf::result<void> {
        return write("profile of candidate " + std::to_string(p.candidate_id),
                     [&](archive::Archive& db) { return db.add_profile(p.candidate_id, p.json); });
      },
      [write](record_atom, confirmation& c) -> caf::result<void> {
        return write(
            "confirmation of candidate " + std::to_string(c.candidate_id),
            [&](archive::Archive& db) {
              return db.add_confirmation({c.candidate_id, c.correct, c.speedup, c.speedup_low,
                                          c.speedup_high, c.reason, c.configs_json, 0});
            });
      },
      [write](record_atom, profile_advice& a) -> caf::result<void> {
        const auto advice = advice_json(a);
        return write("advice on candidate " + std::to_string(a.candidate_id),
                     [&](archive::Archive& db) {
                       return db.add_profile_advice(a.experiment_id, a.candidate_id, a.sequence,
                                                    advice.dump(), a.calls);
                     });
      },
      [self](record_atom, event_record& ev) -> caf::result<int64_t> {
        auto id =
            self->state.db->add_event({0, ev.experiment_id, ev.time, ev.kind, ev.detail_json});
        if (!id) return failed("recording event " + ev.kind, id.error);
        return *id;
      },
      [write](update_atom, status_update& u) -> caf::result<void> {
        return write("status of experiment " + std::to_string(u.experiment_id),
                     [&](archive::Archive& db) {
                       return db.set_experiment_status(u.experiment_id, u.status);
                     });
      },
      [write](record_atom, llm::CachedReply& e) -> caf::result<void> {
        return write("caching an LLM reply", [&](archive::Archive& db) {
          return db.put_llm_reply({e.key, e.endpoint, e.model, e.request_json, e.reply.text,
                                   e.reply.finish_reason, e.reply.truncated,
                                   e.reply.usage.input_tokens, e.reply.usage.output_tokens});
        });
      },
      [self](load_atom, reply_key& k) {
        reply_lookup out;
        if (auto r = self->state.db->llm_reply(k.key)) {
          out.found = true;
          out.reply = {
              r->key, r->endpoint, r->model, r->request_json,
              llm::ChatReply{
                  r->text, r->finish_reason, r->truncated, {r->input_tokens, r->output_tokens}}};
        }
        return out;
      },
      [self](load_atom, int64_t experiment_id) -> caf::result<experiment_snapshot> {
        auto e = self->state.db->experiment(experiment_id);
        if (!e) return make_error(error_code::unknown_experiment, std::to_string(experiment_id));
        experiment_snapshot snap;
        snap.experiment = from_archive(*e);
        for (const auto& p : self->state.db->progress(experiment_id)) {
          candidate_state cs;
          const auto& c = p.candidate;
          cs.candidate = c;
          cs.verified = p.verified;
          cs.compiled = p.compiled;
          cs.finished = p.finished;
          cs.correct = p.correct;
          cs.speedup = p.geomean_speedup;
          if (p.correct) {
            std::vector<gpu::ConfigReport> configs;
            for (const auto& r : self->state.db->results(c.id))
              if (auto doc = json::parse(r.detail_json); doc)
                configs.push_back(gpu::read_config_report(*doc.value));
            cs.speed_of_light = gpu::speed_of_light_fraction(configs);
            cs.times = gpu::config_times_text(configs);
          }
          cs.profiled = p.profiled;
          if (p.profiled)
            if (auto profile = self->state.db->profile(c.id))
              if (auto doc = json::parse(*profile); doc.value)
                cs.profile_brief = advised_brief((*doc.value)["summary"]["brief"].as_string(),
                                                 (*doc.value)["advice"]);
          if (p.finished && !p.correct)
            std::tie(cs.failed_stage, cs.failure) = archived_failure(*self->state.db, c.id);
          snap.candidates.push_back(std::move(cs));
        }
        for (const auto& u : self->state.db->llm_usage(experiment_id))
          snap.models.push_back({u.model_name, u.calls, u.failures, u.cached, u.input_tokens,
                                 u.output_tokens, u.cost_usd});
        // One record per round, target and writer, as they were recorded.
        for (const auto& x : self->state.db->strategies(experiment_id)) {
          auto& list = snap.strategies;
          if (list.empty() || list.back().target_key != x.target || list.back().round != x.round ||
              list.back().serves != x.serves || list.back().source != x.source)
            list.push_back(
                {experiment_id, x.sequence, x.target, x.round, x.serves, x.source, {}, {}});
          list.back().strategies.push_back(x.text);
        }
        return snap;
      },
      [self](list_atom, std::string& status) {
        std::vector<experiment_record> out;
        auto all = status.empty() ? self->state.db->experiments()
                                  : self->state.db->experiments_with_status(status);
        for (const auto& e : all) out.push_back(from_archive(e));
        return out;
      },
      [self](query_atom, query_request& q) -> caf::result<std::string> {
        auto& db = *self->state.db;
        if (q.what == "experiments") return archive::experiments_view(db).dump();
        if (q.what == "history") {
          if (!db.experiment(q.id))
            return make_error(error_code::unknown_experiment,
                              "no experiment " + std::to_string(q.id));
          return archive::history_view(db, q.id).dump();
        }
        if (q.what == "experiment") {
          if (auto v = archive::experiment_view(db, q.id)) return v->dump();
          return make_error(error_code::unknown_experiment,
                            "no experiment " + std::to_string(q.id));
        }
        if (q.what == "candidates") {
          if (auto v = archive::candidates_view(db, q.id)) return v->dump();
          return make_error(error_code::unknown_experiment,
                            "no experiment " + std::to_string(q.id));
        }
        if (q.what == "report") {
          if (auto v = archive::report_view(db, q.id)) return v->dump();
          return make_error(error_code::unknown_experiment,
                            "no experiment " + std::to_string(q.id));
        }
        if (q.what == "suite") {
          if (auto v = archive::suite_view(db, q.id)) return v->dump();
          return make_error(error_code::unknown_experiment, "no suite " + std::to_string(q.id));
        }
        if (q.what == "candidate") {
          if (auto v = archive::candidate_view(db, q.id)) return v->dump();
          return make_error(error_code::unknown_candidate, "no candidate " + std::to_string(q.id));
        }
        return make_error(error_code::invalid_request, "unknown query `" + q.what + "`");
      },
  };
}

}  // namespace kforge
