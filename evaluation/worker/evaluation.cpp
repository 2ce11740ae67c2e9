#include "evaluation/worker/evaluation.hpp"

#include <utility>

#include "evaluation/worker/candidate_library.hpp"
#include "evaluation/worker/evaluation_support.hpp"
#include "evaluation/worker/saved_outputs.hpp"
#include "evaluation/worker_request.hpp"

namespace kforge::worker {

using evaluation::WorkerRequest;

void Evaluator::step(evaluation::Stage stage, const std::string& what, std::optional<size_t> config,
                     std::optional<int> seed, std::optional<double> planned_s) {
  sink_(evaluation::step_event(stage, what, config, seed, planned_s));
}

Result<ExportedTask*> Evaluator::task(const std::string& export_dir) {
  auto it = tasks_.find(export_dir);
  if (it != tasks_.end()) return {it->second.get(), {}};
  auto loaded = ExportedTask::load(export_dir);
  if (!loaded) return Result<ExportedTask*>::failure(loaded.error);
  return {tasks_.emplace(export_dir, std::move(*loaded)).first->second.get(), {}};
}

CompiledBaseline* Evaluator::compiled(const std::string& dir) {
  if (dir.empty()) return nullptr;
  auto it = baselines_.find(dir);
  if (it == baselines_.end())
    it = baselines_.emplace(dir, std::make_unique<CompiledBaseline>(dir, device_.torch_device()))
             .first;
  return it->second.get();
}

json::Value Evaluator::evaluate(const json::Value& request_doc) {
  // The worker's answer on its pipe: the report, as the host reads it back.
  // Out of device memory: where the memory was, so the host can tell a kernel that needs too much
  // from a GPU that other processes had filled (evaluation::crowded_out_of_memory).
  auto answer = [this](const evaluation::WorkerReport& report) {
    auto result = report.to_json().set("event", "result");
    if (report.failure_kind == "out_of_memory")
      if (auto memory = device_.memory_use(); !memory.is_null())
        result.set("device_memory", std::move(memory));
    return result;
  };
  auto fail = [&](const Failure& f) {
    return answer(evaluation::WorkerReport::failed(EvalVerdict::incorrect, f.kind, f.message));
  };
  auto infra = [&](const std::string& message) {
    return answer(evaluation::WorkerReport::failed(EvalVerdict::error, "infrastructure", message));
  };

  const auto r = WorkerRequest::from_json(request_doc);
  step(evaluation::Stage::load_task, "load task");
  auto found = task(r.export_dir);
  if (!found) return infra(found.error);
  ExportedTask* t = *found;
  const auto& dir = t->direction(r.direction);
  if (dir.is_null())
    return infra("the task has no " + r.direction + " direction (no func_" + r.direction + ".py)");
  if (dir.contains("error"))
    return infra("the task's " + r.direction +
                 " direction cannot be exported: " + dir["error"].as_string());
  if (evaluation::selected_configs(dir["configs"], r).empty())
    return infra("no config of the task is in mode `" + r.mode + "`");
  // What kforge itself could fail at is tried before candidate code runs here: after that, an
  // error this worker reports could be a line the candidate wrote, and counts against it.
  if (!r.outputs_dir.empty()) {
    try {
      save_outputs({}, r.outputs_dir + "/probe.out");
    } catch (const std::exception& e) {
      return infra("cannot save outputs for the checker in " + r.outputs_dir + ": " +
                   short_what(e));
    }
  }
  CompiledBaseline* baseline = compiled(r.compiled_dir);

  threads_.begin_evaluation();
  step(evaluation::Stage::load_candidate, "load the candidate");
  auto loaded = CandidateLibrary::load(r.library);
  if (!loaded) return fail(Failure{"load_error", loaded.error});
  if (auto escaped = threads_.after_candidate()) return fail(*escaped);
  auto library = std::move(*loaded);
  if (!library->interposed().empty())
    return fail(Failure{"symbol_interposition",
                        "the kernel defines or rebinds functions the worker times and "
                        "synchronises with: " +
                            join(library->interposed())});
  const ext::Function* fn = library->find(r.function);
  if (!fn) {
    auto names = library->function_names();
    return fail(Failure{"missing_function",
                        "the kernel registers no `" + r.function + "` (it registers: " +
                            (names.empty() ? std::string("nothing") : join(names)) + ")"});
  }
  CandidateRun run(WorkerState{device_, sink_, counter_costs_, threads_}, r, *t, dir, *fn,
                   baseline);
  return answer(run.run());
}

json::Value Evaluator::check(const json::Value& request_doc) {
  json::Value result;
  result.set("event", "result");
  auto verdict = [&](const std::string& v, const Failure& f) {
    result.set("verdict", v).set("failure", failure_json(f));
    return result;
  };
  const auto r = WorkerRequest::from_json(request_doc);
  const std::string& direction = r.direction;
  const int seeds = r.seeds;
  const uint64_t base_seed = r.seed;
  const std::string& outputs_dir = r.outputs_dir;
  step(evaluation::Stage::load_task, "load task");
  auto found = task(r.export_dir);
  if (!found) return verdict("error", Failure{"infrastructure", found.error});
  ExportedTask* t = *found;
  const auto& dir = t->direction(direction);
  if (dir.is_null() || dir.contains("error"))
    return verdict("error",
                   Failure{"infrastructure", "the task has no usable " + direction + " direction"});
  const auto tolerance = tolerance_of(r, dir);
  const at::Device dev = device_.torch_device();
  int64_t checked = 0;
  for (size_t index : evaluation::selected_configs(dir["configs"], r)) {
    const auto& config = dir["configs"][index];
    for (int s = 0; s < seeds; ++s) {
      const std::string where = "config " + std::to_string(index) + " seed " + std::to_string(s);
      const std::string file = outputs_file(outputs_dir, index, s);
      auto saved = load_outputs(file, dev.is_cuda());
      if (!saved)
        return verdict("incorrect",
                       Failure{"unverified_output",
                               "the worker saved no readable outputs of the kernel for " + where +
                                   " (" + saved.error +
                                   "), so its report of a correct result did not come from the "
                                   "evaluation (a forged result line or a patched worker)"});
      std::vector<at::Tensor> got = std::move(*saved);
      step(evaluation::Stage::checker_reference, where + ": reference (checker)", index, s);
      Case c = t->draw(config, mix_seed(base_seed + static_cast<uint64_t>(s), index), dev);
      auto want = t->reference(config, c);
      step(evaluation::Stage::checker_compare, where + ": compare (checker)", index, s);
      for (auto& g : got) g = g.to(dev);
      auto cmp = compare_outputs(got, want, tolerance, output_names_of(config),
                                 [&] { return t->reference_in_double(config, c); });
      if (cmp.failure) {
        Failure f = *cmp.failure;
        f.message = where + ": " + f.message;
        return verdict("incorrect", f);
      }
      ++checked;
    }
  }
  result.set("verdict", "correct").set("checked", checked);
  return result;
}

}  // namespace kforge::worker
