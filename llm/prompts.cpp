#include "llm/prompts.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "common/json.hpp"
#include "common/task_document.hpp"
#include "common/task_signature.hpp"

namespace kforge::llm {

// Generated from llm/prompts/*.md by cmake/EmbedTextFiles.cmake.
const std::vector<std::pair<std::string, std::string>>& embedded_prompts();

namespace {

std::string number_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

std::string shape_text(const json::Value& shape) {
  std::string out = "[";
  for (const auto& d : shape.as_array())
    out += (out.size() > 1 ? ", " : "") + std::to_string(d.as_int());
  return out + "]";
}

std::string argument_line(const json::Value& arg) {
  const auto& kind = arg["kind"].as_string();
  std::string line = "- `" + arg["name"].as_string() + "`: ";
  if (kind == "none") return line + "None (pass-through optional, always None here)";
  if (kind == "scalar") return line + arg["type"].as_string() + " scalar = " + arg["value"].dump();
  if (kind == "int_list") return line + "integer list " + arg["value"].dump();
  return line + kind + " tensor " + arg["dtype"].as_string() + " " + shape_text(arg["shape"]);
}

std::string backend_rules(const std::string& backend) {
  if (backend == "cuda")
    return "This is the CUDA backend (an NVIDIA Hopper GPU, sm_90): tensors are on the GPU; launch "
           "on `at::cuda::getCurrentCUDAStream()` (include <ATen/cuda/CUDAContext.h>) and check "
           "for launch errors.";
  return "This is the CPU backend: tensors are on the CPU; write plain C++ (no CUDA), single "
         "threaded; loops the compiler can vectorise are welcome.";
}

std::string trimmed_log(const std::string& log) {
  constexpr size_t kMax = 6000;  // the end of a compiler log says the most
  if (log.size() <= kMax) return log;
  return "[... " + std::to_string(log.size() - kMax) + " characters cut ...]\n" +
         log.substr(log.size() - kMax);
}

}  // namespace

Result<std::string> render_prompt(const std::string& text,
                                  const std::map<std::string, std::string>& values) {
  std::string out;
  size_t pos = 0;
  while (true) {
    auto open = text.find("{{", pos);
    if (open == std::string::npos) break;
    auto close = text.find("}}", open);
    if (close == std::string::npos)
      return Result<std::string>::failure("prompt: unclosed {{ at offset " + std::to_string(open));
    std::string name = text.substr(open + 2, close - open - 2);
    auto it = values.find(name);
    if (it == values.end())
      return Result<std::string>::failure("prompt: no value for {{" + name + "}}");
    out.append(text, pos, open - pos);
    out += it->second;
    pos = close + 2;
  }
  out.append(text, pos, std::string::npos);
  return {std::move(out), {}};
}

namespace {

/// A system and a user message, both prompts filled from `values`.
Result<std::vector<Message>> chat_messages(const std::string& system_prompt,
                                           const std::string& user_prompt,
                                           const std::map<std::string, std::string>& values) {
  auto system = render_prompt(system_prompt, values);
  if (!system) return Result<std::vector<Message>>::failure(system.error);
  auto user = render_prompt(user_prompt, values);
  if (!user) return Result<std::vector<Message>>::failure(user.error);
  return {std::vector<Message>{{"system", *system}, {"user", *user}}, {}};
}

}  // namespace

const std::string& prompt_file(const std::string& name) {
  static const std::string none;
  for (const auto& [file, text] : embedded_prompts())
    if (file == name) return text;
  return none;
}

Result<TaskBrief> load_task_brief(const std::string& task_dir, const std::string& export_dir,
                                  const std::string& direction, const std::string& backend,
                                  const std::string& config_set) {
  TaskBrief brief;
  brief.direction = direction;
  brief.backend = backend;
  std::ifstream py(task_dir + "/func_" + direction + ".py");
  if (!py)
    return Result<TaskBrief>::failure("cannot read " + task_dir + "/func_" + direction + ".py");
  std::ostringstream source;
  source << py.rdbuf();
  brief.reference_source = source.str();
  auto doc = tasks::read_task_document(export_dir);
  if (!doc) return Result<TaskBrief>::failure(doc.error);
  brief.task = (**doc)["task"].as_string();
  auto listed = tasks::direction_configs(**doc, direction);
  if (!listed) return Result<TaskBrief>::failure(task_dir + ": " + listed.error);
  const auto& configs = *listed;
  if (direction == "backward") {
    // What backward receives and which gradient each output must be.
    brief.signature = tasks::describe_contract(configs[0], direction);
  } else {
    for (const auto& arg : configs[0]["args"].as_array())
      brief.signature += argument_line(arg) + "\n";
  }
  for (const auto& config : configs) {
    bool judged = false;
    for (const auto& mode : config["modes"].as_array()) judged |= mode.as_string() == config_set;
    if (!judged) continue;
    std::string shapes;
    for (const auto& arg : config["args"].as_array())
      if (arg["shape"].is_array())
        shapes +=
            (shapes.empty() ? "" : ", ") + arg["name"].as_string() + " " + shape_text(arg["shape"]);
    brief.configs += "- " + config["name"].as_string() + ": " + shapes + "\n";
  }
  return {std::move(brief), {}};
}

Result<std::vector<Message>> proposal_messages(const ProposalInputs& in) {
  const std::string entry = in.task.direction == "backward" ? "backward" : "forward";
  std::map<std::string, std::string> values = {
      {"entry", entry},
      {"backend", in.task.backend},
      {"backend_rules", backend_rules(in.task.backend)},
      {"task", in.task.task},
      {"direction", in.task.direction},
      {"reference_source", in.task.reference_source},
      {"signature", in.task.signature},
      {"configs", in.task.configs},
  };
  std::string file;
  if (in.mode == search::ProposalMode::translate) {
    file = "translate.md";
  } else if (in.mode == search::ProposalMode::optimise) {
    file = "optimise.md";
    std::string context;
    for (const auto& k : in.context)
      context += "\n### candidate " + std::to_string(k.sequence) + ": " + number_text(k.speedup) +
                 "x (" + k.strategy + ")\n```cpp\n" + k.source + "\n```\n";
    values["context"] = context.empty() ? "(none yet besides the kernel below)" : context;
    values["parent_source"] = in.parent_source;
    values["parent_speedup"] = number_text(in.parent_speedup);
    values["parent_profile"] = in.parent_profile.empty() ? "(not profiled)" : in.parent_profile;
    values["strategy"] = in.strategy.empty() ? "your choice" : in.strategy;
  } else {
    file = "fix.md";
    values["failed_source"] = in.failed_source;
    values["failure_stage"] = in.failure_stage;
    values["failure_log"] = trimmed_log(in.failure_log);
  }
  return chat_messages(prompt_file("proposer_system.md"), prompt_file(file), values);
}

Result<std::vector<Message>> meta_messages(const MetaInputs& in) {
  std::string best;
  for (const auto& k : in.best) {
    best += "\n### candidate " + std::to_string(k.sequence) + ": " + number_text(k.speedup) +
            "x (" + k.strategy + ")\n";
    if (!k.asked.empty()) best += "Asked to try: " + k.asked + "\n";
    if (!k.times.empty()) best += "Times:\n" + k.times;
    best += "Profile: " + (k.profile.empty() ? std::string("(not profiled)") : k.profile) + "\n";
    best += "```cpp\n" + k.source + "\n```\n";
  }
  std::string records;
  for (const auto& r : in.records)
    records += "- " + r.text + " [" + r.source + "]: tried " + std::to_string(r.tried) +
               ", correct " + std::to_string(r.correct) + ", faster " + std::to_string(r.improved) +
               ", best gain " +
               (r.best_gain > 0 ? number_text(r.best_gain) + "x" : std::string("none")) + "\n";
  std::map<std::string, std::string> values = {
      {"backend", in.task.backend},
      {"task", in.task.task},
      {"direction", in.task.direction},
      {"reference_source", in.task.reference_source},
      {"configs", in.task.configs},
      {"count", std::to_string(in.count)},
      {"best", best.empty() ? "(no correct kernel yet)" : best},
      {"records", records.empty() ? "(none)" : records},
  };
  return chat_messages(prompt_file("meta_system.md"), prompt_file("meta_generate.md"), values);
}

Result<std::vector<Message>> advice_messages(const AdviceInputs& in) {
  std::map<std::string, std::string> values = {
      {"backend", in.task.backend},
      {"task", in.task.task},
      {"direction", in.task.direction},
      {"reference_source", in.task.reference_source},
      {"speedup", number_text(in.speedup)},
      {"times", in.times.empty() ? "(not timed)\n" : in.times},
      {"profile", in.profile},
      {"source", in.source},
      {"count", std::to_string(in.count)},
  };
  return chat_messages(prompt_file("advice_system.md"), prompt_file("profile_advice.md"), values);
}

const std::vector<std::string>& verifier_checks() {
  static const std::vector<std::string> checks = {"compilation", "memory_safety", "numerics"};
  return checks;
}

Result<std::vector<Message>> verifier_messages(const std::string& check, const TaskBrief& task,
                                               const std::string& candidate_source) {
  const auto& checks = verifier_checks();
  if (std::find(checks.begin(), checks.end(), check) == checks.end())
    return Result<std::vector<Message>>::failure("prompt: unknown verifier check \"" + check +
                                                 "\"");
  std::map<std::string, std::string> values = {
      {"entry", task.direction == "backward" ? "backward" : "forward"},
      {"backend", task.backend},
      {"reference_source", task.reference_source},
      {"signature", task.signature},
      {"configs", task.configs},
      {"candidate_source", candidate_source},
  };
  return chat_messages(prompt_file("verifier_system.md"), prompt_file("verify_" + check + ".md"),
                       values);
}

}  // namespace kforge::llm
