// The archive actor: owns the SQLite archive and answers every write only after it committed, so
// whoever reports a result has it on disk first. It runs on its own thread (SQLite blocks).
#pragma once

#include <memory>

#include "actors/stage_stats.hpp"
#include "archive/archive.hpp"
#include "messages/interfaces.hpp"

namespace kforge {

struct archive_state {
  std::shared_ptr<archive::Archive> db;
  stage_stats stats{"archive", "archive"};
  static inline const char* name = "kforge.archive";
};

/// An evaluation's reason as its final verdict keeps it: the failure and any flags.
std::string evaluation_reason(const eval_result& r);
/// A failed check as a fix prompt shows it, the same whether it comes from the evaluation in this
/// process or from the archive after a restart.
std::string failure_text(const std::string& kind, const std::string& reason);

archive_actor::behavior_type archive_actor_impl(archive_actor::stateful_pointer<archive_state> self,
                                                std::shared_ptr<archive::Archive> db);

}  // namespace kforge
