// The archive's strategies table: what meta-generation wrote for each target of an experiment.
#include "archive/archive.hpp"
#include "archive/sqlite_statement.hpp"

namespace kforge::archive {

using detail::now;
using detail::Statement;
using detail::Transaction;

Status Archive::add_strategies(const std::vector<Strategy>& strategies,
                               const std::vector<LlmCall>& calls) {
  Transaction tx(db_);
  if (!tx.begun()) return tx.begun();
  for (const auto& x : strategies) {
    Statement s(db_,
                "INSERT INTO strategies (experiment_id, sequence, target, round, serves, source, "
                "text, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
    s.bind(1, x.experiment_id).bind(2, x.sequence).bind(3, x.target);
    s.bind(4, static_cast<int64_t>(x.round)).bind(5, x.serves).bind(6, x.source).bind(7, x.text);
    s.bind(8, now());
    if (auto st = s.run(); !st) return st;
  }
  if (!calls.empty() && !strategies.empty()) {
    const auto& first = strategies.front();
    if (auto st = insert_llm_calls(first.experiment_id, 0, first.sequence, calls); !st) return st;
  }
  return tx.commit();
}

Result<std::vector<Strategy>> Archive::strategies(int64_t experiment_id) {
  Statement s(db_,
              "SELECT experiment_id, sequence, target, round, serves, source, text FROM strategies "
              "WHERE experiment_id = ? ORDER BY id");
  s.bind(1, experiment_id);
  return detail::rows(s, [](const Statement& s) {
    Strategy x;
    x.experiment_id = s.integer(0);
    x.sequence = s.integer(1);
    x.target = s.text(2);
    x.round = static_cast<int32_t>(s.integer(3));
    x.serves = s.text(4);
    x.source = s.text(5);
    x.text = s.text(6);
    return x;
  });
}

}  // namespace kforge::archive
