#include "actors/files_proposer_actor.hpp"

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
        auto& st = self->state;
        st.stats.started(r.tgt.key() + " #" + std::to_string(r.sequence));
        proposal out;
        out.proposer = "files";
        auto failed = [&](search::ProposalFailure kind, std::string why) {
          st.stats.finished();
          out.failure_kind = kind;
          out.failure = std::move(why);
          return out;
        };
        const auto files = proposers::kernel_files(
            r.kernel_pattern, {r.tgt.task_dir, r.tgt.task, r.tgt.direction, r.tgt.backend});
        if (files.empty())
          return failed(search::ProposalFailure::unsupported,
                        "no kernel file matches " + r.kernel_pattern + " for " + r.tgt.key());
        for (const auto& path : files) {
          json::Value params;
          params.set("path", path);
          const std::string params_text = params.dump();
          if (std::find(r.tried.begin(), r.tried.end(),
                        search::proposal_key("file", params_text)) != r.tried.end())
            continue;
          st.stats.finished();
          out.source = proposers::read_kernel_file(path);
          if (out.source.empty()) out.source = "// " + path + ": empty or unreadable\n";
          out.strategy = "file";
          out.params = params_text;
          out.rationale = "the kernel file " + path;
          return out;
        }
        return failed(search::ProposalFailure::exhausted,
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
