// A correct candidate's timing on one config: next to the reference (and the torch.compile
// baseline when asked for) on input sets rotated so that together they exceed the cache; then the
// checks that timing makes possible: the output of a timed call, an answer to inputs refilled in
// place, and a time below what the memory system allows.
#include <ATen/ATen.h>

#include <algorithm>
#include <set>
#include <stdexcept>

#include "evaluation/worker/candidate_run.hpp"
#include "evaluation/worker/evaluation_support.hpp"

namespace kforge::worker {
namespace {

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

/// Each output's sum, as a fingerprint of the values (a sum, not a copy: outputs can be
/// gigabytes): the same tensor sums the same; new values practically never do.
std::vector<double> fingerprints(const std::vector<at::Tensor>& outputs) {
  std::vector<double> out;
  for (const auto& t : outputs) out.push_back(t.defined() ? t.sum().item<double>() : 0.0);
  return out;
}

}  // namespace

struct CandidateRun::TimingSets {
  std::vector<Case> cases;
  size_t case_bytes = 1;
  std::vector<std::function<void()>> reference_calls;  ///< the reference's work, per set
  std::vector<std::vector<MemorySpan>> memory;         ///< what a call on each set reads
  /// Gives a set new values before a batch, where that is cheap next to the work timed.
  std::function<void(size_t)> refresh;
  uint64_t refill_round = 0;
  std::vector<at::Tensor> last_outputs;  ///< of the candidate's last timed call
  size_t last_set = 0;                   ///< the set it ran on
};

void CandidateRun::time_config(Config& c) {
  const std::string name = c.name();
  try {
    step(evaluation::Stage::prepare_timing, name + ": prepare timing", c.index);
    TimingSets sets;
    draw_timing_sets(c, sets);
    at::NoGradGuard no_grad;
    auto compiled_calls = prepare_compiled(c, sets);
    // The candidate comes last in every repetition: the inputs are refreshed before each batch,
    // so its last outputs belong to the values its set holds when they are checked.
    std::vector<std::function<void(size_t)>> timed = {[&](size_t k) { sets.reference_calls[k](); }};
    if (!compiled_calls.empty()) timed.push_back([&](size_t k) { compiled_calls[k](); });
    timed.push_back([&](size_t k) {
      sets.last_outputs = call(sets.cases[k].args);
      sets.last_set = k;
    });
    // The candidate's threads are parked again after each of its batches, so the reference is
    // never timed while they run.
    const size_t candidate_function = timed.size() - 1;
    auto watch = [&](size_t f, bool before) -> std::optional<Failure> {
      return f == candidate_function ? watch_batch(before) : std::nullopt;
    };
    // Warm-up: two calls of each function, each within the call timeout.
    step(evaluation::Stage::warm_up, name + ": timing warm-up", c.index);
    for (const auto& k : sets.cases) sets.memory.push_back(memory_of(k));
    auto group = time_group(
        state_.device, timed, sets.memory, timing_, sets.refresh,
        [&](double planned_s) {
          // Warm-up is done: the supervisor may shorten the stage to the work actually planned.
          step(evaluation::Stage::timing,
               name + ": timing (about " + std::to_string(static_cast<int>(planned_s + 0.5)) +
                   " s planned)",
               c.index, std::nullopt, planned_s);
        },
        watch);
    c.record.set("inputs_refreshed_per_batch", static_cast<bool>(sets.refresh));
    if ((c.failure = check_device())) throw std::runtime_error(c.failure->message);
    const TimingStats& kernel = group.stats.back();
    c.record.set("candidate", kernel.to_json()).set("reference", group.stats[0].to_json());
    c.record.set("input_sets", static_cast<int64_t>(sets.cases.size()));
    const double speedup = kernel.median_ms > 0 ? group.stats[0].median_ms / kernel.median_ms : 0;
    c.record.set("speedup", speedup);
    if (!compiled_calls.empty()) {
      const TimingStats& compiled = group.stats[1];
      c.record.set("compiled", compiled.to_json()).set("compiled_ms", compiled.median_ms);
      c.record.set("speedup_compiled",
                   kernel.median_ms > 0 ? compiled.median_ms / kernel.median_ms : 0);
    }
    c.failure = group.failure;
    step(evaluation::Stage::timed_output, name + ": check the timed output", c.index);
    if (!c.failure) c.failure = check_after_timing(c, sets);
    // Faster than the memory system allows: every input is read and every output written once.
    // The kernel's bound (what tables and prompts compare it with) is those bytes at the measured
    // copy bandwidth; the threshold of an impossible speed, at twice it, leaves room for caches.
    // Noise only lengthens a batch, so a tenth of them below the threshold is worth judging even
    // where the median is above it: a kernel that remembers its results misses on the first
    // visit to each input set, and where few repetitions fit the budget (a slow kernel, a busy
    // machine) those misses are most of them.
    size_t bytes = bytes_of(sets.cases[0].tensors) + bytes_of(sets.last_outputs);
    const double copy_ms = 1000.0 * bytes / state_.device.copy_bandwidth();
    const double bound_ms = copy_ms / 2;
    c.bytes_moved = static_cast<int64_t>(bytes);
    c.record.set("bytes_moved", c.bytes_moved)
        .set("copy_bound_ms", copy_ms)
        .set("speed_of_light_ms", bound_ms);
    if (!c.failure && kernel.p10_ms < bound_ms) c.failure = judge_speed(c, sets, kernel, bound_ms);
    if (!c.failure && speedup > request_.speedup_flag)
      flags_.push_back(name + ": speedup " + std::to_string(speedup) + "x is above " +
                       std::to_string(request_.speedup_flag) + "x; review it");
  } catch (const std::exception& e) {
    if (!c.failure) c.failure = candidate_raised(e);
    if (auto device_failure = check_device()) c.failure = device_failure;
  }
}

void CandidateRun::draw_timing_sets(const Config& c, TimingSets& sets) {
  const uint64_t base = request_.seed;
  Case first = task_.draw(c.doc, mix_seed(base + 7777, c.index), dev_);
  sets.case_bytes = std::max<size_t>(1, bytes_of(first.tensors));
  size_t count = std::clamp<size_t>(2 * state_.device.cache_bytes() / sets.case_bytes + 1, 1, 64);
  count = std::max<size_t>(1, std::min(count, (size_t(8) << 30) / sets.case_bytes));
  sets.cases.push_back(std::move(first));
  for (size_t k = 1; k < count; ++k)
    sets.cases.push_back(task_.draw(c.doc, mix_seed(base + 7777 + k, c.index), dev_));
  for (const auto& k : sets.cases)
    sets.reference_calls.push_back(task_.prepare_timed_reference(c.doc, k));
  // Values are refreshed before every batch where that is cheap next to the work timed; above
  // that, a remembered result returns faster than the speed-of-light bound allows.
  const double refill_max_bytes = request_.timing.refill_max_bytes.value_or(
      dev_.is_cuda() ? double(size_t(2) << 30) : double(size_t(16) << 20));
  if (static_cast<double>(sets.case_bytes * count) <= refill_max_bytes)
    sets.refresh = [this, &c, &sets](size_t k) {
      task_.refill(c.doc, sets.cases[k],
                   mix_seed(request_.seed + 31337 + ++sets.refill_round, c.index));
    };
}

std::vector<std::function<std::vector<at::Tensor>()>> CandidateRun::prepare_compiled(
    Config& c, const TimingSets& sets) {
  // The torch.compile baseline, when asked for: timed in the same repetitions, once it computes
  // what the reference does on the first set.
  std::vector<std::function<std::vector<at::Tensor>()>> calls;
  std::string why;
  if (baseline_) {
    step(evaluation::Stage::compiled_baseline, c.name() + ": prepare the compiled baseline",
         c.index);
    for (const auto& k : sets.cases) {
      auto prepared = baseline_->prepare(request_.direction, c.index, c.doc, k, why);
      if (!prepared) break;
      calls.push_back(std::move(prepared));
    }
    if (calls.size() == sets.cases.size()) {
      try {
        auto cmp = compare_outputs(calls[0](), task_.reference(c.doc, sets.cases[0]), tolerance_,
                                   c.output_names,
                                   [&] { return task_.reference_in_double(c.doc, sets.cases[0]); });
        if (cmp.failure)
          why = "the compiled baseline disagrees with the reference (" + cmp.failure->message + ")";
      } catch (const std::exception& e) {
        why = "the compiled baseline failed: " + short_what(e);
      }
    }
  } else {
    why = request_.compiled_unavailable;  // asked for, not built
  }
  if (!why.empty()) {
    calls.clear();
    c.record.set("compiled_unavailable", why);
  }
  return calls;
}

std::optional<Failure> CandidateRun::check_after_timing(Config& c, TimingSets& sets) {
  // The output of a timed call is checked too.
  Case& last = sets.cases[sets.last_set];
  if (auto failure = compare(c, sets.last_outputs, task_.reference(c.doc, last), last).failure) {
    failure->kind = "timed_output_mismatch";
    failure->message =
        "the output of a timed call is wrong (" + failure->message +
        "): called back to back, the kernel computes something else (cached results, or work "
        "racing with the next call)";
    return failure;
  }
  // Refilled in place (same buffers, new values), the inputs must give new results. The set is
  // the one the kernel ran on last, so it has seen these buffers whatever order and batch sizes
  // the timing chose. Results for the old values are stale; other wrong results are a mismatch
  // like any other (a kernel that rounds differently from eager at a near tie, say).
  std::vector<double> before;
  try {
    before = fingerprints(sets.last_outputs);
  } catch (const std::exception&) {  // an output the sum cannot read: then no claim of staleness
  }
  step(evaluation::Stage::refilled, c.name() + ": the candidate on refilled inputs", c.index);
  task_.refill(c.doc, last, mix_seed(request_.seed + 999331, c.index));
  auto again = call_watched(last.args);
  std::optional<Failure> failure = escaped_threads_;
  state_.device.synchronize();
  step(evaluation::Stage::refilled_compare, c.name() + ": compare (refilled inputs)", c.index);
  if (auto wrong = compare(c, again, task_.reference(c.doc, last), last).failure) {
    bool unchanged = false;
    try {
      unchanged = !before.empty() && fingerprints(again) == before;
    } catch (const std::exception&) {
    }
    failure = unchanged ? Failure{"stale_result",
                                  "after its inputs were refilled in place with new values, the "
                                  "kernel returned the results it gave for the old ones (" +
                                      wrong->message + ")"}
                        : Failure{wrong->kind,
                                  "after its inputs were refilled in place with new values, the "
                                  "kernel's results are wrong, and not those it gave for the old "
                                  "values (" +
                                      wrong->message + ")"};
  }
  return failure;
}

std::optional<Failure> CandidateRun::judge_speed(Config& c, TimingSets& sets,
                                                 const TimingStats& kernel, double bound_ms) {
  // Below the bound, the kernel may still be honest: within a batch, data that fits in a cache is
  // read from there, faster than memory delivers it. Before it is rejected it is timed again one
  // call at a time with its inputs evicted from every cache, and judged on what memory must
  // deliver then: its inputs, which an honest kernel reads.
  step(evaluation::Stage::cold_timing, c.name() + ": time again from memory (below the bound)",
       c.index);
  std::optional<Failure> failure;
  const TimingStats cold = time_cold(
      state_.device,
      [&](size_t k) {
        sets.last_outputs = call(sets.cases[k].args);
        sets.last_set = k;
      },
      sets.memory, 40, [&](size_t, bool before) { return watch_batch(before); }, failure);
  const size_t input_bytes = bytes_of(sets.cases[0].tensors);
  double cold_bound_ms = 1000.0 * input_bytes / (2.0 * state_.device.copy_bandwidth());
  if (!failure && cold.p10_ms < cold_bound_ms) {
    // The bandwidth the bound comes from was measured when the worker started, perhaps while
    // other processes streamed memory: measured again now, the higher one counts.
    const double bandwidth = state_.device.remeasure_bandwidth();
    cold_bound_ms = 1000.0 * input_bytes / (2.0 * bandwidth);
    c.record.set("copy_bandwidth_gbs_again", bandwidth / 1e9);
  }
  c.record.set("cold", cold.to_json()).set("cold_speed_of_light_ms", cold_bound_ms);
  // Noise only lengthens a call (a busy machine, preemption): a tenth of the calls faster than
  // memory allows is no accident.
  if (!failure && cold.p10_ms < cold_bound_ms)
    failure =
        Failure{"impossible_speed",
                "timed one call at a time with its inputs evicted from every cache, a tenth of the "
                "kernel's calls took " +
                    std::to_string(cold.p10_ms) + " ms or less, below the " +
                    std::to_string(cold_bound_ms) + " ms memory needs to deliver its " +
                    std::to_string(input_bytes) +
                    " input bytes at twice the measured bandwidth (timed in batches, a tenth of "
                    "them took " +
                    std::to_string(kernel.p10_ms) + " ms a call or less, below the bound " +
                    std::to_string(bound_ms) + " ms for moving " + std::to_string(c.bytes_moved) +
                    " bytes): it does not read its inputs"};
  return failure;
}

}  // namespace kforge::worker
