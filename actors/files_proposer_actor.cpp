#include "actors/files_proposer_actor.hpp"

#include "actors/proposal_answer.hpp"
#include "common/json.hpp"
#include "messages/errors.hpp"
#include "proposers/kernel_files.hpp"
#include "search/population.hpp"

namespace kforge {

proposer_actor::behavior_type files_proposer_impl(
    proposer_actor::stateful_pointer<files_proposer_state> self) {
  return {
      [self](status_atom) { return self->state.stats.status(); },
      [self](propose_atom, propose_request& r) {
        proposal_answer answer(self->state.stats, r, "files");
        const auto files = proposers::kernel_files(
            r.kernel_pattern, {r.tgt.task_dir, r.tgt.task, r.tgt.direction, r.tgt.backend});
        if (files.empty())
          return answer.fail(search::ProposalFailure::unsupported,
                             "no kernel file matches " + r.kernel_pattern + " for " + r.tgt.key());
        for (const auto& path : files) {
          json::Value params;
          params.set("path", path);
          const std::string params_text = params.dump();
          if (std::find(r.tried.begin(), r.tried.end(),
                        search::proposal_key("file", params_text)) != r.tried.end())
            continue;
          std::string source = proposers::read_kernel_file(path);
          if (source.empty()) source = "// " + path + ": empty or unreadable\n";
          return answer.give(std::move(source), "file", params_text, "the kernel file " + path);
        }
        return answer.fail(search::ProposalFailure::exhausted,
                           r.tgt.key() + ": every kernel file was proposed");
      },
      [](meta_atom, const meta_request&) {
        meta_reply out;
        out.source = "files";
        out.failure = "the files proposer evaluates given kernels and follows no strategies";
        return out;
      },
  };
}

}  // namespace kforge
