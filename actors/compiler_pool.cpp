#include "actors/compiler_pool.hpp"

#include <caf/event_based_actor.hpp>

#include "gpu/compiled_baseline.hpp"
#include "gpu/compiler.hpp"
#include "gpu/profile_summary.hpp"
#include "gpu/task_export.hpp"

namespace kforge {
namespace {

std::string resources_json(const std::string& log) {
  json::Value list;
  list.array();
  for (const auto& k : gpu::parse_ptxas_report(log)) {
    json::Value v;
    v.set("name", k.name).set("registers", k.registers).set("shared_bytes", k.shared_bytes);
    v.set("spill_store_bytes", k.spill_store_bytes).set("spill_load_bytes", k.spill_load_bytes);
    list.push(v);
  }
  return list.dump();
}

void dispatch(compiler_actor::stateful_pointer<compiler_pool_state> self) {
  auto& st = self->state;
  for (size_t slot = 0; slot < st.runners.size() && !st.queue.empty(); ++slot) {
    if (st.busy[slot]) continue;
    auto job = std::move(st.queue.front());
    st.queue.pop_front();
    st.busy[slot] = true;
    st.stats.set_queued(static_cast<int64_t>(st.queue.size()));
    auto release = [self, slot](const std::string& error) {
      self->state.busy[slot] = false;
      self->state.stats.finished(error);
      dispatch(self);
    };
    if (job.is_export) {
      st.stats.started("export " + job.exported.task_dir);
      auto promise = job.export_promise;
      self->request(st.runners[slot], caf::infinite, export_atom::value, job.exported)
          .then(
              [promise, release](export_result& r) mutable {
                release(r.ok ? std::string() : r.error);
                promise.deliver(std::move(r));
              },
              [promise, release](caf::error& e) mutable {
                release(caf::to_string(e));
                promise.deliver(std::move(e));
              });
    } else {
      st.stats.started("candidate " + std::to_string(job.compile.candidate_id));
      auto promise = job.compile_promise;
      self->request(st.runners[slot], caf::infinite, compile_atom::value, job.compile)
          .then(
              [promise, release](compile_result& r) mutable {
                // A candidate that does not compile is a verdict, not a failure of the stage.
                release(r.ok || !r.log.empty() ? std::string() : r.error);
                promise.deliver(std::move(r));
              },
              [promise, release](caf::error& e) mutable {
                release(caf::to_string(e));
                promise.deliver(std::move(e));
              });
    }
  }
}

}  // namespace

compile_runner_actor::behavior_type compile_runner_impl(compiler_options options) {
  return {
      [options](compile_atom, compile_request& r) {
        gpu::CompileOptions o;
        o.backend = gpu::parse_backend(r.backend).value_or(gpu::Backend::cpu);
        if (!r.cuda_arch.empty()) o.cuda_arch = r.cuda_arch;
        o.cache_dir = options.cache_dir;
        o.timeout = options.timeout;
        o.allow_unconfined = options.allow_unconfined;
        o.source_name = r.source_name;
        o.headers = gpu::parse_headers(r.headers).value_or(gpu::Headers::automatic);
        auto c = gpu::compile_candidate(r.source, o);
        compile_result out;
        out.candidate_id = r.candidate_id;
        out.ok = c.ok;
        out.cache_hit = c.cache_hit;
        out.library_path = c.library_path;
        out.log = c.log;
        out.error = c.error;
        out.seconds = c.seconds;
        out.headers = c.headers;
        out.light_error = c.light_error;
        out.resources_json = o.backend == gpu::Backend::cuda ? resources_json(c.log) : "[]";
        return out;
      },
      [options](export_atom, export_request& r) {
        gpu::ExportOptions o;
        o.cache_dir = options.cache_dir;
        auto e = gpu::export_task(r.task_dir, o);
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
          gpu::CompiledBaselineOptions b;
          b.mode = r.compiled_baseline;
          b.backend = gpu::parse_backend(r.backend).value_or(gpu::Backend::cpu);
          b.config_set = r.config_set;
          auto built = gpu::build_compiled_baseline(r.task_dir, e.dir, b);
          out.compiled_dir = built.dir;
          out.compiled_error = built.error;
          out.compiled_note = built.error.empty() ? gpu::describe_compiled_baseline(built.doc)
                                                  : "none: " + built.error;
        }
        return out;
      },
  };
}

compiler_actor::behavior_type compiler_pool_impl(
    compiler_actor::stateful_pointer<compiler_pool_state> self, compiler_options options) {
  for (unsigned i = 0; i < std::max(1u, options.slots); ++i) {
    auto runner = self->system().spawn<caf::detached>(compile_runner_impl, options);
    self->link_to(runner);  // the slots end with the pool
    self->state.runners.push_back(runner);
    self->state.busy.push_back(false);
  }
  return {
      [self](status_atom) { return self->state.stats.status(); },
      [self](compile_atom, compile_request& r) {
        compiler_pool_state::job j;
        j.compile = std::move(r);
        j.compile_promise = self->make_response_promise<compile_result>();
        auto promise = j.compile_promise;
        self->state.queue.push_back(std::move(j));
        self->state.stats.set_queued(static_cast<int64_t>(self->state.queue.size()));
        dispatch(self);
        return promise;
      },
      [self](export_atom, export_request& r) {
        compiler_pool_state::job j;
        j.is_export = true;
        j.exported = std::move(r);
        j.export_promise = self->make_response_promise<export_result>();
        auto promise = j.export_promise;
        // Exports go first: every target of an experiment waits for them.
        self->state.queue.push_front(std::move(j));
        self->state.stats.set_queued(static_cast<int64_t>(self->state.queue.size()));
        dispatch(self);
        return promise;
      },
  };
}

}  // namespace kforge
