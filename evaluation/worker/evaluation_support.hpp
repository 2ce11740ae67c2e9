// Small pieces the worker's evaluation and check share: failures as JSON, a candidate's raised
// error in its own (quoted) words, the tolerance and output names of a config, where outputs are
// saved for the checker.
#pragma once

#include <ATen/ATen.h>

#include <exception>
#include <optional>
#include <string>
#include <vector>

#include "common/json.hpp"
#include "evaluation/worker/checks.hpp"
#include "evaluation/worker_request.hpp"

namespace kforge::worker {

json::Value failure_json(const Failure& f);
/// A raised error's message (c10::Error without its backtrace), at most 600 characters: its first
/// 400 and its last 195, where the error that stopped a TorchScript traceback is.
std::string short_what(const std::exception& e);
/// The candidate raised: "out_of_memory" or "candidate_error", its words quoted on one line.
Failure candidate_raised(const std::exception& e);
/// kforge's own code around the candidate raised while `running` (e.g. "the reference, after the
/// kernel ran"): "out_of_memory" (the memory the kernel holds counts, so it is the kernel's
/// failure unless the GPU was crowded: evaluation::crowded_out_of_memory) or "harness_error" (the
/// kernel may have left the device or the process in a state the reference cannot run in), in
/// words that do not put the message in the kernel's mouth.
Failure harness_raised(const std::exception& e, const std::string& running);
/// "a, b, c".
std::string join(const std::vector<std::string>& v);
/// The bytes of the defined tensors.
size_t bytes_of(const std::vector<at::Tensor>& ts);
/// The request's tolerances, else the direction's, else none (kforge's per-dtype defaults).
std::optional<Tolerance> tolerance_of(const evaluation::WorkerRequest& request,
                                      const json::Value& dir);
std::vector<std::string> output_names_of(const json::Value& config);
/// The file the candidate's outputs of a config and seed are saved in, for the checker.
std::string outputs_file(const std::string& dir, size_t config, int seed);

}  // namespace kforge::worker
