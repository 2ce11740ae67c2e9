// The built-in proposer: needs no LLM. For a task direction whose op family it recognises, it
// proposes instances of its parameterised templates (proposers/builtin/templates/); for any task
// whose graph the kernel generator (generator/) lowers, generated kernels, whose choices (block
// shape, threads per reduced row) are one more space of parameters. First each space's defaults,
// then mutations of a parent's parameters (the move its strategy names, or one or two of them moved
// to a neighbouring value, sometimes anywhere), then untried points at random; never a combination
// already tried. Every choice draws from the request's seeded stream.
#pragma once

#include <cstdint>
#include <set>
#include <string>

#include "common/json.hpp"
#include "search/proposal_mode.hpp"

namespace kforge::builtin {

struct BuiltinRequest {
  std::string backend;        ///< "cpu" or "cuda"
  /// The task's export folder: the kernel generator reads the graphs recorded there (none: no
  /// generated kernels).
  std::string export_dir;
  /// Whether the experiment's policy lets a kernel call libraries (generated kernels may then call
  /// cuBLAS and cuDNN for their matrix products and convolutions).
  bool library_calls = false;
  /// Whether it also prefers them: the generator's first kernel calls the libraries.
  bool library_first = false;
  std::string direction;      ///< "forward" or "backward"
  json::Value direction_doc;  ///< task.json's directions[direction]
  uint64_t seed = 0;
  search::ProposalMode mode = search::ProposalMode::translate;  ///< never fix
  bool has_parent = false;
  std::string parent_strategy;  ///< the parent's template name
  std::string parent_params;    ///< JSON object
  std::set<std::string> tried;  ///< search::proposal_key() of every earlier proposal for the target
  /// search::source_digest() of every earlier proposal's source for the target: a point whose
  /// kernel is one of them is passed over (none: every point is rendered only when proposed).
  std::set<std::string> tried_sources;
  /// The optimisation strategy to follow (builtin_strategies.hpp); any other text, or none, is
  /// the random mutation.
  std::string strategy;
};

struct BuiltinProposal {
  bool ok = false;
  bool exhausted = false;    ///< every combination of every applicable template was tried
  bool unsupported = false;  ///< no template implements the target: asking again cannot help
  std::string error;         ///< why not, when !ok
  std::string source;
  std::string strategy;  ///< the template's name (`generated_cuda` for the generator)
  std::string params;    ///< JSON object of the parameter values
  std::string rationale;
  bool from_parent = false;  ///< a mutation of the request's parent
};

BuiltinProposal propose_builtin(const BuiltinRequest& request);

}  // namespace kforge::builtin
