// The prompts kforge sends to LLMs. Their text lives in llm/prompts/*.md (embedded at build
// time); this file fills their {{placeholders}} from a task, a parent kernel, its profile and the
// archive's best kernels, for proposers (translate, optimise, fix) and verifiers (compilation,
// memory safety, numerical correctness).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "llm/chat.hpp"
#include "llm/context_kernel.hpp"
#include "search/proposal_mode.hpp"
#include "search/strategy_record.hpp"

namespace kforge::llm {

/// Fills every {{name}} of `text`; an unknown name is an error (returns nothing).
Result<std::string> render_prompt(const std::string& text,
                                  const std::map<std::string, std::string>& values);

/// The embedded prompt file `name` ("optimise.md"); empty when there is none.
const std::string& prompt_file(const std::string& name);

/// What a prompt says about the task: read from its folder and its export.
struct TaskBrief {
  std::string task;
  std::string direction;  ///< "forward" or "backward"
  std::string backend;    ///< "cuda" or "cpu"
  std::string reference_source;
  std::string signature;  ///< one line per argument, of the first config
  std::string configs;    ///< one line per config of the set judged
};

/// Reads `func_<direction>.py` from the task folder and the argument lists from the export's
/// task.json; `config_set` is "single" or "multi".
Result<TaskBrief> load_task_brief(const std::string& task_dir, const std::string& export_dir,
                                  const std::string& direction, const std::string& backend,
                                  const std::string& config_set);

struct ProposalInputs {
  search::ProposalMode mode = search::ProposalMode::translate;
  TaskBrief task;
  std::string parent_source;
  double parent_speedup = 0;
  std::string parent_profile;
  std::vector<ContextKernel> context;  ///< least to most fast
  std::string strategy;
  std::string failed_source;
  std::string failure_stage;
  std::string failure_log;
};

Result<std::vector<Message>> proposal_messages(const ProposalInputs& inputs);

struct MetaInputs {
  TaskBrief task;
  std::vector<ContextKernel> best;  ///< least to most fast, with their times and profiles
  std::vector<search::StrategyRecord> records;
  int count = 4;
};

/// The meta-generation prompt: new optimisation strategies from the best kernels so far.
Result<std::vector<Message>> meta_messages(const MetaInputs& inputs);

struct AdviceInputs {
  TaskBrief task;
  std::string source;
  double speedup = 0;
  std::string times;    ///< one line per config
  std::string profile;  ///< the profile's JSON
  int count = 4;
};

/// The profile-advice prompt: a few recommendations for a profiled kernel.
Result<std::vector<Message>> advice_messages(const AdviceInputs& inputs);

/// The verifier checks: "compilation", "memory_safety", "numerics".
const std::vector<std::string>& verifier_checks();
Result<std::vector<Message>> verifier_messages(const std::string& check, const TaskBrief& task,
                                               const std::string& candidate_source);

}  // namespace kforge::llm
