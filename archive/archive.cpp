#include "archive/archive.hpp"

#include "archive/sqlite_statement.hpp"
#include "common/json.hpp"
#include "common/statistics.hpp"

#include <sqlite3.h>

#include <chrono>
#include <cmath>
#include <map>
#include <thread>
#include <utility>

namespace kforge::archive {
namespace {

using detail::exec;
using detail::now;
using detail::Statement;
using detail::Transaction;

constexpr int kSchemaVersion = 6;

constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS experiments (
  id INTEGER PRIMARY KEY, name TEXT NOT NULL, config TEXT NOT NULL, seed INTEGER NOT NULL,
  status TEXT NOT NULL, created_at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS candidates (
  id INTEGER PRIMARY KEY, experiment_id INTEGER NOT NULL REFERENCES experiments(id),
  sequence INTEGER NOT NULL, task TEXT NOT NULL, direction TEXT NOT NULL, backend TEXT NOT NULL,
  source TEXT NOT NULL, source_hash TEXT NOT NULL, parent_id INTEGER REFERENCES candidates(id),
  proposer TEXT NOT NULL, strategy TEXT NOT NULL, seed INTEGER NOT NULL, created_at REAL NOT NULL,
  params TEXT NOT NULL DEFAULT '{}', decision TEXT NOT NULL DEFAULT '{}',
  UNIQUE (experiment_id, sequence));
CREATE TABLE IF NOT EXISTS verdicts (
  id INTEGER PRIMARY KEY, candidate_id INTEGER NOT NULL REFERENCES candidates(id),
  stage TEXT NOT NULL, verdict TEXT NOT NULL, kind TEXT NOT NULL, reason TEXT NOT NULL,
  created_at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS compiles (
  candidate_id INTEGER NOT NULL REFERENCES candidates(id), ok INTEGER NOT NULL,
  cache_hit INTEGER NOT NULL, seconds REAL NOT NULL, log TEXT NOT NULL, resources TEXT NOT NULL,
  headers TEXT NOT NULL DEFAULT '', light_error TEXT NOT NULL DEFAULT '');
CREATE TABLE IF NOT EXISTS results (
  candidate_id INTEGER NOT NULL REFERENCES candidates(id), config_set TEXT NOT NULL,
  config_index INTEGER NOT NULL, config_name TEXT NOT NULL, correct INTEGER NOT NULL,
  max_abs_error REAL NOT NULL, max_rel_error REAL NOT NULL, kernel_ms REAL, eager_ms REAL,
  speedup REAL, detail TEXT NOT NULL, PRIMARY KEY (candidate_id, config_set, config_index));
CREATE TABLE IF NOT EXISTS profiles (
  candidate_id INTEGER NOT NULL REFERENCES candidates(id), summary TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS events (
  id INTEGER PRIMARY KEY, experiment_id INTEGER NOT NULL REFERENCES experiments(id),
  time REAL NOT NULL, kind TEXT NOT NULL, detail TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS llm_replies (
  key TEXT PRIMARY KEY, endpoint TEXT NOT NULL, model TEXT NOT NULL, request TEXT NOT NULL,
  text TEXT NOT NULL, finish_reason TEXT NOT NULL, truncated INTEGER NOT NULL,
  input_tokens INTEGER NOT NULL, output_tokens INTEGER NOT NULL, created_at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS llm_calls (
  id INTEGER PRIMARY KEY, experiment_id INTEGER NOT NULL REFERENCES experiments(id),
  candidate_id INTEGER, sequence INTEGER NOT NULL, role TEXT NOT NULL, model_name TEXT NOT NULL,
  endpoint TEXT NOT NULL, model TEXT NOT NULL, key TEXT NOT NULL, ok INTEGER NOT NULL,
  cached INTEGER NOT NULL, failure TEXT NOT NULL, error TEXT NOT NULL, attempts INTEGER NOT NULL,
  input_tokens INTEGER NOT NULL, output_tokens INTEGER NOT NULL, cost_usd REAL NOT NULL,
  seconds REAL NOT NULL, created_at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS llm_verdicts (
  candidate_id INTEGER NOT NULL REFERENCES candidates(id), verifier TEXT NOT NULL,
  check_name TEXT NOT NULL, decided INTEGER NOT NULL, accepted INTEGER NOT NULL,
  reasons TEXT NOT NULL, PRIMARY KEY (candidate_id, verifier, check_name));
CREATE TABLE IF NOT EXISTS strategies (
  id INTEGER PRIMARY KEY, experiment_id INTEGER NOT NULL REFERENCES experiments(id),
  sequence INTEGER NOT NULL, target TEXT NOT NULL, round INTEGER NOT NULL, serves TEXT NOT NULL,
  source TEXT NOT NULL, text TEXT NOT NULL, created_at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS confirmations (
  candidate_id INTEGER PRIMARY KEY REFERENCES candidates(id), correct INTEGER NOT NULL,
  speedup REAL NOT NULL, speedup_low REAL NOT NULL, speedup_high REAL NOT NULL,
  reason TEXT NOT NULL, configs TEXT NOT NULL, created_at REAL NOT NULL);
CREATE INDEX IF NOT EXISTS strategies_by_experiment ON strategies (experiment_id, id);
CREATE INDEX IF NOT EXISTS llm_calls_by_experiment ON llm_calls (experiment_id, id);
CREATE INDEX IF NOT EXISTS candidates_by_task ON candidates (task, direction, backend);
CREATE INDEX IF NOT EXISTS verdicts_by_candidate ON verdicts (candidate_id);
CREATE INDEX IF NOT EXISTS events_by_experiment ON events (experiment_id, id);
CREATE INDEX IF NOT EXISTS results_by_candidate ON results (candidate_id);
CREATE INDEX IF NOT EXISTS profiles_by_candidate ON profiles (candidate_id);
CREATE INDEX IF NOT EXISTS compiles_by_candidate ON compiles (candidate_id);
)sql";

// Version 1 had no template parameters on candidates, version 2 no recorded decisions (the LLM
// tables are new in version 3 and made by the schema itself), version 3 no record of which headers
// built a candidate; version 4 had no strategies table, version 5 no confirmations table (the
// schema makes them).
constexpr const char* kMigrateFrom1 =
    "ALTER TABLE candidates ADD COLUMN params TEXT NOT NULL DEFAULT '{}';";
constexpr const char* kMigrateFrom2 =
    "ALTER TABLE candidates ADD COLUMN decision TEXT NOT NULL DEFAULT '{}';";
constexpr const char* kMigrateFrom3 =
    "ALTER TABLE compiles ADD COLUMN headers TEXT NOT NULL DEFAULT '';"
    "ALTER TABLE compiles ADD COLUMN light_error TEXT NOT NULL DEFAULT '';";

constexpr const char* kCandidateColumns =
    "id, experiment_id, sequence, task, direction, backend, source, source_hash, parent_id, "
    "proposer, strategy, seed, created_at, params, decision";

Candidate read_candidate(const Statement& s) {
  Candidate c;
  c.id = s.integer(0);
  c.experiment_id = s.integer(1);
  c.sequence = s.integer(2);
  c.task = s.text(3);
  c.direction = s.text(4);
  c.backend = s.text(5);
  c.source = s.text(6);
  c.source_hash = s.text(7);
  c.parent_id = s.maybe_integer(8).value_or(0);
  c.proposer = s.text(9);
  c.strategy = s.text(10);
  c.seed = static_cast<uint64_t>(s.integer(11));
  c.created_at = s.real(12);
  c.params = s.text(13);
  c.decision = s.text(14);
  return c;
}

Experiment read_experiment(const Statement& s) {
  Experiment e;
  e.id = s.integer(0);
  e.name = s.text(1);
  e.config_json = s.text(2);
  e.seed = static_cast<uint64_t>(s.integer(3));
  e.status = s.text(4);
  e.created_at = s.real(5);
  return e;
}

Result<std::vector<Candidate>> candidate_query(sqlite3* db, const std::string& where, int64_t arg) {
  std::string sql = std::string("SELECT ") + kCandidateColumns + " FROM candidates " + where;
  Statement s(db, sql.c_str());
  s.bind(1, arg);
  return detail::rows(s, read_candidate);
}

/// Puts the archive in WAL mode. The switch of a new archive is not covered by the busy timeout
/// (SQLite answers "database is locked" at once while another process makes the same switch), so
/// it is tried again for as long as the timeout would have waited.
Status write_ahead_log(sqlite3* db) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  for (;;) {
    Statement mode(db, "PRAGMA journal_mode=WAL;");
    if (mode.step() && mode.text(0) == "wal") return {};
    if (sqlite3_errcode(db) != SQLITE_BUSY || std::chrono::steady_clock::now() > until)
      return Status{"cannot switch to WAL mode: " + (mode.error().empty()
                                                         ? "the journal mode stays " + mode.text(0)
                                                         : mode.error())};
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

/// Brings the archive's schema to this version: reading the version, migrating and making the
/// tables are one write transaction with its lock taken first, so processes opening one new
/// archive at once wait for each other (the busy timeout) instead of colliding between a read
/// and a write ("database is locked" at once).
Status make_schema(sqlite3* db, const std::string& path) {
  Transaction schema(db);
  if (!schema.begun()) return Status{path + ": BEGIN: " + schema.begun().error};
  int64_t found = 0;
  {
    Statement version(db, "PRAGMA user_version;");
    found = version.step() ? version.integer(0) : 0;
  }
  if (found > kSchemaVersion)
    return Status{path + ": written by a newer kforge (schema " + std::to_string(found) +
                  ", this one knows " + std::to_string(kSchemaVersion) + ")"};
  for (auto [from, sql] :
       {std::pair{1, kMigrateFrom1}, std::pair{2, kMigrateFrom2}, std::pair{3, kMigrateFrom3}}) {
    if (found < 1 || found > from) continue;
    if (auto s = exec(db, sql); !s)
      return Status{path + ": upgrading the schema from version " + std::to_string(from) +
                    " failed: " + s.error};
  }
  if (auto s = exec(db, kSchema); !s)
    return Status{path + ": creating the schema failed: " + s.error};
  if (auto s = exec(db, ("PRAGMA user_version=" + std::to_string(kSchemaVersion) + ";").c_str());
      !s)
    return Status{path + ": " + s.error};
  if (auto s = schema.commit(); !s)
    return Status{path + ": creating the schema failed: " + s.error};
  return {};
}

}  // namespace

Result<int64_t> Archive::inserted(const Status& status) {
  if (!status) return Result<int64_t>::failure(status.error);
  return {sqlite3_last_insert_rowid(db_), {}};
}

Result<std::unique_ptr<Archive>> Archive::open(const std::string& path) {
  using Opened = Result<std::unique_ptr<Archive>>;
  sqlite3* db = nullptr;
  int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX;
  if (sqlite3_open_v2(path.c_str(), &db, flags, nullptr) != SQLITE_OK) {
    auto why =
        "cannot open the archive " + path + ": " + (db ? sqlite3_errmsg(db) : "out of memory");
    sqlite3_close_v2(db);  // v2: after the statements still open here
    return Opened::failure(why);
  }
  sqlite3_busy_timeout(db, 10000);
  // WAL: readers never block the writer, and a committed transaction survives the process being
  // killed at any moment (synchronous=NORMAL guards against process death; FULL would add
  // power loss at the cost of an fsync per commit).
  auto configured = write_ahead_log(db);
  for (const char* pragma : {"PRAGMA synchronous=NORMAL;", "PRAGMA foreign_keys=ON;"})
    if (configured) configured = exec(db, pragma);
  if (!configured) {
    sqlite3_close_v2(db);  // v2: after the statements still open here
    return Opened::failure(path + ": " + configured.error);
  }
  if (auto s = make_schema(db, path); !s) {
    sqlite3_close_v2(db);  // v2: after the statements still open here
    return Opened::failure(s.error);
  }
  return {std::unique_ptr<Archive>(new Archive(db)), {}};
}

Archive::~Archive() {
  sqlite3_close(db_);
}

Result<int64_t> Archive::add_experiment(const Experiment& e) {
  Statement s(
      db_,
      "INSERT INTO experiments (name, config, seed, status, created_at) VALUES (?, ?, ?, ?, ?)");
  s.bind(1, e.name).bind(2, e.config_json).bind(3, static_cast<int64_t>(e.seed));
  s.bind(4, e.status.empty() ? std::string("running") : e.status)
      .bind(5, e.created_at ? e.created_at : now());
  return inserted(s.run());
}

Status Archive::set_experiment_status(int64_t id, const std::string& value) {
  Statement s(db_, "UPDATE experiments SET status = ? WHERE id = ?");
  s.bind(1, value).bind(2, id);
  auto st = s.run();
  if (st && sqlite3_changes(db_) == 0) return Status{"no experiment " + std::to_string(id)};
  return st;
}

Result<std::optional<Experiment>> Archive::experiment(int64_t id) {
  Statement s(db_,
              "SELECT id, name, config, seed, status, created_at FROM experiments WHERE id = ?");
  s.bind(1, id);
  return detail::first_row(s, read_experiment);
}

Result<std::vector<Experiment>> Archive::experiments_with_status(const std::string& status) {
  Statement s(db_,
              "SELECT id, name, config, seed, status, created_at FROM experiments WHERE status = ? "
              "ORDER BY id");
  s.bind(1, status);
  return detail::rows(s, read_experiment);
}

Result<int64_t> Archive::add_candidate(const Candidate& c, const std::vector<LlmCall>& calls) {
  Transaction tx(db_);
  if (auto begun = tx.begun(); !begun) return Result<int64_t>::failure(begun.error);
  // A sequence of -1 is computed inside the INSERT, so two writers cannot take the same one.
  Statement s(
      db_,
      "INSERT INTO candidates (experiment_id, sequence, task, direction, backend, source, "
      "source_hash, parent_id, proposer, strategy, seed, created_at, params, decision) VALUES "
      "(?1, CASE WHEN ?12 >= 0 THEN ?12 ELSE (SELECT COUNT(*) FROM candidates WHERE "
      "experiment_id = ?1) END, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?13, ?14)");
  s.bind(1, c.experiment_id)
      .bind(2, c.task)
      .bind(3, c.direction)
      .bind(4, c.backend)
      .bind(5, c.source);
  s.bind(6, c.source_hash)
      .bind(7, c.parent_id ? std::optional<int64_t>(c.parent_id) : std::nullopt);
  s.bind(8, c.proposer).bind(9, c.strategy);
  s.bind(10, static_cast<int64_t>(c.seed)).bind(11, c.created_at ? c.created_at : now());
  s.bind(12, c.sequence).bind(13, c.params.empty() ? std::string("{}") : c.params);
  s.bind(14, c.decision.empty() ? std::string("{}") : c.decision);
  auto row = inserted(s.run());
  if (!row) return row;
  if (auto st = insert_llm_calls(c.experiment_id, *row, c.sequence, calls); !st)
    return Result<int64_t>::failure(st.error);
  if (auto st = tx.commit(); !st) return Result<int64_t>::failure(st.error);
  return row;
}

Status Archive::add_verdict(const VerdictRow& v) {
  return insert_verdict(v);
}

Status Archive::insert_verdict(const VerdictRow& v) {
  Statement s(db_,
              "INSERT INTO verdicts (candidate_id, stage, verdict, kind, reason, created_at) "
              "VALUES (?, ?, ?, ?, ?, ?)");
  s.bind(1, v.candidate_id)
      .bind(2, v.stage)
      .bind(3, v.verdict)
      .bind(4, v.kind)
      .bind(5, v.reason)
      .bind(6, now());
  return s.run();
}

Status Archive::add_compile(const CompileLog& c) {
  Statement s(
      db_,
      "INSERT INTO compiles (candidate_id, ok, cache_hit, seconds, log, resources, headers, "
      "light_error) VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
  s.bind(1, c.candidate_id).bind(2, int64_t{c.ok}).bind(3, int64_t{c.cache_hit}).bind(4, c.seconds);
  s.bind(5, c.log).bind(6, c.resources_json.empty() ? std::string("{}") : c.resources_json);
  s.bind(7, c.headers).bind(8, c.light_error);
  return s.run();
}

Status Archive::insert_result(const ConfigResult& r) {
  Statement s(db_,
              "INSERT INTO results (candidate_id, config_set, config_index, config_name, correct, "
              "max_abs_error, max_rel_error, kernel_ms, eager_ms, speedup, detail) VALUES (?, ?, "
              "?, ?, ?, ?, ?, ?, ?, ?, ?)");
  s.bind(1, r.candidate_id)
      .bind(2, r.config_set)
      .bind(3, int64_t{r.config_index})
      .bind(4, r.config_name);
  s.bind(5, int64_t{r.correct}).bind(6, r.max_abs_error).bind(7, r.max_rel_error);
  s.bind(8, r.kernel_ms).bind(9, r.eager_ms).bind(10, r.speedup);
  s.bind(11, r.detail_json.empty() ? std::string("{}") : r.detail_json);
  return s.run();
}

Status Archive::add_results(const std::vector<ConfigResult>& results) {
  Transaction t(db_);
  if (!t.begun()) return t.begun();
  for (const auto& r : results)
    if (auto st = insert_result(r); !st) return st;
  return t.commit();
}

Status Archive::record_compile(const CompileLog& c, const VerdictRow& v) {
  Transaction t(db_);
  if (!t.begun()) return t.begun();
  if (auto st = add_compile(c); !st) return st;
  if (auto st = insert_verdict(v); !st) return st;
  return t.commit();
}

Status Archive::record_evaluation(const std::vector<ConfigResult>& results, const VerdictRow& v) {
  Transaction t(db_);
  if (!t.begun()) return t.begun();
  for (const auto& r : results)
    if (auto st = insert_result(r); !st) return st;
  if (auto st = insert_verdict(v); !st) return st;
  return t.commit();
}

Status Archive::add_profile(int64_t candidate_id, const std::string& summary_json) {
  Statement s(db_, "INSERT INTO profiles (candidate_id, summary) VALUES (?, ?)");
  s.bind(1, candidate_id).bind(2, summary_json);
  return s.run();
}

Status Archive::add_confirmation(const ConfirmationRow& c) {
  Statement s(db_,
              "INSERT OR REPLACE INTO confirmations (candidate_id, correct, speedup, speedup_low, "
              "speedup_high, reason, configs, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
  s.bind(1, c.candidate_id).bind(2, static_cast<int64_t>(c.correct)).bind(3, c.speedup);
  s.bind(4, c.speedup_low).bind(5, c.speedup_high).bind(6, c.reason).bind(7, c.configs_json);
  s.bind(8, now());
  return s.run();
}

Result<std::vector<ConfirmationRow>> Archive::confirmations(int64_t experiment_id) {
  Statement s(db_,
              "SELECT f.candidate_id, f.correct, f.speedup, f.speedup_low, f.speedup_high, "
              "f.reason, f.configs, f.created_at FROM confirmations f JOIN candidates c ON "
              "c.id = f.candidate_id WHERE c.experiment_id = ? ORDER BY f.candidate_id");
  s.bind(1, experiment_id);
  return detail::rows(s, [](const Statement& s) {
    return ConfirmationRow{s.integer(0), s.integer(1) != 0, s.real(2), s.real(3),
                           s.real(4),    s.text(5),         s.text(6), s.real(7)};
  });
}

Status Archive::add_profile_advice(int64_t experiment_id, int64_t candidate_id, int64_t sequence,
                                   const std::string& advice_json,
                                   const std::vector<LlmCall>& calls) {
  Transaction tx(db_);
  if (!tx.begun()) return tx.begun();
  if (auto s = insert_llm_calls(experiment_id, candidate_id, sequence, calls); !s) return s;
  auto summary = profile(candidate_id);
  if (!summary) return Status::failure(summary.error);
  auto doc = json::parse(summary->value_or("{}"));
  auto advice = json::parse(advice_json);
  if (!*summary || !doc.value || !advice.value)
    return Status::failure("candidate " + std::to_string(candidate_id) +
                           " has no readable profile to keep advice with");
  doc.value->set("advice", *advice.value);
  Statement s(db_, "UPDATE profiles SET summary = ? WHERE candidate_id = ?");
  s.bind(1, doc.value->dump()).bind(2, candidate_id);
  if (auto st = s.run(); !st) return st;
  return tx.commit();
}

Result<int64_t> Archive::add_event(const Event& e) {
  Statement s(db_, "INSERT INTO events (experiment_id, time, kind, detail) VALUES (?, ?, ?, ?)");
  s.bind(1, e.experiment_id).bind(2, e.time ? e.time : now()).bind(3, e.kind);
  s.bind(4, e.detail_json.empty() ? std::string("{}") : e.detail_json);
  return inserted(s.run());
}

Result<std::optional<Candidate>> Archive::candidate(int64_t id) {
  auto found = candidate_query(db_, "WHERE id = ?", id);
  if (!found) return {std::nullopt, found.error};
  if (found->empty()) return {std::optional<Candidate>(), {}};
  return {std::move(found->front()), {}};
}

Result<std::vector<Candidate>> Archive::candidates(int64_t experiment_id) {
  return candidate_query(db_, "WHERE experiment_id = ? ORDER BY sequence", experiment_id);
}

Result<std::vector<VerdictRow>> Archive::verdicts(int64_t candidate_id) {
  Statement s(db_,
              "SELECT candidate_id, stage, verdict, kind, reason FROM verdicts WHERE candidate_id "
              "= ? ORDER BY id");
  s.bind(1, candidate_id);
  return detail::rows(s, [](const Statement& s) {
    return VerdictRow{s.integer(0), s.text(1), s.text(2), s.text(3), s.text(4)};
  });
}

Result<std::vector<ConfigResult>> Archive::results(int64_t candidate_id) {
  Statement s(db_,
              "SELECT candidate_id, config_set, config_index, config_name, correct, max_abs_error, "
              "max_rel_error, "
              "kernel_ms, eager_ms, speedup, detail FROM results WHERE candidate_id = ? ORDER BY "
              "config_set, "
              "config_index");
  s.bind(1, candidate_id);
  return detail::rows(s, [](const Statement& s) {
    ConfigResult r;
    r.candidate_id = s.integer(0);
    r.config_set = s.text(1);
    r.config_index = static_cast<int>(s.integer(2));
    r.config_name = s.text(3);
    r.correct = s.integer(4) != 0;
    r.max_abs_error = s.real(5);
    r.max_rel_error = s.real(6);
    r.kernel_ms = s.maybe_real(7);
    r.eager_ms = s.maybe_real(8);
    r.speedup = s.maybe_real(9);
    r.detail_json = s.text(10);
    return r;
  });
}

Result<std::vector<Experiment>> Archive::experiments() {
  Statement s(
      db_, "SELECT id, name, config, seed, status, created_at FROM experiments ORDER BY id DESC");
  return detail::rows(s, read_experiment);
}

Result<std::optional<CompileLog>> Archive::compile_log(int64_t candidate_id) {
  Statement s(db_,
              "SELECT candidate_id, ok, cache_hit, seconds, log, resources, headers, light_error "
              "FROM compiles WHERE candidate_id = ? ORDER BY rowid DESC LIMIT 1");
  s.bind(1, candidate_id);
  return detail::first_row(s, [](const Statement& s) {
    return CompileLog{s.integer(0), s.integer(1) != 0, s.integer(2) != 0, s.real(3),
                      s.text(4),    s.text(5),         s.text(6),         s.text(7)};
  });
}

Result<std::optional<std::string>> Archive::profile(int64_t candidate_id) {
  Statement s(db_,
              "SELECT summary FROM profiles WHERE candidate_id = ? ORDER BY rowid DESC LIMIT 1");
  s.bind(1, candidate_id);
  return detail::first_row(s, [](const Statement& s) { return s.text(0); });
}

Result<std::optional<std::string>> Archive::profile_counters(int64_t candidate_id) {
  Statement s(db_,
              "SELECT c FROM (SELECT CASE WHEN json_valid(summary) THEN json_extract(summary, "
              "'$.counters') END AS c FROM profiles WHERE candidate_id = ? ORDER BY rowid DESC "
              "LIMIT 1) WHERE json_type(c) = 'object'");
  s.bind(1, candidate_id);
  return detail::first_row(s, [](const Statement& s) { return s.text(0); });
}

Result<std::vector<Progress>> Archive::progress(int64_t experiment_id) {
  auto failed = [](const Statement& s) {
    return Result<std::vector<Progress>>{std::nullopt, "reading the archive: " + s.error()};
  };
  auto candidates_found = candidates(experiment_id);
  if (!candidates_found) return {std::nullopt, candidates_found.error};
  std::vector<Progress> out;
  std::map<int64_t, size_t> index;
  for (auto& c : *candidates_found) {
    index[c.id] = out.size();
    out.push_back(Progress{std::move(c)});
  }
  Statement v(db_,
              "SELECT v.candidate_id, v.stage, v.verdict FROM verdicts v JOIN candidates c ON "
              "c.id = v.candidate_id WHERE c.experiment_id = ? ORDER BY v.id");
  v.bind(1, experiment_id);
  while (v.step()) {
    auto it = index.find(v.integer(0));
    if (it == index.end()) continue;
    Progress& p = out[it->second];
    std::string stage = v.text(1), verdict = v.text(2);
    if (stage == "verify" && verdict == "accepted") p.verified = true;
    if (stage == "compile" && verdict == "accepted") p.compiled = true;
    if (stage == "evaluate" || verdict == "rejected" || verdict == "incorrect" ||
        verdict == "error")
      p.finished = true;
    if (stage == "evaluate") p.correct = verdict == "correct";
  }
  if (!v.error().empty()) return failed(v);
  Statement r(db_,
              "SELECT r.candidate_id, r.correct, r.speedup FROM results r JOIN candidates c ON "
              "c.id = r.candidate_id WHERE c.experiment_id = ? ORDER BY r.candidate_id");
  r.bind(1, experiment_id);
  std::map<int64_t, std::vector<double>> speedups;  // per config; 0 where not timed
  while (r.step()) speedups[r.integer(0)].push_back(r.maybe_real(2).value_or(0));
  if (!r.error().empty()) return failed(r);
  for (auto& p : out) {
    auto it = speedups.find(p.candidate.id);
    if (p.correct && it != speedups.end())
      p.geomean_speedup = geometric_mean(it->second).value_or(0);
  }
  Statement pr(db_,
               "SELECT DISTINCT p.candidate_id FROM profiles p JOIN candidates c ON c.id = "
               "p.candidate_id WHERE c.experiment_id = ?");
  pr.bind(1, experiment_id);
  while (pr.step()) {
    auto it = index.find(pr.integer(0));
    if (it != index.end()) out[it->second].profiled = true;
  }
  if (!pr.error().empty()) return failed(pr);
  return {std::move(out), {}};
}

Result<std::vector<Candidate>> Archive::unfinished(int64_t experiment_id) {
  // Final: an evaluate verdict, or a rejection at any stage.
  return candidate_query(
      db_,
      "WHERE experiment_id = ? AND id NOT IN (SELECT candidate_id FROM verdicts WHERE stage = "
      "'evaluate' OR verdict IN ('rejected', 'incorrect', 'error')) ORDER BY sequence",
      experiment_id);
}

Result<std::vector<Candidate>> Archive::lineage(int64_t candidate_id) {
  std::vector<Candidate> out;
  int64_t next = candidate_id;
  while (next && out.size() < 100000) {
    auto c = candidate(next);
    if (!c) return {std::nullopt, c.error};
    if (!*c) break;
    next = (*c)->parent_id;
    out.push_back(std::move(**c));
  }
  return {std::move(out), {}};
}

Result<std::vector<Event>> Archive::history(int64_t experiment_id,
                                            const std::vector<std::string>& kinds) {
  std::string sql =
      "SELECT id, experiment_id, time, kind, detail FROM events WHERE experiment_id = ?1";
  if (!kinds.empty()) {
    sql += " AND kind IN (";
    for (size_t i = 0; i < kinds.size(); ++i) sql += (i ? ", ?" : "?") + std::to_string(i + 2);
    sql += ")";
  }
  sql += " ORDER BY id";
  Statement s(db_, sql.c_str());
  s.bind(1, experiment_id);
  for (size_t i = 0; i < kinds.size(); ++i) s.bind(static_cast<int>(i + 2), kinds[i]);
  return detail::rows(s, [](const Statement& s) {
    return Event{s.integer(0), s.integer(1), s.real(2), s.text(3), s.text(4)};
  });
}

Result<std::optional<Best>> Archive::best(const std::string& task, const std::string& direction,
                                          const std::string& backend, const std::string& config_set,
                                          int64_t experiment_id) {
  // A candidate qualifies when every result row of the set is correct and timed; the geometric
  // mean is computed here rather than in SQL, whose math functions are a build option of SQLite.
  Statement s(
      db_,
      "SELECT r.candidate_id, r.correct, r.speedup FROM results r JOIN candidates c ON c.id = "
      "r.candidate_id WHERE c.task = ?1 AND c.direction = ?2 AND c.backend = ?3 AND r.config_set = "
      "?4 "
      "AND (?5 = 0 OR c.experiment_id = ?5) ORDER BY r.candidate_id");
  s.bind(1, task).bind(2, direction).bind(3, backend).bind(4, config_set).bind(5, experiment_id);
  std::optional<int64_t> best_id;
  double best_geomean = 0;
  int best_configs = 0;
  int64_t current = -1;
  std::vector<double> speedups;  // per config; 0 where incorrect or not timed
  auto close = [&] {
    auto g = current < 0 ? std::nullopt : geometric_mean(speedups);
    if (!g) return;
    if (!best_id || *g > best_geomean) {
      best_id = current;
      best_geomean = *g;
      best_configs = static_cast<int>(speedups.size());
    }
  };
  while (s.step()) {
    int64_t id = s.integer(0);
    if (id != current) {
      close();
      current = id;
      speedups.clear();
    }
    speedups.push_back(s.integer(1) != 0 ? s.maybe_real(2).value_or(0) : 0);
  }
  close();
  if (!s.error().empty()) return {std::nullopt, "reading the archive: " + s.error()};
  if (!best_id) return {std::optional<Best>(), {}};
  auto c = candidate(*best_id);
  if (!c) return {std::nullopt, c.error};
  if (!*c) return {std::optional<Best>(), {}};
  return {Best{std::move(**c), best_geomean, best_configs}, {}};
}

}  // namespace kforge::archive
