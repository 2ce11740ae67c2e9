// The one error enum of kforge's actors, registered with CAF under the category "kforge", so an
// error that crosses a process boundary still renders as text.
#pragma once

#include <caf/atom.hpp>
#include <caf/error.hpp>
#include <caf/make_message.hpp>

#include <cstdint>
#include <string>

namespace kforge {

enum class error_code : uint8_t {
  none = 0,
  bad_config,          ///< an experiment configuration is invalid (the context says where)
  unknown_experiment,  ///< no experiment with that id
  unknown_candidate,   ///< no candidate with that id
  archive_failure,     ///< the database refused a write or a read
  proposer_failure,    ///< a proposer failed; a missing candidate is said in the proposal instead
  export_failure,      ///< a task could not be exported
  invalid_request,     ///< a request is malformed or not allowed in the current state
  not_authorized,      ///< a node presented a token that is not the daemon's
};

std::string to_string(error_code code);

inline constexpr caf::atom_value error_category = caf::atom("kforge");

caf::error make_error(error_code code);
caf::error make_error(error_code code, std::string context);

/// The code and context string of a kforge error, or CAF's rendering of any other error.
std::string describe(const caf::error& e);
/// The context string alone (what went wrong, in words), or describe(e) where there is none.
std::string context_text(const caf::error& e);

}  // namespace kforge
