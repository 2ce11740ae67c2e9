// task.json, the exporter's description of an exported task (its directions, configs and
// argument lists), read in one place for every reader of the host side: the export itself, the
// verifier, the built-in proposer and the prompts. A file is parsed once per process; it is
// parsed again only when it changed on disk (a forced re-export replaces it). The worker, a
// process of its own, reads its copy in evaluation/worker/task_cases.cpp.
#pragma once

#include <memory>
#include <string>

#include "common/json.hpp"
#include "common/result.hpp"

namespace kforge::tasks {

using TaskDocument = std::shared_ptr<const json::Value>;

/// `export_dir`/task.json, parsed; the error names the file and says why it cannot be read.
Result<TaskDocument> read_task_document(const std::string& export_dir);

/// The configs of one direction ("forward" or "backward"); an error when the export has none.
Result<json::Array> direction_configs(const json::Value& doc, const std::string& direction);

}  // namespace kforge::tasks
