// The archive's LLM tables: the response cache, the ledger of calls and the verifiers' verdicts.
#include "archive/archive.hpp"
#include "archive/sqlite_statement.hpp"

namespace kforge::archive {

using detail::now;
using detail::Statement;
using detail::Transaction;

Result<std::optional<LlmReply>> Archive::llm_reply(const std::string& key) {
  Statement s(db_,
              "SELECT key, endpoint, model, request, text, finish_reason, truncated, input_tokens, "
              "output_tokens FROM llm_replies WHERE key = ?");
  s.bind(1, key);
  return detail::first_row(s, [](const Statement& s) {
    LlmReply r;
    r.key = s.text(0);
    r.endpoint = s.text(1);
    r.model = s.text(2);
    r.request_json = s.text(3);
    r.text = s.text(4);
    r.finish_reason = s.text(5);
    r.truncated = s.integer(6) != 0;
    r.input_tokens = s.integer(7);
    r.output_tokens = s.integer(8);
    return r;
  });
}

Status Archive::put_llm_reply(const LlmReply& r) {
  // The first reply under a key stays: a replay must see what the first run saw.
  Statement s(db_,
              "INSERT OR IGNORE INTO llm_replies (key, endpoint, model, request, text, "
              "finish_reason, truncated, input_tokens, output_tokens, created_at) VALUES (?, ?, ?, "
              "?, ?, ?, ?, ?, ?, ?)");
  s.bind(1, r.key).bind(2, r.endpoint).bind(3, r.model).bind(4, r.request_json).bind(5, r.text);
  s.bind(6, r.finish_reason).bind(7, static_cast<int64_t>(r.truncated));
  s.bind(8, r.input_tokens).bind(9, r.output_tokens).bind(10, now());
  return s.run();
}

Status Archive::add_llm_calls(int64_t experiment_id, int64_t candidate_id, int64_t sequence,
                              const std::vector<LlmCall>& calls) {
  Transaction tx(db_);
  if (!tx.begun()) return tx.begun();
  if (auto s = insert_llm_calls(experiment_id, candidate_id, sequence, calls); !s) return s;
  return tx.commit();
}

Status Archive::insert_llm_calls(int64_t experiment_id, int64_t candidate_id, int64_t sequence,
                                 const std::vector<LlmCall>& calls) {
  for (const auto& c : calls) {
    Statement s(db_,
                "INSERT INTO llm_calls (experiment_id, candidate_id, sequence, role, model_name, "
                "endpoint, model, key, ok, cached, failure, error, attempts, input_tokens, "
                "output_tokens, cost_usd, seconds, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, "
                "?, ?, ?, ?, ?, ?, ?, ?, ?)");
    s.bind(1, experiment_id)
        .bind(2, candidate_id ? std::optional<int64_t>(candidate_id) : std::nullopt);
    s.bind(3, sequence).bind(4, c.role).bind(5, c.model_name).bind(6, c.endpoint);
    s.bind(7, c.model).bind(8, c.key).bind(9, static_cast<int64_t>(c.ok));
    s.bind(10, static_cast<int64_t>(c.cached)).bind(11, c.failure).bind(12, c.error);
    s.bind(13, static_cast<int64_t>(c.attempts)).bind(14, c.input_tokens).bind(15, c.output_tokens);
    s.bind(16, c.cost_usd).bind(17, c.seconds).bind(18, now());
    if (auto st = s.run(); !st) return st;
  }
  return {};
}

Result<std::vector<LlmCallRow>> Archive::llm_calls(int64_t experiment_id) {
  Statement s(
      db_,
      "SELECT experiment_id, candidate_id, sequence, role, model_name, endpoint, model, key, "
      "ok, cached, failure, error, attempts, input_tokens, output_tokens, cost_usd, seconds "
      "FROM llm_calls WHERE experiment_id = ? ORDER BY id");
  s.bind(1, experiment_id);
  return detail::rows(s, [](const Statement& s) {
    LlmCallRow row;
    row.experiment_id = s.integer(0);
    row.candidate_id = s.maybe_integer(1).value_or(0);
    row.sequence = s.integer(2);
    auto& c = row.call;
    c.role = s.text(3);
    c.model_name = s.text(4);
    c.endpoint = s.text(5);
    c.model = s.text(6);
    c.key = s.text(7);
    c.ok = s.integer(8) != 0;
    c.cached = s.integer(9) != 0;
    c.failure = s.text(10);
    c.error = s.text(11);
    c.attempts = static_cast<int32_t>(s.integer(12));
    c.input_tokens = s.integer(13);
    c.output_tokens = s.integer(14);
    c.cost_usd = s.real(15);
    c.seconds = s.real(16);
    return row;
  });
}

Result<std::vector<LlmUsage>> Archive::llm_usage(int64_t experiment_id) {
  Statement s(db_,
              "SELECT model_name, COUNT(*), SUM(1 - ok), SUM(cached), SUM(input_tokens), "
              "SUM(output_tokens), SUM(cost_usd) FROM llm_calls WHERE experiment_id = ? GROUP BY "
              "model_name ORDER BY model_name");
  s.bind(1, experiment_id);
  return detail::rows(s, [](const Statement& s) {
    return LlmUsage{s.text(0),    s.integer(1), s.integer(2), s.integer(3),
                    s.integer(4), s.integer(5), s.real(6)};
  });
}

Status Archive::add_llm_verdicts(const std::vector<LlmVerdictRow>& verdicts) {
  Transaction tx(db_);
  if (!tx.begun()) return tx.begun();
  for (const auto& v : verdicts) {
    Statement s(db_,
                "INSERT OR REPLACE INTO llm_verdicts (candidate_id, verifier, check_name, decided, "
                "accepted, reasons) VALUES (?, ?, ?, ?, ?, ?)");
    s.bind(1, v.candidate_id).bind(2, v.verifier).bind(3, v.check);
    s.bind(4, static_cast<int64_t>(v.decided)).bind(5, static_cast<int64_t>(v.accepted));
    s.bind(6, v.reasons_json);
    if (auto st = s.run(); !st) return st;
  }
  return tx.commit();
}

Result<std::vector<LlmVerdictRow>> Archive::llm_verdicts(int64_t experiment_id) {
  Statement s(db_,
              "SELECT v.candidate_id, v.verifier, v.check_name, v.decided, v.accepted, v.reasons "
              "FROM llm_verdicts v JOIN candidates c ON c.id = v.candidate_id WHERE "
              "c.experiment_id = ? ORDER BY c.sequence, v.verifier, v.check_name");
  s.bind(1, experiment_id);
  return detail::rows(s, [](const Statement& s) {
    return LlmVerdictRow{s.integer(0),      s.text(1),         s.text(2),
                         s.integer(3) != 0, s.integer(4) != 0, s.text(5)};
  });
}

}  // namespace kforge::archive
