// The stages a candidate passes, and what an evaluation decides. Messages, the pipeline, the
// planner and the worker's report use these values; the archive and events keep their names.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace kforge {

enum class Stage : uint8_t {
  none,        ///< no stage: nothing failed, or nothing was decided yet
  verify,      ///< the static verifier
  llm_verify,  ///< the LLM verifiers' panel
  compile,
  evaluate,
  profile,
};

/// "verify", "llm_verify", "compile", "evaluate", "profile", or "" for none.
std::string to_string(Stage s);

/// The stage a name gives ("" gives none), or nothing for an unknown name.
std::optional<Stage> parse_stage(std::string_view name);

/// What the worker decided of a candidate that ran.
enum class EvalVerdict : uint8_t {
  correct,    ///< every config matched the reference
  incorrect,  ///< a config did not (a wrong output, a flagged exploit, a crash of the kernel)
  error,      ///< the infrastructure failed: nothing was judged
};

/// "correct", "incorrect" or "error".
std::string to_string(EvalVerdict v);

/// The verdict a name gives, or nothing for an unknown name.
std::optional<EvalVerdict> parse_eval_verdict(std::string_view name);

}  // namespace kforge
