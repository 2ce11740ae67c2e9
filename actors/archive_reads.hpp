// What the archive actor answers from the archive: an experiment's snapshot (what a resumed
// experiment starts from), the list of experiments, the JSON views the daemon and console query,
// and a cached LLM reply. A read that fails is an error reply, never an empty answer: a resume
// that took a failed read for "no candidates" would start the experiment over.
#pragma once

#include <string>
#include <vector>

#include "archive/archive.hpp"
#include "messages/interfaces.hpp"

namespace kforge {

caf::result<experiment_snapshot> archived_snapshot(archive::Archive& db, int64_t experiment_id);
/// Every experiment (newest first), or those with `status` (oldest first).
caf::result<std::vector<experiment_record>> archived_experiments(archive::Archive& db,
                                                                 const std::string& status);
/// A view by name (archive/views.hpp, archive/report.hpp) as JSON text.
caf::result<std::string> answer_query(archive::Archive& db, const query_request& q);
caf::result<reply_lookup> archived_reply(archive::Archive& db, const std::string& key);

}  // namespace kforge
