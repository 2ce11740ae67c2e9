// The archive's answers as JSON documents, for the daemon's HTTP API and the console: a list of
// experiments, one experiment with its targets' best kernels, one candidate whole (source,
// verdicts, compile log, per-config results, profile, lineage), and an experiment's events.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "archive/archive.hpp"
#include "common/json.hpp"

namespace kforge::archive {

// Each view fails with the error of a read that failed; "none" (an empty optional) means there is
// no such experiment or candidate.

Result<json::Value> experiments_view(Archive& a);
/// None when there is no such experiment.
Result<std::optional<json::Value>> experiment_view(Archive& a, int64_t experiment_id);
Result<std::optional<json::Value>> candidate_view(Archive& a, int64_t candidate_id);
Result<json::Value> history_view(Archive& a, int64_t experiment_id);
/// Every candidate of an experiment in proposal order, without sources: id, parent, target,
/// proposer, strategy, when proposed, how far it got (`outcome`: "in pipeline", "rejected",
/// "compile failed", "incorrect", "correct") and its geometric-mean speedup when correct; for the
/// dashboard's lineage tree and speedup chart. None when there is no such experiment.
Result<std::optional<json::Value>> candidates_view(Archive& a, int64_t experiment_id);
/// A suite's results (`kforge suite`): one row per candidate (kernel file) with its verdict,
/// configs correct of total, geometric-mean speedups, the kernel time of the largest config (where
/// eager PyTorch is slowest), flags and the failure reason; and one row per target that ended
/// without a candidate (a task that failed to export, no kernel file for it), with the reason.
/// None when there is no such experiment.
Result<std::optional<json::Value>> suite_view(Archive& a, int64_t experiment_id);

}  // namespace kforge::archive
