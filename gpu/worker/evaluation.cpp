#include "gpu/worker/evaluation.hpp"

#include <c10/util/Exception.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <set>
#include <thread>
#include <utility>

#include "common/task_signature.hpp"
#include "gpu/worker/candidate_library.hpp"
#include "gpu/worker/checks.hpp"
#include "gpu/worker/compiled_baseline.hpp"
#include "gpu/worker/op_observer.hpp"
#include "gpu/worker/saved_outputs.hpp"
#include "gpu/worker/timing.hpp"
#include "gpu/worker_request.hpp"

namespace kforge::worker {
namespace {

using gpu::WorkerRequest;

json::Value failure_json(const Failure& f) {
  json::Value v;
  v.set("kind", f.kind).set("message", f.message);
  return v;
}

// A candidate raised (c10::Error, std::exception): its message, first lines only.
std::string short_what(const std::exception& e) {
  std::string what = e.what();
  if (auto* c10e = dynamic_cast<const c10::Error*>(&e)) what = c10e->what_without_backtrace();
  if (what.size() > 600) what = what.substr(0, 600) + "...";
  return what;
}

// The candidate's own words, quoted on one line: control characters are shown escaped, so that
// text it raises cannot start a line that reads like kforge's (a "verdict: correct" of its own).
std::string quoted_words(const std::string& text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    if (c == '\n')
      out += "\\n";
    else if (c < 0x20 || c == 0x7f) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
    } else
      out += static_cast<char>(c);
  }
  return out + "\"";
}

Failure candidate_raised(const std::exception& e) {
  std::string what = short_what(e);
  bool oom = what.find("out of memory") != std::string::npos ||
             what.find("not enough memory") != std::string::npos ||
             what.find("can't allocate memory") != std::string::npos;
  return Failure{
      oom ? "out_of_memory" : "candidate_error",
      "the kernel raised (its own words, at most 600 characters): " + quoted_words(what)};
}

std::string join(const std::vector<std::string>& v) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + v[i];
  return out;
}

size_t bytes_of(const std::vector<at::Tensor>& ts) {
  size_t n = 0;
  for (const auto& t : ts) n += t.defined() ? t.nbytes() : 0;
  return n;
}

// The memory a call on this case reads: every tensor's storage, once (backward cases also hold
// the forward's arguments and the output gradients).
std::vector<MemorySpan> memory_of(const Case& c) {
  std::vector<MemorySpan> out;
  std::set<const void*> seen;
  auto add = [&](const at::Tensor& t) {
    if (!t.defined() || !t.has_storage() || !t.storage().data()) return;
    if (seen.insert(t.storage().data()).second)
      out.push_back({t.storage().data(), t.storage().nbytes()});
  };
  auto add_value = [&](const c10::IValue& v) {
    if (v.isTensor()) add(v.toTensor());
    if (v.isTensorList())
      for (const at::Tensor& t : v.toTensorVector()) add(t);
  };
  for (const auto& t : c.tensors) add(t);
  for (const auto& t : c.grad_outputs) add(t);
  for (const auto& v : c.args) add_value(v);
  for (const auto& v : c.forward_args) add_value(v);
  return out;
}

std::vector<at::Tensor> clone_all(const std::vector<at::Tensor>& ts) {
  std::vector<at::Tensor> out;
  for (const auto& t : ts) out.push_back(t.clone());
  return out;
}

// Outputs of the reference are poisoned and released before the candidate runs after it, so a
// kernel that returns memory the reference freed returns NaN.
void poison_and_release(std::vector<at::Tensor>& outputs) {
  for (auto& t : outputs)
    if (t.defined() && t.numel()) t.view({-1}).view(at::kByte).fill_(0xFF);
  outputs.clear();
}

std::optional<Tolerance> tolerance_of(const WorkerRequest& request, const json::Value& dir) {
  if (!request.atol && !dir.contains("tolerance")) return std::nullopt;
  Tolerance tol;
  tol.atol = request.atol.value_or(dir["tolerance"]["atol"].as_number(tol.atol));
  tol.rtol = request.rtol.value_or(dir["tolerance"]["rtol"].as_number(tol.rtol));
  return tol;
}

std::vector<std::string> output_names_of(const json::Value& config) {
  std::vector<std::string> names;
  for (const auto& o : config["outputs"].as_array()) names.push_back(o["name"].as_string());
  return names;
}

std::string outputs_file(const std::string& dir, size_t config, int seed) {
  return dir + "/c" + std::to_string(config) + "-s" + std::to_string(seed) + ".out";
}

/// Names the counted kernels after the trace's kernels of the same call, when the trace saw at
/// least as many kernels as were counted (both record launches in the order they ran, and the
/// counters take the first ones).
void name_counted_kernels(json::Value& counted, const json::Value& launches) {
  std::vector<std::string> names;
  for (const auto& l : launches.as_array())
    if (l["kind"].as_string() == "kernel") names.push_back(l["name"].as_string());
  const size_t counted_kernels = counted["kernels"].as_array().size();
  if (names.size() < counted_kernels) return;
  json::Value kernels;
  kernels.array();
  for (size_t i = 0; i < counted_kernels; ++i) {
    json::Value k = counted["kernels"][i];
    kernels.push(k.set("name", names[i]));
  }
  counted.set("kernels", kernels);
}

}  // namespace

void Evaluator::step(gpu::Stage stage, const std::string& what, std::optional<size_t> config,
                     std::optional<int> seed, std::optional<double> planned_s) {
  sink_(gpu::step_event(stage, what, config, seed, planned_s));
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
  json::Value result;
  result.set("event", "result");
  auto fail = [&](const Failure& f) {
    result.set("verdict", "incorrect").set("failure", failure_json(f));
    return result;
  };
  auto infra = [&](const std::string& message) {
    result.set("verdict", "error").set("failure", failure_json(Failure{"infrastructure", message}));
    return result;
  };

  const auto r = WorkerRequest::from_json(request_doc);
  const std::string& direction = r.direction;
  const std::string& function = r.function;
  const std::string& mode = r.mode;
  const int seeds = r.seeds;
  const uint64_t base_seed = r.seed;
  const std::string& library_policy = r.library_calls;
  const double speedup_flag = r.speedup_flag;
  const bool do_timing = r.time;
  // A search needs only the verdict of a failing candidate: the configs after the first failure
  // are skipped (their results are not reported).
  const bool stop_on_failure = r.stop_on_failure;
  TimingOptions timing;
  timing.min_reps = r.timing.min_reps.value_or(timing.min_reps);
  timing.max_reps = r.timing.max_reps.value_or(timing.max_reps);
  timing.target_batch_ms = r.timing.target_batch_ms.value_or(timing.target_batch_ms);
  timing.max_seconds = r.timing.max_seconds.value_or(timing.max_seconds);

  step(gpu::Stage::load_task, "load task");
  auto found = task(r.export_dir);
  if (!found) return infra(found.error);
  ExportedTask* t = *found;
  const auto& dir = t->direction(direction);
  if (dir.is_null())
    return infra("the task has no " + direction + " direction (no func_" + direction + ".py)");
  if (dir.contains("error"))
    return infra("the task's " + direction +
                 " direction cannot be exported: " + dir["error"].as_string());
  const std::optional<Tolerance> tolerance = tolerance_of(r, dir);
  const std::string& outputs_dir = r.outputs_dir;
  CompiledBaseline* baseline = compiled(r.compiled_dir);
  const bool allow_alias = dir["allow_output_input_alias"].as_bool(false);

  const auto& configs = dir["configs"].as_array();
  const std::vector<size_t> selected = gpu::selected_configs(dir["configs"], r);
  if (selected.empty()) return infra("no config of the task is in mode `" + mode + "`");
  // What kforge itself could fail at is tried before candidate code runs here: after that, an
  // error this worker reports could be a line the candidate wrote, and counts against it.
  if (!outputs_dir.empty()) {
    try {
      save_outputs({}, outputs_dir + "/probe.out");
    } catch (const std::exception& e) {
      return infra("cannot save outputs for the checker in " + outputs_dir + ": " + short_what(e));
    }
  }

  threads_.begin_evaluation();
  step(gpu::Stage::load_candidate, "load the candidate");
  auto loaded = CandidateLibrary::load(r.library);
  if (!loaded) return fail(Failure{"load_error", loaded.error});
  if (auto escaped = threads_.after_candidate()) return fail(*escaped);
  auto library = std::move(*loaded);
  if (!library->interposed().empty())
    return fail(Failure{"symbol_interposition",
                        "the kernel defines or rebinds functions the worker times and "
                        "synchronises with: " +
                            join(library->interposed())});
  const ext::Function* fn = library->find(function);
  if (!fn) {
    auto names = library->function_names();
    return fail(Failure{"missing_function",
                        "the kernel registers no `" + function + "` (it registers: " +
                            (names.empty() ? std::string("nothing") : join(names)) + ")"});
  }

  const at::Device dev = device_.torch_device();
  json::Value config_results;
  config_results.array();
  std::optional<Failure> overall;
  // The timed config that moves the most bytes: the one a trace follows.
  std::optional<size_t> largest;
  int64_t largest_bytes = -1;
  size_t largest_record = 0;
  std::set<std::string> library_ops;
  std::vector<std::string> flags;
  auto flag = [&](const std::string& f) {
    if (std::find(flags.begin(), flags.end(), f) == flags.end()) flags.push_back(f);
  };
  // Threads the kernel starts or wakes must be parked again when its call returns
  // (gpu/worker/thread_watch.hpp), on every call, checked or timed.
  std::optional<Failure> escaped_threads;
  auto call_candidate = [&](const std::vector<c10::IValue>& args) { return fn->call(args); };
  auto call_watched = [&](const std::vector<c10::IValue>& args) {
    threads_.before_candidate();
    auto outputs = call_candidate(args);
    if (auto escaped = threads_.after_candidate(); escaped && !escaped_threads)
      escaped_threads = escaped;
    return outputs;
  };
  // Around a timed batch of the candidate's, outside the timed region.
  auto watch_batch = [&](bool before) -> std::optional<Failure> {
    if (before) {
      threads_.before_candidate();
      return std::nullopt;
    }
    return threads_.after_candidate();
  };
  // A checked call: memory the candidate allocates during it starts out as NaN.
  auto call_poisoned = [&](const std::vector<c10::IValue>& args, size_t expected_bytes) {
    device_.begin_poisoned_allocations(expected_bytes);
    std::vector<at::Tensor> outputs;
    try {
      outputs = call_watched(args);
      device_.end_poisoned_allocations();
    } catch (...) {
      device_.end_poisoned_allocations();
      throw;
    }
    return outputs;
  };
  auto check_device = [&]() -> std::optional<Failure> {
    bool fatal = false;
    std::string e = device_.pending_error(&fatal);
    if (e.empty()) return std::nullopt;
    return Failure{fatal ? "illegal_memory_access" : "candidate_error", "the device reports " + e};
  };

  for (size_t index : selected) {
    const auto& config = configs[index];
    json::Value cr;
    cr.set("index", static_cast<int64_t>(index)).set("name", config["name"].as_string());
    std::optional<Failure> failure;
    double max_abs = 0, max_rel = 0;
    int seeds_passed = 0;
    auto phase_start = std::chrono::steady_clock::now();
    auto seconds_since = [](std::chrono::steady_clock::time_point t) {
      return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
    };

    // The signature must match what the task passes, argument by argument.
    auto expected = tasks::parameter_types(config);
    bool signature_ok = expected.size() == fn->parameter_types.size();
    for (size_t i = 0; signature_ok && i < expected.size(); ++i)
      signature_ok = tasks::parameter_accepts(fn->parameter_types[i], expected[i]);
    if (!signature_ok)
      failure = Failure{"signature_mismatch",
                        "`" + function + "` takes (" + join(fn->parameter_types) +
                            ") but the task passes (" + tasks::describe_parameters(config) + ")"};
    const std::vector<std::string> output_names = output_names_of(config);
    auto compare = [&](const std::vector<at::Tensor>& got, const std::vector<at::Tensor>& want) {
      auto cmp = compare_outputs(got, want, tolerance, output_names);
      for (const auto& note : cmp.notes) flag("config " + std::to_string(index) + ": " + note);
      return cmp;
    };

    // An upper bound of the outputs' bytes (8 per element), to size the NaN-primed blocks.
    size_t expected_bytes = 0;
    for (const auto& o : config["outputs"].as_array()) {
      size_t n = 1;
      for (const auto& d : o["shape"].as_array()) n *= static_cast<size_t>(d.as_int());
      expected_bytes += n * 8;
    }
    for (int s = 0; !failure && s < seeds; ++s) {
      const uint64_t seed = mix_seed(base_seed + static_cast<uint64_t>(s), index);
      std::string where = "config " + std::to_string(index) + " seed " + std::to_string(s);
      try {
        step(gpu::Stage::draw, where + ": draw inputs", index, s);
        Case c = t->draw(config, seed, dev);
        auto pristine = clone_all(c.tensors);
        // 1. The candidate runs before the reference, on poisoned allocations, observed.
        step(gpu::Stage::candidate, where + ": candidate (before the reference)", index, s);
        std::vector<at::Tensor> before;
        {
          OpObserver observer;
          before = call_poisoned(c.args, expected_bytes);
          auto ops = observer.compute_ops();
          library_ops.insert(ops.begin(), ops.end());
        }
        if ((failure = escaped_threads)) break;
        step(gpu::Stage::synchronise, where + ": synchronise after the candidate", index, s);
        if ((failure = check_device())) break;
        if ((failure = check_inputs_unchanged(c.tensors, pristine, c.tensor_names))) break;
        if (!allow_alias && (failure = check_no_aliasing(before, c.tensors, c.tensor_names))) break;
        // 2. The reference, on copies of the pristine values.
        step(gpu::Stage::reference, where + ": reference", index, s);
        auto reference_outputs = t->reference(config, c);
        auto expected_outputs = clone_all(reference_outputs);
        device_.synchronize();
        auto cmp = compare(before, expected_outputs);
        max_abs = std::max(max_abs, cmp.max_abs_error);
        max_rel = std::max(max_rel, cmp.max_rel_error);
        if ((failure = cmp.failure)) break;
        if (!outputs_dir.empty()) {
          try {
            save_outputs(before, outputs_file(outputs_dir, index, s));
          } catch (const std::exception& e) {
            // Saving worked before the candidate ran (the probe): now, the candidate is to blame.
            return fail(Failure{"unverified_output",
                                "the kernel's outputs could not be saved for the checker: " +
                                    short_what(e)});
          }
        }
        before.clear();
        // 3. The candidate again, after the reference's outputs were poisoned and freed.
        poison_and_release(reference_outputs);
        step(gpu::Stage::candidate_again, where + ": candidate (after the reference)", index, s);
        auto after = call_poisoned(c.args, expected_bytes);
        if ((failure = check_device())) break;
        auto cmp_after = compare(after, expected_outputs);
        max_abs = std::max(max_abs, cmp_after.max_abs_error);
        max_rel = std::max(max_rel, cmp_after.max_rel_error);
        if (cmp_after.failure) {
          failure = cmp_after.failure;
          failure->message =
              "after the reference ran and its freed outputs were poisoned: " + failure->message;
          if (failure->kind == "unwritten_output") failure->kind = "reused_reference_output";
          break;
        }
        if ((failure = check_inputs_unchanged(c.tensors, pristine, c.tensor_names))) break;
        if ((failure = escaped_threads)) break;
        ++seeds_passed;
      } catch (const std::exception& e) {
        failure = candidate_raised(e);
        if (auto device_failure = check_device()) failure = device_failure;
      }
    }
    if (!failure && library_policy == "forbid" && !library_ops.empty()) {
      std::vector<std::string> ops(library_ops.begin(), library_ops.end());
      failure = Failure{"library_call", "the kernel calls library operators (" + join(ops) +
                                            "), which this evaluation forbids"};
    }

    cr.set("check_seconds", seconds_since(phase_start));
    phase_start = std::chrono::steady_clock::now();
    // Timing, on input sets rotated so that together they exceed the cache.
    if (!failure && do_timing) {
      try {
        step(gpu::Stage::prepare_timing, "config " + std::to_string(index) + ": prepare timing", index);
        Case first = t->draw(config, mix_seed(base_seed + 7777, index), dev);
        size_t case_bytes = std::max<size_t>(1, bytes_of(first.tensors));
        size_t sets = std::clamp<size_t>(2 * device_.cache_bytes() / case_bytes + 1, 1, 64);
        sets = std::max<size_t>(1, std::min(sets, (size_t(8) << 30) / case_bytes));
        std::vector<Case> cases;
        cases.push_back(std::move(first));
        for (size_t k = 1; k < sets; ++k)
          cases.push_back(t->draw(config, mix_seed(base_seed + 7777 + k, index), dev));
        std::vector<std::function<void()>> ref_calls;
        for (const auto& c : cases) ref_calls.push_back(t->prepare_timed_reference(config, c));
        std::vector<at::Tensor> last_outputs;
        size_t last_set = 0;
        at::NoGradGuard no_grad;
        // Values are refreshed before every batch where that is cheap next to the work timed;
        // above that, a remembered result returns faster than the speed-of-light bound allows.
        const double refill_max_bytes = r.timing.refill_max_bytes.value_or(
            dev.is_cuda() ? double(size_t(2) << 30) : double(size_t(16) << 20));
        uint64_t refill_round = 0;
        std::function<void(size_t)> refresh;
        if (static_cast<double>(case_bytes * sets) <= refill_max_bytes)
          refresh = [&](size_t k) {
            t->refill(config, cases[k], mix_seed(base_seed + 31337 + ++refill_round, index));
          };
        // The torch.compile baseline, when asked for: timed in the same repetitions, once it
        // computes what the reference does on the first set.
        std::vector<std::function<std::vector<at::Tensor>()>> compiled_calls;
        std::string compiled_why;
        if (baseline) {
          step(gpu::Stage::compiled_baseline,
               "config " + std::to_string(index) + ": prepare the compiled baseline", index);
          for (const auto& c : cases) {
            auto call = baseline->prepare(direction, index, config, c, compiled_why);
            if (!call) break;
            compiled_calls.push_back(std::move(call));
          }
          if (compiled_calls.size() == cases.size()) {
            try {
              auto cmp = compare_outputs(compiled_calls[0](), t->reference(config, cases[0]),
                                         tolerance, output_names);
              if (cmp.failure)
                compiled_why = "the compiled baseline disagrees with the reference (" +
                               cmp.failure->message + ")";
            } catch (const std::exception& e) {
              compiled_why = "the compiled baseline failed: " + short_what(e);
            }
          }
        } else {
          compiled_why = r.compiled_unavailable;  // asked for, not built
        }
        if (!compiled_why.empty()) {
          compiled_calls.clear();
          cr.set("compiled_unavailable", compiled_why);
        }
        // The candidate comes last in every repetition: the inputs are refreshed before each
        // batch, so its last outputs belong to the values its set holds when they are checked.
        std::vector<std::function<void(size_t)>> timed = {[&](size_t k) { ref_calls[k](); }};
        if (!compiled_calls.empty()) timed.push_back([&](size_t k) { compiled_calls[k](); });
        timed.push_back([&](size_t k) {
          last_outputs = call_candidate(cases[k].args);
          last_set = k;
        });
        // The candidate's threads are parked again after each of its batches, so the reference
        // is never timed while they run.
        const size_t candidate_function = timed.size() - 1;
        auto watch = [&](size_t f, bool before) -> std::optional<Failure> {
          return f == candidate_function ? watch_batch(before) : std::nullopt;
        };
        // Warm-up: two calls of each function, each within the call timeout.
        step(gpu::Stage::warm_up, "config " + std::to_string(index) + ": timing warm-up", index);
        std::vector<std::vector<MemorySpan>> set_memory;
        for (const auto& c : cases) set_memory.push_back(memory_of(c));
        auto group = time_group(device_, timed, set_memory, timing, refresh, [&](double planned_s) {
          // Warm-up is done: the supervisor may shorten the stage to the work actually planned.
          step(gpu::Stage::timing,
               "config " + std::to_string(index) + ": timing (about " +
                   std::to_string(static_cast<int>(planned_s + 0.5)) + " s planned)",
               index, std::nullopt, planned_s);
        }, watch);
        cr.set("inputs_refreshed_per_batch", static_cast<bool>(refresh));
        if ((failure = check_device())) throw std::runtime_error(failure->message);
        const TimingStats& kernel = group.stats.back();
        cr.set("candidate", kernel.to_json()).set("reference", group.stats[0].to_json());
        cr.set("input_sets", static_cast<int64_t>(sets));
        double speedup = kernel.median_ms > 0 ? group.stats[0].median_ms / kernel.median_ms : 0;
        cr.set("speedup", speedup);
        if (!compiled_calls.empty()) {
          const TimingStats& compiled = group.stats[1];
          cr.set("compiled", compiled.to_json()).set("compiled_ms", compiled.median_ms);
          cr.set("speedup_compiled",
                 kernel.median_ms > 0 ? compiled.median_ms / kernel.median_ms : 0);
        }
        failure = group.failure;
        // The output of a timed call is checked too.
        step(gpu::Stage::timed_output, "config " + std::to_string(index) + ": check the timed output",
             index);
        if (!failure) {
          auto cmp = compare(last_outputs, t->reference(config, cases[last_set]));
          if (cmp.failure) {
            failure = cmp.failure;
            failure->kind = "timed_output_mismatch";
            failure->message =
                "the output of a timed call is wrong (" + failure->message +
                "): called back to back, the kernel computes something else (cached results, or "
                "work racing with the next call)";
          }
        }
        // Refilled in place (same buffers, new values), the inputs must give new results. The
        // set is the one the kernel ran on last, so it has seen these buffers whatever order and
        // batch sizes the timing chose.
        if (!failure) {
          t->refill(config, cases[last_set], mix_seed(base_seed + 999331, index));
          auto again = call_watched(cases[last_set].args);
          if (escaped_threads) failure = escaped_threads;
          device_.synchronize();
          auto cmp = compare(again, t->reference(config, cases[last_set]));
          if (cmp.failure) {
            failure = Failure{"stale_result",
                              "after its inputs were refilled in place with new values, the kernel "
                              "returned results for the old ones (" +
                                  cmp.failure->message + ")"};
          }
        }
        // Faster than the memory system allows: every input is read and every output written once.
        size_t bytes = bytes_of(cases[0].tensors);
        for (const auto& o : last_outputs) bytes += o.defined() ? o.nbytes() : 0;
        double bound_ms = 1000.0 * bytes / (2.0 * device_.copy_bandwidth());
        cr.set("bytes_moved", static_cast<int64_t>(bytes)).set("speed_of_light_ms", bound_ms);
        if (static_cast<int64_t>(bytes) > largest_bytes) {
          largest = index;
          largest_bytes = static_cast<int64_t>(bytes);
          largest_record = config_results.as_array().size();
        }
        // Below the bound, the kernel may still be honest: within a batch, data that fits in a
        // cache is read from there, faster than memory delivers it. Before it is rejected it is
        // timed again one call at a time with its inputs evicted from every cache, and judged
        // on what memory must deliver then: its inputs, which an honest kernel reads.
        if (!failure && kernel.median_ms < bound_ms) {
          step(gpu::Stage::cold_timing,
               "config " + std::to_string(index) + ": time again from memory (below the bound)",
               index);
          const TimingStats cold = time_cold(
              device_,
              [&](size_t k) {
                last_outputs = call_candidate(cases[k].args);
                last_set = k;
              },
              set_memory, 40, [&](size_t, bool before) { return watch_batch(before); }, failure);
          const size_t input_bytes = bytes_of(cases[0].tensors);
          double cold_bound_ms = 1000.0 * input_bytes / (2.0 * device_.copy_bandwidth());
          if (!failure && cold.p10_ms < cold_bound_ms) {
            // The bandwidth the bound comes from was measured when the worker started, perhaps
            // while other processes streamed memory: measured again now, the higher one counts.
            const double bandwidth = device_.remeasure_bandwidth();
            cold_bound_ms = 1000.0 * input_bytes / (2.0 * bandwidth);
            cr.set("copy_bandwidth_gbs_again", bandwidth / 1e9);
          }
          cr.set("cold", cold.to_json()).set("cold_speed_of_light_ms", cold_bound_ms);
          // Noise only lengthens a call (a busy machine, preemption): a tenth of the calls
          // faster than memory allows is no accident.
          if (!failure && cold.p10_ms < cold_bound_ms)
            failure = Failure{
                "impossible_speed",
                "timed one call at a time with its inputs evicted from every cache, a tenth of the "
                "kernel's calls took " +
                    std::to_string(cold.p10_ms) + " ms or less, below the " +
                    std::to_string(cold_bound_ms) + " ms memory needs to deliver its " +
                    std::to_string(input_bytes) +
                    " input bytes at twice the measured bandwidth (its batched median " +
                    std::to_string(kernel.median_ms) + " ms was below the bound " +
                    std::to_string(bound_ms) + " ms for moving " + std::to_string(bytes) +
                    " bytes): it does not read its inputs"};
        }
        if (!failure && speedup > speedup_flag)
          flags.push_back("config " + std::to_string(index) + ": speedup " +
                          std::to_string(speedup) + "x is above " + std::to_string(speedup_flag) +
                          "x; review it");
      } catch (const std::exception& e) {
        if (!failure) failure = candidate_raised(e);
        if (auto device_failure = check_device()) failure = device_failure;
      }
    }

    if (do_timing) cr.set("timing_seconds", seconds_since(phase_start));
    cr.set("correct", !failure).set("seeds_passed", seeds_passed).set("seeds", seeds);
    cr.set("max_abs_error", max_abs).set("max_rel_error", max_rel);
    if (failure) cr.set("failure", failure_json(*failure));
    json::Value event = cr;
    event.set("event", "config");
    sink_(event);
    config_results.push(cr);
    if (failure && !overall) overall = failure;
    if (failure && failure->kind == "illegal_memory_access") break;  // the context is gone
    if (failure && stop_on_failure) break;
  }

  // The kernel trace of a correct candidate: after every timed call, on the config that moves the
  // most bytes, the reference's launches (its work as timed, no copies of the inputs) and then
  // the candidate's, each after an untraced call. Then the hardware counters of the same calls'
  // kernels, named after the trace's kernels when both saw the same launches.
  if ((r.trace || r.counters) && !overall && largest) {
    const auto& config = configs[*largest];
    const std::string where = "config " + std::to_string(*largest);
    // One recording of both sides into the record's `key`, or its error alone: `record` adds
    // one side to the document and returns what failed.
    using Recorder = std::function<std::string(const char* who, const std::function<void()>& call,
                                               json::Value& doc)>;
    auto record_both = [&](const char* key, const std::string& what, gpu::Stage stage,
                           bool candidate_first, const Recorder& record) {
      json::Value doc;
      try {
        step(stage, where + ": " + what, *largest);
        Case c = t->draw(config, mix_seed(base_seed + 4242, *largest), dev);
        at::NoGradGuard no_grad;
        doc.set("config", static_cast<int64_t>(*largest));
        std::pair<const char*, std::function<void()>> sides[] = {
            {"reference", t->prepare_timed_reference(config, c)},  // as it was timed
            {"candidate", [&] { call_candidate(c.args); }}};
        if (candidate_first) std::swap(sides[0], sides[1]);
        for (const auto& [who, call] : sides) {
          call();
          device_.synchronize();
          if (auto error = record(who, call, doc); !error.empty()) {
            doc = json::Value();
            doc.set("error", error);
            break;
          }
        }
      } catch (const std::exception& e) {
        doc = json::Value();
        doc.set("error", "the " + what + " call failed: " + short_what(e));
      }
      if (auto device_failure = check_device()) {
        doc = json::Value();
        doc.set("error", device_failure->message);
      }
      config_results.array()[largest_record].set(key, doc);
    };
    if (r.trace)
      record_both("trace", "kernel trace", gpu::Stage::trace, false,
                  [&](const char* who, const std::function<void()>& call, json::Value& doc) {
                    const auto start = std::chrono::steady_clock::now();
                    auto launches = device_.trace(call);
                    const double wall = std::chrono::duration<double, std::milli>(
                                            std::chrono::steady_clock::now() - start)
                                            .count();
                    if (!launches) return launches.error;
                    doc.set(who, *launches).set(std::string(who) + "_wall_ms", wall);
                    return std::string();
                  });
    // The counters need a call per counter pass (about 15; gpu/worker/counter_budget.hpp): the
    // candidate's kernels first, then eager's, in launch order as far as the budget reaches.
    if (r.counters) {
      double budget_left = r.counters_budget_s;
      record_both("counters", "hardware counters", gpu::Stage::counters, true, [&](const char* who, const std::function<void()>& call, json::Value& doc) {
                    const json::Value& traced = config_results[largest_record]["trace"][who];
                    json::Value side;
                    int counted = 0;
                    // Counts the first `n` kernels; what it costs is learned and spent.
                    auto count = [&](int n) {
                      auto result = device_.counters(call, n);
                      if (!result) return result.error;
                      const double spent = (*result)["seconds"].as_number();
                      budget_left -= spent;
                      counter_costs_.learn(*result, spent, traced_kernel_seconds(traced));
                      side = std::move(*result);
                      counted = static_cast<int>(side["kernels"].as_array().size());
                      return std::string();
                    };
                    // User replay is tried first; where it fails, the device falls back to
                    // kernel replay for one kernel, whose cost (milliseconds to most of a second
                    // a pass) then plans a second count.
                    for (int attempt = 0; attempt < 2; ++attempt) {
                      const auto plan = plan_counters(traced, budget_left, counter_costs_);
                      if (plan.count <= counted) break;
                      if (auto error = count(plan.count); !error.empty()) return error;
                    }
                    name_counted_kernels(side, traced);
                    side.set("budget_s", r.counters_budget_s);
                    if (traced.is_array())
                      if (auto left = uncounted_kernels(traced, counted); !left.as_array().empty())
                        side.set("skipped", left);
                    doc.set(who, side);
                    return std::string();
                  });
    }
  }

  if (!library_ops.empty() && library_policy != "allow") {
    std::vector<std::string> ops(library_ops.begin(), library_ops.end());
    flags.push_back("library operators called at run time: " + join(ops));
  }
  json::Value flag_list;
  flag_list.array();
  for (auto& f : flags) flag_list.push(f);
  result.set("configs", config_results).set("flags", flag_list);
  if (overall) {
    result.set("verdict", "incorrect").set("failure", failure_json(*overall));
  } else {
    result.set("verdict", "correct");
  }
  return result;
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
  step(gpu::Stage::load_task, "load task");
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
  for (size_t index : gpu::selected_configs(dir["configs"], r)) {
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
      step(gpu::Stage::checker_reference, where + ": reference (checker)", index, s);
      Case c = t->draw(config, mix_seed(base_seed + static_cast<uint64_t>(s), index), dev);
      auto want = t->reference(config, c);
      for (auto& g : got) g = g.to(dev);
      auto cmp = compare_outputs(got, want, tolerance, output_names_of(config));
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
