// The verbs of kforge's actors: one CAF atom per verb, each at most 10 characters (CAF 0.17).
#pragma once

#include <caf/atom.hpp>

namespace kforge {

using propose_atom = caf::atom_constant<caf::atom("propose")>;
using verify_atom = caf::atom_constant<caf::atom("verify")>;
using compile_atom = caf::atom_constant<caf::atom("compile")>;
using export_atom = caf::atom_constant<caf::atom("export")>;
using evaluate_atom = caf::atom_constant<caf::atom("evaluate")>;
using profile_atom = caf::atom_constant<caf::atom("profile")>;
using record_atom = caf::atom_constant<caf::atom("record")>;
using update_atom = caf::atom_constant<caf::atom("update")>;
using load_atom = caf::atom_constant<caf::atom("load")>;
using list_atom = caf::atom_constant<caf::atom("list")>;
using query_atom = caf::atom_constant<caf::atom("query")>;
using status_atom = caf::atom_constant<caf::atom("status")>;
using progress_atom = caf::atom_constant<caf::atom("progress")>;
using submit_atom = caf::atom_constant<caf::atom("submit")>;
using pause_atom = caf::atom_constant<caf::atom("pause")>;
using resume_atom = caf::atom_constant<caf::atom("resume")>;
using stop_atom = caf::atom_constant<caf::atom("stop")>;
using state_atom = caf::atom_constant<caf::atom("state")>;
using subscribe_atom = caf::atom_constant<caf::atom("subscribe")>;
using event_atom = caf::atom_constant<caf::atom("event")>;
using done_atom = caf::atom_constant<caf::atom("done")>;
using device_atom = caf::atom_constant<caf::atom("device")>;
using tick_atom = caf::atom_constant<caf::atom("tick")>;
using judge_atom = caf::atom_constant<caf::atom("judge")>;
using charge_atom = caf::atom_constant<caf::atom("charge")>;
using profiled_atom = caf::atom_constant<caf::atom("profiled")>;
using setup_atom = caf::atom_constant<caf::atom("setup")>;
using meta_atom = caf::atom_constant<caf::atom("meta")>;
using confirm_atom = caf::atom_constant<caf::atom("confirm")>;
using join_atom = caf::atom_constant<caf::atom("join")>;
using nodes_atom = caf::atom_constant<caf::atom("nodes")>;

}  // namespace kforge
