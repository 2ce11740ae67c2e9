// What an experiment's LLMs were worth, read from the archive: per model the calls, failures,
// tokens and money; the cost per correct kernel; and each LLM verifier's confusion matrix
// against the hardware's verdicts (a reject is a positive: "this kernel is defective"), with
// precision and recall, per check and for the verifiers together.
#pragma once

#include <cstdint>
#include <optional>

#include "archive/archive.hpp"
#include "common/json.hpp"

namespace kforge::archive {

/// None when there is no such experiment; the error of a read that failed.
Result<std::optional<json::Value>> report_view(Archive& a, int64_t experiment_id);

}  // namespace kforge::archive
