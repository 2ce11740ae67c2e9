#include "actors/files_proposer_actor.hpp"

#include <glob.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/json.hpp"
#include "gpu/source_check.hpp"
#include "messages/errors.hpp"
#include "search/population.hpp"

namespace kforge {
namespace {

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

/// At most `limit` bytes of a file (the verifier rejects what is larger anyway).
std::string read_prefix(const std::string& path, size_t limit) {
  std::ifstream in(path, std::ios::binary);
  std::string text(limit, '\0');
  in.read(text.data(), static_cast<std::streamsize>(limit));
  text.resize(static_cast<size_t>(in.gcount()));
  return text;
}

constexpr size_t kMaxKernelBytes = 4 << 20;

}  // namespace

std::vector<std::string> kernel_files(const std::string& pattern, const target& t) {
  std::string expanded = replace_all(pattern, "{task}", t.task_dir);
  expanded = replace_all(expanded, "{name}", t.task);
  expanded = replace_all(expanded, "{direction}", t.direction);
  expanded = replace_all(expanded, "{backend}", t.backend);
  glob_t found{};
  std::vector<std::string> out;
  if (glob(expanded.c_str(), 0, nullptr, &found) == 0) {
    for (size_t i = 0; i < found.gl_pathc; ++i) {
      const std::string path = found.gl_pathv[i];
      if (!std::filesystem::is_regular_file(path)) continue;
      const bool cuda_file = std::filesystem::path(path).extension() == ".cu";
      if (cuda_file != (t.backend == "cuda")) continue;
      if (pattern.find("{direction}") == std::string::npos) {
        const auto names = gpu::registered_functions(read_prefix(path, kMaxKernelBytes));
        auto has = [&](const char* n) { return std::count(names.begin(), names.end(), n) > 0; };
        const bool fits = has(t.direction.c_str()) ||
                          (t.direction == "forward" && !has("forward") && !has("backward"));
        if (!fits) continue;
      }
      out.push_back(std::filesystem::absolute(path).lexically_normal().string());
    }
  }
  globfree(&found);
  std::sort(out.begin(), out.end());
  return out;
}

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
        const auto files = kernel_files(r.kernel_pattern, r.tgt);
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
          out.source = read_prefix(path, kMaxKernelBytes);
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
