#include "actors/archive_actor.hpp"

#include <cmath>

#include "actors/archive_reads.hpp"
#include "actors/experiment_records.hpp"
#include "archive/verdict_reason.hpp"
#include "messages/errors.hpp"

namespace kforge {
namespace {

std::string reasons_json(const std::vector<std::string>& reasons) {
  json::Value list{json::Array{}};
  for (const auto& r : reasons) list.push(r);
  return list.dump();
}

caf::error failed(const std::string& what, const std::string& why) {
  return make_error(error_code::archive_failure, what + ": " + why);
}

/// A compile's log and verdict as the archive keeps them.
std::pair<archive::CompileLog, archive::VerdictRow> compile_rows(const candidate_compile& c) {
  const evaluation::CompileResult& r = c.result;
  archive::CompileLog log{c.candidate_id, r.ok,         r.cache_hit,
                          r.seconds,      r.log,        evaluation::to_json(r.kernels).dump(),
                          r.headers,      r.light_error};
  const std::string kind =
      r.ok ? ""
           : (r.error.find("timed out") != std::string::npos ? "compile_timeout" : "compile_error");
  archive::VerdictRow v{c.candidate_id, to_string(Stage::compile), r.ok ? "accepted" : "rejected",
                        kind, r.error};
  return {std::move(log), std::move(v)};
}

/// An evaluation's per-config rows as the archive keeps them.
std::vector<archive::ConfigResult> evaluation_rows(const eval_result& r) {
  std::vector<archive::ConfigResult> rows;
  for (const auto& c : r.report.configs) {
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
  return rows;
}

}  // namespace

std::string evaluation_reason(const eval_result& r) {
  return archive::reason_with_flags(r.report.failure_message, r.report.flags);
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
          std::vector<archive::LlmVerdictRow> rows;
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
      [write](record_atom, candidate_compile& r) -> caf::result<void> {
        return write("compile of candidate " + std::to_string(r.candidate_id),
                     [&](archive::Archive& db) {
                       const auto [log, verdict] = compile_rows(r);
                       return db.record_compile(log, verdict);
                     });
      },
      [write](record_atom, eval_result& r) -> caf::result<void> {
        return write("evaluation of candidate " + std::to_string(r.candidate_id),
                     [&](archive::Archive& db) {
                       return db.record_evaluation(
                           evaluation_rows(r),
                           {r.candidate_id, to_string(Stage::evaluate), to_string(r.report.verdict),
                            r.report.failure_kind, evaluation_reason(r)});
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
      [self](load_atom, reply_key& k) { return archived_reply(*self->state.db, k.key); },
      [self](load_atom, int64_t experiment_id) {
        return archived_snapshot(*self->state.db, experiment_id);
      },
      [self](list_atom, std::string& status) {
        return archived_experiments(*self->state.db, status);
      },
      [self](query_atom, query_request& q) { return answer_query(*self->state.db, q); },
  };
}

}  // namespace kforge
