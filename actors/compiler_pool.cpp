#include "actors/compiler_pool.hpp"

#include <caf/event_based_actor.hpp>

#include <algorithm>
#include <limits>
#include <thread>

#include "evaluation/compiled_baseline.hpp"
#include "evaluation/compiler.hpp"
#include "evaluation/task_export.hpp"

namespace kforge {

compile_runner_actor::behavior_type compile_runner_impl(compiler_options options) {
  return {
      [options](compile_atom, compile_request& r) {
        evaluation::CompileOptions o;
        o.backend = r.backend;
        if (!r.cuda_arch.empty()) o.cuda_arch = r.cuda_arch;
        o.cache_dir = options.cache_dir;
        o.timeout = options.timeout;
        o.allow_unconfined = options.allow_unconfined;
        o.source_name = r.source_name;
        o.headers = r.headers;
        return candidate_compile{r.candidate_id, evaluation::compile_candidate(r.source, o)};
      },
      [options](export_atom, export_request& r) {
        evaluation::ExportOptions o;
        o.cache_dir = options.cache_dir;
        auto e = evaluation::export_task(r.task_dir, o);
        export_result out;
        out.ok = e.ok;
        out.export_dir = e.dir;
        out.error = e.error;
        for (const auto& [direction, doc] : e.doc["directions"].as_object()) {
          if (doc.contains("error"))
            out.failed_directions[direction] = doc["error"].as_string();
          else if (!doc.is_null())
            out.directions.push_back(direction);
        }
        // The torch.compile baseline, built once per task and kept beside its export; a task
        // without one is still evaluated, its configs say why there is no compiled time.
        if (e.ok && r.compiled_baseline != "off") {
          evaluation::CompiledBaselineOptions b;
          b.mode = r.compiled_baseline;
          b.backend = r.backend;
          b.config_set = r.config_set;
          // Up to `slots` builds run at once, each with Inductor's own pool of compile workers
          // (by default one per core, up to 32): their share of the cores instead. Seen: 42 builds
          // at once on 64 cores, default workers, about 235 s a task (KernelBench level 2); the
          // effect of this share is not measured yet.
          b.compile_threads = static_cast<int>(
              std::max(1u, std::thread::hardware_concurrency() / std::max(1u, options.slots)));
          // On a GPU of its own where there are several, and one large task a GPU at a time.
          evaluation::BaselineGpus::Lease gpu;
          if (options.baseline_gpus && r.backend == Backend::cuda) {
            gpu = options.baseline_gpus->acquire(evaluation::largest_config_bytes(e.doc));
            b.visible_devices = gpu.device();
          }
          auto built = evaluation::build_compiled_baseline(r.task_dir, e.dir, b);
          out.compiled_dir = built.dir;
          out.compiled_error = built.error;
          out.compiled_note = built.error.empty()
                                  ? evaluation::describe_compiled_baseline(built.doc)
                                  : "none: " + built.error;
        }
        return out;
      },
  };
}

compiler_actor::behavior_type compiler_pool_impl(
    compiler_actor::stateful_pointer<compiler_pool_state> self, compiler_options options) {
  auto& pool = self->state.pool;
  for (unsigned i = 0; i < std::max(1u, options.slots); ++i) {
    auto runner = self->system().spawn<caf::detached>(compile_runner_impl, options);
    self->link_to(runner);  // the slots end with the pool
    pool.add(runner);
  }
  return {
      [self](status_atom) { return self->state.pool.stats().status(); },
      [self](compile_atom, compile_request& r) {
        auto what = "candidate " + std::to_string(r.candidate_id);
        // A candidate that does not compile is a verdict, not a failure of the stage.
        auto error_of = [](const candidate_compile& c) {
          return c.result.ok || !c.result.log.empty() ? std::string() : c.result.error;
        };
        return relay<candidate_compile>(self, self->state.pool, std::move(what), std::nullopt,
                                        error_of, compile_atom::value, std::move(r));
      },
      [self](export_atom, export_request& r) {
        auto what = "export " + r.task_dir;
        auto error_of = [](const export_result& e) { return e.ok ? std::string() : e.error; };
        // Exports go first: every target of an experiment waits for them.
        return relay<export_result>(self, self->state.pool, std::move(what),
                                    std::numeric_limits<int64_t>::min(), error_of,
                                    export_atom::value, std::move(r));
      },
  };
}

}  // namespace kforge
