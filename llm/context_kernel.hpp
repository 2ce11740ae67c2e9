// A kernel a prompt shows among a target's best: the optimise prompt its sequence, speedup,
// strategy and source; the meta-generation prompt also what its proposal was asked to try, its
// times and its profile; the built-in proposer its template's parameters. The one type from the
// experiment's records (actors/experiment_records.cpp) through the request to the prompt.
#pragma once

#include <cstdint>
#include <string>

namespace kforge::llm {

struct ContextKernel {
  int64_t sequence = 0;
  double speedup = 0;
  std::string strategy = {};  ///< what its proposer called it (the built-in: its template)
  std::string source = {};
  std::string params = "{}";  ///< the built-in template's parameters (JSON object)
  std::string asked = {};     ///< the optimisation strategy its proposal was asked to try
  std::string times = {};     ///< per config: its time and eager PyTorch's, one line each
  std::string profile = {};   ///< its profile, in brief
};

}  // namespace kforge::llm
