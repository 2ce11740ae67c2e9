#include "evaluation/worker/candidate_run.hpp"

#include <algorithm>
#include <chrono>
#include <limits>
#include <set>

#include "common/task_signature.hpp"
#include "evaluation/library_policy.hpp"
#include "evaluation/worker/evaluation_support.hpp"
#include "evaluation/worker/op_observer.hpp"
#include "evaluation/worker/saved_outputs.hpp"

namespace kforge::worker {
namespace {

std::vector<at::Tensor> clone_all(const std::vector<at::Tensor>& ts) {
  std::vector<at::Tensor> out;
  for (const auto& t : ts) out.push_back(t.clone());
  return out;
}

// Outputs of the reference are poisoned and released before the candidate runs after it, so a
// kernel that returns memory the reference freed returns NaN.
void poison_and_release(std::vector<at::Tensor>& outputs) {
  for (auto& t : outputs) {
    if (!t.defined() || !t.numel()) continue;
    if (t.is_contiguous()) {
      t.view({-1}).view(at::kByte).fill_(0xFF);
    } else if (t.is_floating_point()) {  // a transposed result (x.t() * 2): the same bits, by
                                         // element
      t.fill_(std::numeric_limits<double>::quiet_NaN());
    } else {
      t.fill_(t.scalar_type() == at::kBool ? 1 : -1);
    }
  }
  outputs.clear();
}

// An upper bound of a config's outputs' bytes (8 per element), to size the NaN-primed blocks.
size_t expected_output_bytes(const json::Value& config) {
  size_t bytes = 0;
  for (const auto& o : config["outputs"].as_array()) {
    size_t n = 1;
    for (const auto& d : o["shape"].as_array()) n *= static_cast<size_t>(d.as_int());
    bytes += n * 8;
  }
  return bytes;
}

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

CandidateRun::CandidateRun(WorkerState state, const evaluation::WorkerRequest& request,
                           ExportedTask& task, const json::Value& direction,
                           const ext::Function& fn, CompiledBaseline* baseline)
    : state_(state),
      request_(request),
      task_(task),
      direction_(direction),
      fn_(fn),
      baseline_(baseline),
      dev_(state.device.torch_device()),
      tolerance_(tolerance_of(request, direction)) {
  timing_.min_reps = request.timing.min_reps.value_or(timing_.min_reps);
  timing_.max_reps = request.timing.max_reps.value_or(timing_.max_reps);
  timing_.target_batch_ms = request.timing.target_batch_ms.value_or(timing_.target_batch_ms);
  timing_.max_seconds = request.timing.max_seconds.value_or(timing_.max_seconds);
  configs_.array();
}

evaluation::WorkerReport CandidateRun::run() {
  std::optional<Failure> overall;
  // The timed config that moves the most bytes: the one a trace follows.
  std::optional<size_t> largest;
  int64_t largest_bytes = -1;
  size_t largest_record = 0;
  const auto& configs = direction_["configs"];
  for (size_t index : evaluation::selected_configs(configs, request_)) {
    Config c{index, configs[index], output_names_of(configs[index]), {}, {}};
    run_config(c);
    if (c.bytes_moved > largest_bytes) {
      largest = index;
      largest_bytes = c.bytes_moved;
      largest_record = configs_.as_array().size();
    }
    json::Value event = c.record;
    event.set("event", "config");
    state_.sink(event);
    configs_.push(c.record);
    if (c.failure && !overall) overall = c.failure;
    if (c.failure && c.failure->kind == "illegal_memory_access") break;  // the context is gone
    if (c.failure && (request_.stop_on_failure || stop_)) break;
  }
  if ((request_.trace || request_.counters) && !overall && largest)
    record_kernels(*largest, largest_record);

  if (!library_ops_.empty() && request_.library_calls != LibraryPolicy::allow) {
    std::vector<std::string> ops(library_ops_.begin(), library_ops_.end());
    flags_.push_back(std::string(evaluation::kLibraryCallsFlag) + ": " + join(ops));
  }
  auto report = overall ? evaluation::WorkerReport::failed(EvalVerdict::incorrect, overall->kind,
                                                           overall->message)
                        : evaluation::WorkerReport::failed(EvalVerdict::correct, "", "");
  for (const auto& record : configs_.as_array())
    report.configs.push_back(evaluation::read_config_report(record));
  report.flags = flags_;
  return report;
}

void CandidateRun::run_config(Config& c) {
  c.record.set("index", static_cast<int64_t>(c.index)).set("name", c.doc["name"].as_string());
  auto phase_start = std::chrono::steady_clock::now();
  c.failure = check_signature(c);
  for (int s = 0; !c.failure && s < request_.seeds; ++s) c.failure = check_seed(c, s);
  if (!c.failure && request_.library_calls == LibraryPolicy::forbid && !library_ops_.empty()) {
    std::vector<std::string> ops(library_ops_.begin(), library_ops_.end());
    c.failure = Failure{"library_call", "the kernel calls library operators (" + join(ops) +
                                            "), which this evaluation forbids"};
  }
  c.record.set("check_seconds", seconds_since(phase_start));
  phase_start = std::chrono::steady_clock::now();
  if (!c.failure && request_.time) time_config(c);
  if (request_.time) c.record.set("timing_seconds", seconds_since(phase_start));
  c.record.set("correct", !c.failure)
      .set("seeds_passed", c.seeds_passed)
      .set("seeds", request_.seeds);
  c.record.set("max_abs_error", c.max_abs).set("max_rel_error", c.max_rel);
  if (c.failure) c.record.set("failure", failure_json(*c.failure));
}

std::optional<Failure> CandidateRun::check_signature(const Config& c) const {
  // The signature must match what the task passes, argument by argument.
  auto expected = tasks::parameter_types(c.doc);
  bool signature_ok = expected.size() == fn_.parameter_types.size();
  for (size_t i = 0; signature_ok && i < expected.size(); ++i)
    signature_ok = tasks::parameter_accepts(fn_.parameter_types[i], expected[i]);
  if (signature_ok) return std::nullopt;
  return Failure{"signature_mismatch", "`" + request_.function + "` takes (" +
                                           join(fn_.parameter_types) + ") but the task passes (" +
                                           tasks::describe_parameters(c.doc) + ")"};
}

std::optional<Failure> CandidateRun::check_seed(Config& c, int s) {
  const uint64_t seed = mix_seed(request_.seed + static_cast<uint64_t>(s), c.index);
  const std::string where = c.name() + " seed " + std::to_string(s);
  const size_t expected_bytes = expected_output_bytes(c.doc);
  std::optional<Failure> failure;
  // Whose code raises: the candidate's, or kforge's own around it (drawing inputs, the
  // reference), which may run out of memory the candidate left too, but says so in its words.
  const char* running = "drawing the inputs";
  try {
    step(evaluation::Stage::draw, where + ": draw inputs", c.index, s);
    Case k = task_.draw(c.doc, seed, dev_);
    auto pristine = clone_all(k.tensors);
    // 1. The candidate runs before the reference, on poisoned allocations, observed.
    step(evaluation::Stage::candidate, where + ": candidate (before the reference)", c.index, s);
    std::vector<at::Tensor> before;
    {
      OpObserver observer;
      running = nullptr;
      before = call_poisoned(k.args, expected_bytes);
      auto ops = observer.compute_ops();
      library_ops_.insert(ops.begin(), ops.end());
    }
    if (escaped_threads_) return escaped_threads_;
    step(evaluation::Stage::synchronise, where + ": synchronise after the candidate", c.index, s);
    if ((failure = check_device())) return failure;
    if ((failure = check_inputs_unchanged(k.tensors, pristine, k.tensor_names))) return failure;
    if (!direction_["allow_output_input_alias"].as_bool(false) &&
        (failure = check_no_aliasing(before, k.tensors, k.tensor_names)))
      return failure;
    // 2. The reference, on copies of the pristine values.
    step(evaluation::Stage::reference, where + ": reference", c.index, s);
    running = "the reference, after the kernel ran";
    auto reference_outputs = task_.reference(c.doc, k);
    auto expected_outputs = clone_all(reference_outputs);
    state_.device.synchronize();
    step(evaluation::Stage::compare, where + ": compare", c.index, s);
    if ((failure = c.errors(compare(c, before, expected_outputs, k)))) return failure;
    if (!request_.outputs_dir.empty()) {
      try {
        save_outputs(before, outputs_file(request_.outputs_dir, c.index, s));
      } catch (const std::exception& e) {
        // Saving worked before the candidate ran (the probe): now, the candidate is to blame.
        stop_ = true;
        return Failure{"unverified_output",
                       "the kernel's outputs could not be saved for the checker: " + short_what(e)};
      }
    }
    before.clear();
    // 3. The candidate again, after the reference's outputs were poisoned and freed.
    poison_and_release(reference_outputs);
    step(evaluation::Stage::candidate_again, where + ": candidate (after the reference)", c.index,
         s);
    running = nullptr;
    auto after = call_poisoned(k.args, expected_bytes);
    if ((failure = check_device())) return failure;
    step(evaluation::Stage::compare_again, where + ": compare (after the reference)", c.index, s);
    if ((failure = c.errors(compare(c, after, expected_outputs, k)))) {
      failure->message =
          "after the reference ran and its freed outputs were poisoned: " + failure->message;
      if (failure->kind == "unwritten_output") failure->kind = "reused_reference_output";
      return failure;
    }
    if ((failure = check_inputs_unchanged(k.tensors, pristine, k.tensor_names))) return failure;
    if (escaped_threads_) return escaped_threads_;
    ++c.seeds_passed;
  } catch (const std::exception& e) {
    failure = running ? harness_raised(e, running) : candidate_raised(e);
    if (auto device_failure = check_device()) failure = device_failure;
  }
  return failure;
}

Comparison CandidateRun::compare(Config& c, const std::vector<at::Tensor>& got,
                                 const std::vector<at::Tensor>& want, const Case& k) {
  // Within the stage under way (the protocol's stages come in order; its limit is a call's).
  auto exact = [&] {
    auto outputs = task_.reference_in_double(c.doc, k);
    state_.device.synchronize();
    return outputs;
  };
  auto cmp = compare_outputs(got, want, tolerance_, c.output_names, exact);
  for (const auto& note : cmp.notes) {  // "headline: config N, details", tables show the headline
    const auto colon = note.find(": ");
    flag(note.substr(0, colon) + ": " + c.name() + ", " + note.substr(colon + 2));
  }
  return cmp;
}

std::vector<at::Tensor> CandidateRun::call(const std::vector<c10::IValue>& args) {
  return fn_.call(args);
}

std::vector<at::Tensor> CandidateRun::call_watched(const std::vector<c10::IValue>& args) {
  state_.threads.before_candidate();
  auto outputs = call(args);
  if (auto escaped = state_.threads.after_candidate(); escaped && !escaped_threads_)
    escaped_threads_ = escaped;
  return outputs;
}

std::vector<at::Tensor> CandidateRun::call_poisoned(const std::vector<c10::IValue>& args,
                                                    size_t expected_bytes) {
  state_.device.begin_poisoned_allocations(expected_bytes);
  std::vector<at::Tensor> outputs;
  try {
    outputs = call_watched(args);
    state_.device.end_poisoned_allocations();
  } catch (...) {
    state_.device.end_poisoned_allocations();
    throw;
  }
  return outputs;
}

std::optional<Failure> CandidateRun::watch_batch(bool before) {
  if (!before) return state_.threads.after_candidate();
  state_.threads.before_candidate();
  return std::nullopt;
}

std::optional<Failure> CandidateRun::check_device() {
  bool fatal = false;
  std::string e = state_.device.pending_error(&fatal);
  if (e.empty()) return std::nullopt;
  return Failure{fatal ? "illegal_memory_access" : "candidate_error", "the device reports " + e};
}

void CandidateRun::flag(const std::string& f) {
  if (std::find(flags_.begin(), flags_.end(), f) == flags_.end()) flags_.push_back(f);
}

void CandidateRun::step(evaluation::Stage stage, const std::string& what,
                        std::optional<size_t> config, std::optional<int> seed,
                        std::optional<double> planned_s) {
  state_.sink(evaluation::step_event(stage, what, config, seed, planned_s));
}

}  // namespace kforge::worker
