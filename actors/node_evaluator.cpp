#include "actors/node_evaluator.hpp"

#include <filesystem>
#include <memory>

#include "common/log.hpp"
#include "evaluation/hashing.hpp"
#include "messages/errors.hpp"

namespace kforge {
namespace {

using self_ptr = node_evaluator_actor::stateful_pointer<node_evaluator_state>;
using promise_t = caf::typed_response_promise<eval_result>;

/// The node could not get as far as the evaluation: an error verdict in the node's words (the
/// candidate compiled on the daemon, so this is the node's failure, not the kernel's).
eval_result failed(self_ptr self, const eval_request& r, const std::string& why) {
  eval_result out;
  out.candidate_id = r.candidate_id;
  out.config_set = r.worker.mode;
  out.device = "node " + self->state.node;
  out.report = evaluation::WorkerReport::failed(EvalVerdict::error, kNodeFailureKind,
                                                "node " + self->state.node + ": " + why);
  log::warn("candidate " + std::to_string(r.candidate_id) + ": " + why +
            "; the daemon gives it to another evaluator and sends this one no more work until the "
            "node is started again");
  return out;
}

void finish(self_ptr self, promise_t promise, eval_result r) {
  self->state.stats.finished(r.report.verdict == EvalVerdict::error ? r.report.failure_message
                                                                    : std::string());
  promise.deliver(std::move(r));
}

/// The last step: the node's own evaluator on what the node built.
void evaluate(self_ptr self, promise_t promise, eval_request r, const export_result& exported,
              const evaluation::CompileResult& built) {
  r.worker.export_dir = exported.export_dir;
  r.worker.library = built.library_path;
  r.worker.compiled_dir = exported.compiled_dir;
  if (r.compiled_mode != "off" && exported.compiled_dir.empty())
    r.worker.compiled_unavailable =
        exported.compiled_error.empty() ? exported.compiled_note : exported.compiled_error;
  r.worker.outputs_dir.clear();
  self->request(self->state.evaluator, caf::infinite, evaluate_atom::value, r)
      .then(
          [self, promise](eval_result& result) mutable {
            result.device += " (node " + self->state.node + ")";
            finish(self, promise, std::move(result));
          },
          [self, promise, r](caf::error& e) mutable {
            finish(self, promise, failed(self, r, "its evaluator failed: " + describe(e)));
          });
}

/// Compiles the candidate for the node's device, then evaluates it.
void compile(self_ptr self, promise_t promise, eval_request r, export_result exported) {
  compile_request build = r.build;
  build.cuda_arch = self->state.device->cuda_arch;
  self->request(self->state.compiler, caf::infinite, compile_atom::value, build)
      .then(
          [self, promise, r, exported](candidate_compile& c) mutable {
            if (!c.result.ok)
              return finish(self, promise,
                            failed(self, r,
                                   "the candidate compiled on the daemon but not here: " +
                                       c.result.error.substr(0, 2000)));
            evaluate(self, promise, std::move(r), exported, c.result);
          },
          [self, promise, r](caf::error& e) mutable {
            finish(self, promise, failed(self, r, "its compiler pool failed: " + describe(e)));
          });
}

}  // namespace

Result<std::string> write_task_files(const std::string& root, const std::string& task_name,
                                     const std::map<std::string, std::string>& files) {
  namespace fs = std::filesystem;
  std::string digest_input;
  for (const auto& [path, content] : files) {
    const fs::path p(path);
    if (path.empty() || p.is_absolute())
      return Result<std::string>::failure("the task file name `" + path + "` is not relative");
    for (const auto& part : p)
      if (part == "..")
        return Result<std::string>::failure("the task file name `" + path +
                                            "` climbs out of the task folder");
    digest_input += sha256_hex(path) + sha256_hex(content);
  }
  if (task_name.empty() || task_name == "." || task_name == ".." ||
      task_name.find('/') != std::string::npos)
    return Result<std::string>::failure("the task name `" + task_name + "` is not a folder name");
  const fs::path dir = fs::path(root) / sha256_hex(digest_input).substr(0, 24) / task_name;
  std::error_code ec;
  for (const auto& [path, content] : files) {
    const fs::path target = dir / path;
    fs::create_directories(target.parent_path(), ec);
    if (auto error = evaluation::write_file_atomic(target.string(), content); !error.empty())
      return Result<std::string>::failure(error);
  }
  return {dir.string(), {}};
}

node_evaluator_actor::behavior_type node_evaluator_impl(
    node_evaluator_actor::stateful_pointer<node_evaluator_state> self, std::string node,
    std::string key, std::string tasks_dir, evaluator_actor evaluator, compiler_actor compiler) {
  auto& st = self->state;
  st.node = std::move(node);
  st.tasks = std::move(tasks_dir);
  st.evaluator = std::move(evaluator);
  st.compiler = std::move(compiler);
  st.stats = stage_stats("node evaluator " + key, "evaluator");
  return {
      [self](status_atom) { return self->state.stats.status(); },
      [self](device_atom) { return self->delegate(self->state.evaluator, device_atom::value); },
      [self](evaluate_atom, node_eval_request& nr) -> caf::result<eval_result> {
        auto& st = self->state;
        auto promise = self->make_response_promise<eval_result>();
        auto r = std::move(nr.eval);
        st.stats.started("candidate " + std::to_string(r.candidate_id));
        auto task_dir = write_task_files(st.tasks, r.tgt.task, nr.task_files);
        if (!task_dir) {
          finish(self, promise, failed(self, r, "its task files: " + task_dir.error));
          return promise;
        }
        // The export (cached by content on the node), the device (asked once), then the build.
        export_request ex{*task_dir, r.compiled_mode, r.build.backend, r.worker.mode};
        self->request(st.compiler, caf::infinite, export_atom::value, ex)
            .then(
                [self, promise, r](export_result& exported) mutable {
                  if (!exported.ok)
                    return finish(
                        self, promise,
                        failed(self, r,
                               "the task did not export here: " + exported.error.substr(0, 2000)));
                  if (self->state.device)
                    return compile(self, promise, std::move(r), std::move(exported));
                  self->request(self->state.evaluator, caf::infinite, device_atom::value)
                      .then(
                          [self, promise, r, exported](device_info& d) mutable {
                            if (!d.ok)
                              return finish(
                                  self, promise,
                                  failed(self, r, "its worker did not start: " + d.error));
                            self->state.device = d;
                            compile(self, promise, std::move(r), std::move(exported));
                          },
                          [self, promise, r](caf::error& e) mutable {
                            finish(self, promise,
                                   failed(self, r, "its evaluator failed: " + describe(e)));
                          });
                },
                [self, promise, r](caf::error& e) mutable {
                  finish(self, promise,
                         failed(self, r, "exporting the task failed: " + describe(e)));
                });
        return promise;
      },
  };
}

}  // namespace kforge
