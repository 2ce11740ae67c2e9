#include "common/stage.hpp"

namespace kforge {

std::string to_string(Stage s) {
  switch (s) {
    case Stage::none:
      return "";
    case Stage::verify:
      return "verify";
    case Stage::llm_verify:
      return "llm_verify";
    case Stage::compile:
      return "compile";
    case Stage::evaluate:
      return "evaluate";
    case Stage::profile:
      return "profile";
  }
  return "";
}

std::optional<Stage> parse_stage(std::string_view name) {
  for (auto s : {Stage::none, Stage::verify, Stage::llm_verify, Stage::compile, Stage::evaluate,
                 Stage::profile})
    if (to_string(s) == name) return s;
  return std::nullopt;
}

std::string to_string(EvalVerdict v) {
  switch (v) {
    case EvalVerdict::correct:
      return "correct";
    case EvalVerdict::incorrect:
      return "incorrect";
    case EvalVerdict::error:
      return "error";
  }
  return "error";
}

std::optional<EvalVerdict> parse_eval_verdict(std::string_view name) {
  for (auto v : {EvalVerdict::correct, EvalVerdict::incorrect, EvalVerdict::error})
    if (to_string(v) == name) return v;
  return std::nullopt;
}

}  // namespace kforge
