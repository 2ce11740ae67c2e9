#include "actors/archive_reads.hpp"

#include <tuple>

#include "actors/archive_actor.hpp"
#include "actors/experiment_records.hpp"
#include "archive/report.hpp"
#include "archive/views.hpp"
#include "messages/errors.hpp"

namespace kforge {
namespace {

caf::error read_failed(const std::string& what, const std::string& why) {
  return make_error(error_code::archive_failure, "reading " + what + ": " + why);
}

experiment_record from_archive(const archive::Experiment& e) {
  return {e.id, e.name, e.config_json, e.seed, e.status};
}

/// What a fix prompt is told of a failed candidate, from its archived verdicts and compile log.
Result<std::pair<Stage, std::string>> archived_failure(archive::Archive& db, int64_t id) {
  using Found = Result<std::pair<Stage, std::string>>;
  auto verdicts = db.verdicts(id);
  if (!verdicts) return Found::failure(verdicts.error);
  for (const auto& v : *verdicts) {
    const auto stage = parse_stage(v.stage);
    if (stage == Stage::compile && v.verdict == "rejected") {
      auto log = db.compile_log(id);
      if (!log) return Found::failure(log.error);
      const auto& found = *log;
      return {std::pair{Stage::compile, found && !found->log.empty() ? found->log : v.reason}, {}};
    }
    if (stage == Stage::evaluate && v.verdict == to_string(EvalVerdict::incorrect))
      return {std::pair{Stage::evaluate, failure_text(v.kind, v.reason)}, {}};
  }
  return {std::pair{Stage::none, std::string()}, {}};
}

/// A candidate as a resumed experiment knows it: how far it got, its speed and profile brief
/// when correct, why it failed when it did.
Result<candidate_state> archived_candidate(archive::Archive& db, const archive::Progress& p) {
  using Found = Result<candidate_state>;
  candidate_state cs;
  const auto& c = p.candidate;
  cs.candidate = c;
  cs.verified = p.verified;
  cs.compiled = p.compiled;
  cs.finished = p.finished;
  cs.correct = p.correct;
  cs.speedup = p.geomean_speedup;
  if (p.correct) {
    auto results = db.results(c.id);
    if (!results) return Found::failure(results.error);
    std::vector<evaluation::ConfigReport> configs;
    for (const auto& r : *results)
      if (auto doc = json::parse(r.detail_json); doc)
        configs.push_back(evaluation::read_config_report(*doc.value));
    cs.speed_of_light = evaluation::speed_of_light_fraction(configs);
    cs.times = evaluation::config_times_text(configs);
  }
  cs.profiled = p.profiled;
  if (p.profiled) {
    auto profile = db.profile(c.id);
    if (!profile) return Found::failure(profile.error);
    if (*profile)
      if (auto doc = json::parse(**profile); doc.value)
        cs.profile_brief =
            advised_brief((*doc.value)["summary"]["brief"].as_string(), (*doc.value)["advice"]);
  }
  if (p.finished && !p.correct) {
    auto failure = archived_failure(db, c.id);
    if (!failure) return Found::failure(failure.error);
    std::tie(cs.failed_stage, cs.failure) = *failure;
  }
  return {std::move(cs), {}};
}

}  // namespace

caf::result<experiment_snapshot> archived_snapshot(archive::Archive& db, int64_t experiment_id) {
  const std::string what = "experiment " + std::to_string(experiment_id);
  auto e = db.experiment(experiment_id);
  if (!e) return read_failed(what, e.error);
  if (!*e) return make_error(error_code::unknown_experiment, std::to_string(experiment_id));
  experiment_snapshot snap;
  snap.experiment = from_archive(**e);
  auto progress = db.progress(experiment_id);
  if (!progress) return read_failed(what, progress.error);
  for (const auto& p : *progress) {
    auto cs = archived_candidate(db, p);
    if (!cs) return read_failed(what, cs.error);
    snap.candidates.push_back(std::move(*cs));
  }
  auto usage = db.llm_usage(experiment_id);
  if (!usage) return read_failed(what, usage.error);
  for (const auto& u : *usage)
    snap.models.push_back(
        {u.model_name, u.calls, u.failures, u.cached, u.input_tokens, u.output_tokens, u.cost_usd});
  auto strategies = db.strategies(experiment_id);
  if (!strategies) return read_failed(what, strategies.error);
  // One record per round, target and writer, as they were recorded.
  for (const auto& x : *strategies) {
    auto& list = snap.strategies;
    if (list.empty() || list.back().target_key != x.target || list.back().round != x.round ||
        list.back().serves != x.serves || list.back().source != x.source)
      list.push_back({experiment_id, x.sequence, x.target, x.round, x.serves, x.source, {}, {}});
    list.back().strategies.push_back(x.text);
  }
  return snap;
}

caf::result<std::vector<experiment_record>> archived_experiments(archive::Archive& db,
                                                                 const std::string& status) {
  auto all = status.empty() ? db.experiments() : db.experiments_with_status(status);
  if (!all) return read_failed("the experiments", all.error);
  std::vector<experiment_record> out;
  for (const auto& e : *all) out.push_back(from_archive(e));
  return out;
}

caf::result<std::string> answer_query(archive::Archive& db, const query_request& q) {
  const std::string what = q.what + " " + std::to_string(q.id);
  auto dump = [&](const Result<std::optional<json::Value>>& view, error_code unknown,
                  const std::string& missing) -> caf::result<std::string> {
    if (!view) return read_failed(what, view.error);
    if (!*view) return make_error(unknown, missing + " " + std::to_string(q.id));
    return (*view)->dump();
  };
  if (q.what == "experiments") {
    auto view = archive::experiments_view(db);
    if (!view) return read_failed("the experiments", view.error);
    return view->dump();
  }
  if (q.what == "history") {
    auto e = db.experiment(q.id);
    if (!e) return read_failed(what, e.error);
    if (!*e)
      return make_error(error_code::unknown_experiment, "no experiment " + std::to_string(q.id));
    auto view = archive::history_view(db, q.id);
    if (!view) return read_failed(what, view.error);
    return view->dump();
  }
  if (q.what == "experiment")
    return dump(archive::experiment_view(db, q.id), error_code::unknown_experiment,
                "no experiment");
  if (q.what == "candidates")
    return dump(archive::candidates_view(db, q.id), error_code::unknown_experiment,
                "no experiment");
  if (q.what == "report")
    return dump(archive::report_view(db, q.id), error_code::unknown_experiment, "no experiment");
  if (q.what == "suite")
    return dump(archive::suite_view(db, q.id), error_code::unknown_experiment, "no suite");
  if (q.what == "candidate")
    return dump(archive::candidate_view(db, q.id), error_code::unknown_candidate, "no candidate");
  return make_error(error_code::invalid_request, "unknown query `" + q.what + "`");
}

caf::result<reply_lookup> archived_reply(archive::Archive& db, const std::string& key) {
  auto r = db.llm_reply(key);
  if (!r) return read_failed("the LLM response cache", r.error);
  reply_lookup out;
  if (const auto& found = *r) {
    out.found = true;
    out.reply = {found->key, found->endpoint, found->model, found->request_json,
                 llm::ChatReply{found->text,
                                found->finish_reason,
                                found->truncated,
                                {found->input_tokens, found->output_tokens}}};
  }
  return out;
}

}  // namespace kforge
