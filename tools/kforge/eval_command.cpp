#include "tools/kforge/eval_command.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>

#include "common/evaluation_defaults.hpp"
#include "common/numbers.hpp"
#include "common/statistics.hpp"
#include "common/task_signature.hpp"
#include "evaluation/build_config.hpp"
#include "evaluation/compiled_baseline.hpp"
#include "evaluation/compiler.hpp"
#include "evaluation/counter_summary.hpp"
#include "evaluation/hashing.hpp"
#include "evaluation/machine_load.hpp"
#include "evaluation/profile_summary.hpp"
#include "evaluation/source_check.hpp"
#include "evaluation/task_export.hpp"
#include "evaluation/worker_client.hpp"
#include "evaluation/worker_protocol.hpp"
#include "evaluation/worker_report.hpp"
#include "evaluation/worker_request.hpp"
#include "tools/kforge/command_line.hpp"
#include "tools/kforge/eval_progress.hpp"
#include "tools/kforge/tables.hpp"

namespace kforge::cli {
namespace {

// Where an evaluation's time went, from the supervisor's clock per stage, grouped as a person
// reads it: "114.2 s: checks 39.8 s, timing 34.9 s, checker 21.0 s, ...", largest first.
std::string describe_stage_seconds(const json::Value& stages) {
  // the worker's stages by their group, the supervisor's own by their name
  const auto group = [](const std::string& name) -> std::string {
    if (auto stage = evaluation::stage_named(name))
      return std::string(evaluation::stage_group(*stage));
    if (name == "start") return "loading";
    if (name == "worker_start") return "worker start";
    return name;
  };
  std::map<std::string, double> seconds;
  double total = 0;
  for (const auto& [stage, t] : stages.as_object()) {
    seconds[group(stage)] += t.as_number();
    total += t.as_number();
  }
  std::vector<std::pair<double, std::string>> sorted;
  for (const auto& [name, t] : seconds) sorted.emplace_back(t, name);
  std::sort(sorted.rbegin(), sorted.rend());
  std::string out = format_number("%.1f s:", total);
  for (size_t i = 0; i < sorted.size(); ++i)
    out += (i ? ", " : " ") + sorted[i].second + format_number(" %.1f s", sorted[i].first);
  return out;
}

using evaluation::Backend;

struct EvalArgs {
  std::string task, kernel, backend, direction, configs = "multi", cache;
  std::string compiled = "off";
  LibraryPolicy library_calls = LibraryPolicy::flag;
  Headers headers = Headers::automatic;
  std::optional<double> atol, rtol;
  int device = 0, seeds = kDefaultSeeds;
  int64_t seed = 0, max_source_bytes = kDefaultMaxSourceBytes;
  double max_seconds = 2;
  double counters_budget = kDefaultCountersBudgetSeconds;
  bool json = false, no_timing = false, allow_unconfined = false;
};

/// The options of `kforge eval`, bound to `a`.
void add_options(CLI::App& app, EvalArgs& a) {
  app.add_option("--task", a.task, "the task folder (robust-kbench format)")
      ->required()
      ->type_name("DIR");
  app.add_option("--kernel", a.kernel, "the kernel's source file")->required()->type_name("FILE");
  add_choice(app, "--backend", a.backend, {"cpu", "cuda"},
             "where to run (default: cuda when this build has it and a GPU is present)");
  app.add_option("--device", a.device, "GPU index (default 0)")->check(whole_number(0, 1023));
  add_choice(app, "--direction", a.direction, {"forward", "backward"},
             "which function to check (default: what the kernel registers)");
  add_choice(app, "--configs", a.configs, {"single", "multi", "multi_input", "multi_init"},
             "which config set of the task (default multi)");
  app.add_option("--seeds", a.seeds, "trials with fresh inputs and weights per config (default 3)")
      ->check(whole_number(1, 100));
  app.add_option("--seed", a.seed, "base of the seeds (default 0)")
      ->check(whole_number(0, std::numeric_limits<int64_t>::max()));
  app.add_option("--atol", a.atol,
                 "absolute tolerance (default: the task's, else per dtype; float32 1e-5)")
      ->check(real_number(0, 1e6));
  app.add_option("--rtol", a.rtol, "relative tolerance (default: as --atol)")
      ->check(real_number(0, 1e6));
  add_choice(app, "--library-calls", a.library_calls, parse_library_policy,
             {"allow", "flag", "forbid"}, "ATen/cuBLAS/cuDNN calls in the kernel (default flag)");
  app.add_flag("--no-timing", a.no_timing, "check correctness only");
  app.add_option("--max-seconds", a.max_seconds, "timing budget per config, the kernel and eager together (default 2)")
      ->check(real_number(0.001, 3600))
      ->type_name("S");
  app.add_option("--counters-budget", a.counters_budget,
                 "seconds the hardware counters may take, the kernel's first (cuda; default 10)")
      ->check(real_number(0, 3600))
      ->type_name("S");
  add_choice(app, "--compiled", a.compiled, {"max-autotune", "default", "off"},
             "also time torch.compile's code (AOTInductor, built once per task and cached; "
             "minutes the first time): max-autotune, default or off (default off)");
  add_choice(app, "--headers", a.headers, parse_headers, {"auto", "light", "full"},
             "which headers build the kernel: kforge's light ones (about a second) with "
             "LibTorch's when they cannot, or one of them (default auto)");
  app.add_option(
         "--max-source-bytes", a.max_source_bytes,
         "the largest kernel source judged (default 262144, an experiment's; the "
         "generator's kernels for KernelBench's level-3 GRUs and LSTMs, their steps in packed "
         "tables, have 18-118 KB at --shrink 16, 36_LSTMHn's 99 KB at full size)")
      ->check(whole_number(1024, kLargestMaxSourceBytes))
      ->type_name("N");
  app.add_option("--cache", a.cache,
                 "compile and export cache (default ~/.cache/kforge or $KFORGE_CACHE)")
      ->type_name("DIR");
  app.add_flag("--json", a.json, "print the result as JSON");
  app.add_flag("--allow-unconfined", a.allow_unconfined,
               "on a kernel without Landlock, compile and run the kernel with access to all "
               "your files instead of refusing to");
}

Backend default_backend() {
  if (build::with_cuda && std::filesystem::exists("/dev/nvidiactl")) return Backend::cuda;
  return Backend::cpu;
}

std::string fmt(double v, const char* f = "%.3g") {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

std::string column(std::string s, size_t width) {
  if (s.size() > width) s = s.substr(0, width - 3) + "...";
  return s + std::string(width - s.size(), ' ');
}

int finish(const json::Value& doc, bool as_json, int code) {
  if (as_json) std::cout << doc.dump() << "\n";
  return code;
}

/// "0.4310 (0.4301-0.4330)": the median with the 10th and 90th percentiles of the timed batches.
std::string with_spread(const evaluation::TimingSummary& t) {
  auto ms = [](double v) { return fmt(v, v >= 100 ? "%.1f" : v >= 10 ? "%.2f" : "%.4f"); };
  return ms(t.median_ms) + " (" + ms(t.p10_ms) + "-" + ms(t.p90_ms) + ")";
}

void print_table(const evaluation::WorkerReport& report) {
  // Names are never cut: rows that differ only at the end of a long name stay apart.
  size_t name_width = 8;
  for (const auto& c : report.configs) name_width = std::max(name_width, c.name.size() + 2);
  std::cout << column(" #", 4) << column("config", name_width) << column("ok", 4)
            << column("max abs err", 12) << column("max rel err", 12)
            << column("kernel ms (p10-p90)", 27) << column("eager ms (p10-p90)", 27)
            << column("speedup", 9) << column("compiled ms", 12) << "vs compiled\n";
  std::set<std::string> compiled_notes;
  std::vector<double> speedups;
  for (const auto& c : report.configs) {
    const bool timed = c.timed(), compiled = c.compiled_ms > 0;
    if (timed && c.correct) speedups.push_back(c.speedup);
    std::cout << column(" " + std::to_string(c.index), 4) << column(c.name, name_width)
              << column(c.correct ? "yes" : "NO", 4) << column(fmt(c.max_abs_error), 12)
              << column(fmt(c.max_rel_error), 12) << column(timed ? with_spread(c.kernel) : "-", 27)
              << column(timed ? with_spread(c.eager) : "-", 27)
              << column(timed ? fmt(c.speedup, "%.2fx") : "-", 9)
              << column(compiled ? fmt(c.compiled_ms, "%.4f") : "-", 12)
              << (compiled ? fmt(c.speedup_compiled, "%.2fx") : "-") << "\n";
    if (!c.failure_kind.empty())
      std::cout << "     " << c.failure_kind << ": " << c.failure_message << "\n";
    if (!c.compiled_unavailable.empty()) compiled_notes.insert(c.compiled_unavailable);
  }
  if (auto g = geometric_mean(speedups); g && speedups.size() > 1)
    std::cout << "geometric mean speedup over eager: " << fmt(*g, "%.2fx") << " ("
              << speedups.size() << " correct timed configs)\n";
  for (const auto& note : compiled_notes) std::cout << "no torch.compile time: " << note << "\n";
  for (const auto& c : report.configs) {
    auto record = json::parse(c.record_json.empty() ? "{}" : c.record_json);
    if (record.value && record.value->contains("trace"))
      std::cout << trace_table(evaluation::summarise_trace((*record.value)["trace"], c.name).doc);
    if (record.value && record.value->contains("counters"))
      std::cout << counters_table(
          evaluation::summarise_counters((*record.value)["counters"], c.name).doc);
  }
}

}  // namespace

namespace {

/// One `kforge eval`, step by step as an experiment's pipeline takes a candidate: export the task,
/// the static checks, the worker, the torch.compile baseline, compile, evaluate. Each step adds to
/// the document `--json` prints; a step that ends the evaluation returns its exit status.
class EvalRun {
 public:
  explicit EvalRun(const EvalArgs& a) : a_(a) { doc_.set("task", a.task).set("kernel", a.kernel); }

  int run() {
    auto source = evaluation::read_file(a_.kernel);
    if (!source.ok) return infrastructure("cannot read the kernel: " + source.error);
    source_ = source.text;
    backend_ = a_.backend.empty() ? default_backend() : *evaluation::parse_backend(a_.backend);
    cache_ = a_.cache.empty() ? evaluation::default_cache_dir() : a_.cache;
    direction_ = direction_of_source();
    doc_.set("direction", direction_).set("backend", std::string(evaluation::to_string(backend_)));
    for (auto step : {&EvalRun::export_the_task, &EvalRun::check_statically,
                      &EvalRun::start_the_worker, &EvalRun::compile})
      if (auto ended = (this->*step)()) return *ended;
    return evaluate();
  }

 private:
  using Ended = std::optional<int>;

  int infrastructure(const std::string& message) {
    std::cerr << "kforge eval: " << message << "\n";
    json::Value f;
    f.set("kind", "infrastructure").set("message", message);
    doc_.set("verdict", "error").set("failure", f);
    return finish(doc_, a_.json, 2);
  }

  /// The function asked for, else what the source registers (forward first).
  std::string direction_of_source() const {
    if (!a_.direction.empty()) return a_.direction;
    bool has_forward = false, has_backward = false;
    for (const auto& n : evaluation::registered_functions(source_)) {
      has_forward |= n == "forward";
      has_backward |= n == "backward";
    }
    return has_backward && !has_forward ? "backward" : "forward";
  }

  Ended export_the_task() {
    if (!a_.json) std::cout << "exporting task " << a_.task << " ..." << std::flush;
    auto fail = [&](const std::string& why) {
      if (!a_.json) std::cout << "\n";
      return infrastructure(why);
    };
    evaluation::ExportOptions export_options;
    export_options.cache_dir = cache_;
    exported_ = evaluation::export_task(a_.task, export_options);
    if (!exported_.ok) return fail(exported_.error);
    dir_ = exported_.doc["directions"][direction_];
    if (dir_.is_null())
      return fail("the task " + a_.task + " has no " + direction_ + " direction (no func_" +
                  direction_ + ".py)");
    if (dir_.contains("error"))
      return fail("the " + direction_ + " direction of " + a_.task +
                  " cannot be exported: " + dir_["error"].as_string());
    if (!a_.json) {
      std::cout << " done\n";
      std::set<std::string> warnings;
      for (const auto& c : dir_["configs"].as_array())
        for (const auto& w : c["warnings"].as_array()) warnings.insert(w.as_string());
      for (const auto& w : warnings) std::cout << "task warning: " << w << "\n";
    }
    return std::nullopt;
  }

  /// The static checks an experiment's verifier runs before anything is compiled (the source's
  /// size, the registration of the function and its parameters against the task's, forbidden
  /// constructs, library calls under the policy): a kernel they reject is not compiled or run
  /// here either, and gets the verdict and reason an experiment would give it.
  Ended check_statically() {
    auto parameters = evaluation::task_parameters(exported_.dir, direction_);
    if (!parameters) return infrastructure(parameters.error);
    const auto checked =
        evaluation::check_source(source_, direction_, *parameters, a_.library_calls,
                                 static_cast<size_t>(a_.max_source_bytes));
    static_findings_.array();
    for (const auto& f : evaluation::library_calls(source_)) static_findings_.push(f);
    doc_.set("static_library_calls", static_findings_);
    if (checked.accepted) return std::nullopt;
    json::Value f;
    f.set("kind", checked.kind).set("message", checked.reason).set("stage", "verify");
    doc_.set("verdict", "incorrect").set("failure", f);
    if (!a_.json)
      std::cout << "verdict: incorrect: rejected before compiling: " << checked.kind << ": "
                << checked.reason
                << (checked.kind == "too_large" ? " (--max-source-bytes judges larger ones)" : "")
                << "\n";
    return finish(doc_, a_.json, 1);
  }

  /// The worker first (the cuda backend compiles for the device it reports), then the
  /// torch.compile baseline when asked for.
  Ended start_the_worker() {
    evaluation::WorkerOptions worker_options;
    worker_options.backend = backend_;
    worker_options.device = a_.device;
    worker_options.allow_unconfined = a_.allow_unconfined;
    worker_ = std::make_unique<evaluation::WorkerClient>(worker_options);
    if (auto e = worker_->ensure_started(); !e.empty()) return infrastructure(e);
    doc_.set("device", device()).set("sandbox", worker_->ready()["sandbox"]);
    if (a_.compiled == "off") return std::nullopt;
    if (!a_.json)
      std::cout << "building the torch.compile baseline (" << a_.compiled << ") ..." << std::flush;
    evaluation::CompiledBaselineOptions baseline_options;
    baseline_options.mode = a_.compiled;
    baseline_options.backend = backend_;
    baseline_options.config_set = a_.configs;
    auto baseline = evaluation::build_compiled_baseline(a_.task, exported_.dir, baseline_options);
    // The kernel is still evaluated without it; its configs say why there is no compiled time.
    compiled_dir_ = baseline.dir;
    compiled_unavailable_ = baseline.error;
    const std::string described = baseline.error.empty()
                                      ? evaluation::describe_compiled_baseline(baseline.doc)
                                      : "none: " + baseline.error;
    doc_.set("compiled_baseline", described);
    if (!a_.json) std::cout << " " << described << "\n";
    return std::nullopt;
  }

  const json::Value& device() const { return worker_->ready()["device"]; }

  Ended compile() {
    evaluation::CompileOptions compile_options;
    compile_options.backend = backend_;
    compile_options.cache_dir = cache_;
    compile_options.source_name = a_.kernel;
    compile_options.allow_unconfined = a_.allow_unconfined;
    compile_options.headers = a_.headers;
    if (backend_ == Backend::cuda) {
      auto arch = evaluation::cuda_arch_of(device());
      if (!arch) return infrastructure(arch.error);
      compile_options.cuda_arch = *arch;
    }
    if (!a_.json)
      std::cout << "compiling " << a_.kernel << " (" << evaluation::to_string(backend_) << ") ..."
                << std::flush;
    compiled_ = evaluation::compile_candidate(source_, compile_options);
    json::Value compile_doc;
    compile_doc.set("ok", compiled_.ok)
        .set("cache_hit", compiled_.cache_hit)
        .set("seconds", compiled_.seconds);
    compile_doc.set("key", compiled_.key).set("log", compiled_.log);
    compile_doc.set("headers", compiled_.headers);
    if (!compiled_.light_error.empty()) compile_doc.set("light_error", compiled_.light_error);
    doc_.set("compile", compile_doc);
    if (!compiled_.ok) {
      json::Value f;
      f.set("kind", "compile_error").set("message", compiled_.error);
      doc_.set("verdict", "incorrect").set("failure", f);
      if (!a_.json)
        std::cout << " failed\n"
                  << compiled_.log << "verdict: incorrect: compile_error: " << compiled_.error
                  << "\n";
      return finish(doc_, a_.json, 1);
    }
    if (!a_.json)
      std::cout << (compiled_.cache_hit ? " cached" : " " + fmt(compiled_.seconds, "%.1f") + " s")
                << (compiled_.headers == "light" ? ", kforge's light headers"
                                                 : ", LibTorch's headers")
                << (evaluation::built_after_compiler_crash(compiled_.log)
                        ? std::string("; ") + evaluation::kCompilerCrashSummary
                        : "")
                << "\n";
    return std::nullopt;
  }

  evaluation::WorkerRequest worker_request() const {
    evaluation::WorkerRequest request;
    request.export_dir = exported_.dir;
    request.library = compiled_.library_path;
    request.direction = direction_;
    request.mode = a_.configs;
    request.seeds = a_.seeds;
    request.seed = static_cast<uint64_t>(a_.seed);
    request.library_calls = a_.library_calls;
    request.time = !a_.no_timing;
    request.compiled_dir = compiled_dir_;
    request.compiled_unavailable = compiled_unavailable_;
    if (a_.atol) request.atol = *a_.atol;
    if (a_.rtol) request.rtol = *a_.rtol;
    request.timing.max_seconds = a_.max_seconds;
    request.trace = !a_.no_timing;
    request.counters = !a_.no_timing && backend_ == evaluation::Backend::cuda;
    request.counters_budget_s = a_.counters_budget;
    return request;
  }

  int evaluate() {
    if (auto busy = evaluation::machine_load_warning(); busy && !a_.no_timing) {
      if (!a_.json) std::cout << "warning: " << *busy << "\n";
      doc_.set("load_warning", *busy);
    }
    if (!a_.json)
      std::cout << "evaluating on " << device()["name"].as_string() << " (" << a_.configs
                << " configs, " << a_.seeds << " seeds) ...\n";
    // Progress while the worker checks and times: the configs of the mode, done/total.
    size_t total = 0;
    for (const auto& c : dir_["configs"].as_array())
      for (const auto& m : c["modes"].as_array()) total += m.as_string() == a_.configs;
    EvalProgress progress(std::cout, total ? total : dir_["configs"].as_array().size(),
                          ::isatty(STDOUT_FILENO) != 0);
    // The evaluator actor's way: once more with a fresh worker where the first could not start.
    auto outcome = evaluation::evaluate_candidate(
        *worker_, worker_request(),
        [&](const json::Value& e) {
          if (!a_.json) progress.on_event(e);
        },
        [&](const std::string& why) {
          if (!a_.json)
            std::cout << "the worker failed (" << why.substr(0, 300)
                      << "); trying once more with a fresh worker\n";
          doc_.set("worker_retried", why);
        });
    progress.finish();
    const auto& result = outcome.result;
    doc_.set("verdict", result["verdict"])
        .set("configs", result["configs"])
        .set("flags", result["flags"]);
    for (const char* field :
         {"failure", "checked_by_checker", "retimed_in_fresh_worker", "stage_seconds"})
      if (result.contains(field)) doc_.set(field, result[field]);
    doc_.set("candidate_output", outcome.candidate_output);
    const auto report = evaluation::read_worker_report(result);
    const std::string verdict = to_string(report.verdict);
    if (!a_.json) print_outcome(report, outcome.candidate_output, result["stage_seconds"]);
    return finish(doc_, a_.json, verdict == "correct" ? 0 : verdict == "incorrect" ? 1 : 2);
  }

  void print_outcome(const evaluation::WorkerReport& report, const std::string& candidate_output,
                     const json::Value& stage_seconds) const {
    print_table(report);
    for (const auto& f : static_findings_.as_array())
      std::cout << "flag: library call in the source, " << f.as_string() << "\n";
    for (const auto& f : report.flags) std::cout << "flag: " << f << "\n";
    if (!candidate_output.empty())
      // Everything the worker's process printed: the kernel's own lines, and PyTorch's warnings
      // from eager's calls (cuDNN's on an LSTM's weights, say).
      std::cout << "output in the worker, the kernel's and PyTorch's (first lines):\n"
                << candidate_output.substr(0, 2000) << "\n";
    size_t ok = 0;
    for (const auto& c : report.configs) ok += c.correct;
    if (stage_seconds.is_object())
      std::cout << "time: " << describe_stage_seconds(stage_seconds) << "\n";
    if (report.verdict == EvalVerdict::correct)
      std::cout << "verdict: correct (" << ok << "/" << report.configs.size()
                << " configs; confirmed by the checker on " << report.checked_by_checker
                << " config-seed pairs)\n";
    else
      std::cout << "verdict: " << to_string(report.verdict) << ": " << report.failure_kind
                << ": " << report.failure_message << "\n";
  }

  const EvalArgs& a_;
  json::Value doc_;
  std::string source_, cache_, direction_;
  Backend backend_ = Backend::cpu;
  evaluation::ExportedTaskInfo exported_;
  json::Value dir_;  ///< the direction's part of the export
  json::Value static_findings_;
  std::unique_ptr<evaluation::WorkerClient> worker_;
  std::string compiled_dir_, compiled_unavailable_;
  evaluation::CompileResult compiled_;
};

}  // namespace

int run_eval(const std::vector<std::string>& argv) {
  EvalArgs a;
  CommandLine line("eval", "check a kernel against a task and time it next to PyTorch",
                   "exit status: 0 correct, 1 incorrect, 2 usage or infrastructure error");
  add_options(line.app(), a);
  if (auto code = line.parse(argv)) return *code;
  return EvalRun(a).run();
}

int run_export(const std::vector<std::string>& argv) {
  std::string task, cache;
  bool force = false;
  CommandLine line("export",
                   "Exports a task folder (robust-kbench format) and prints, per direction, what "
                   "the kernel's function receives and returns (for backward: where each argument "
                   "comes from and which gradient each output is), the configs and the task's "
                   "warnings.",
                   "exit status: 0 every direction exported, 1 some direction cannot be, 2 the "
                   "task cannot be");
  line.app().add_option("--task", task, "the task folder")->required()->type_name("DIR");
  line.app()
      .add_option("--cache", cache, "export cache (default ~/.cache/kforge or $KFORGE_CACHE)")
      ->type_name("DIR");
  line.app().add_flag("--force", force, "export again even when the cache has the task");
  if (auto code = line.parse(argv)) return *code;
  evaluation::ExportOptions o;
  o.cache_dir = cache.empty() ? evaluation::default_cache_dir() : cache;
  o.force = force;
  auto exported = evaluation::export_task(task, o);
  if (!exported.ok) {
    std::cerr << "kforge export: " << exported.error << "\n";
    return 2;
  }
  std::cout << "export: " << exported.dir << " (torch " << exported.doc["torch_version"].as_string()
            << ")\n";
  int failed = 0;
  for (const auto& [direction, d] : exported.doc["directions"].as_object()) {
    if (d.contains("error")) {
      ++failed;
      std::cout << direction << ": cannot be exported: " << d["error"].as_string() << "\n";
      continue;
    }
    const auto& configs = d["configs"].as_array();
    std::cout << direction << ": " << configs.size() << " configs\n";
    if (!configs.empty()) {
      // What the candidate's function receives and returns (for backward: where each argument
      // comes from and which gradient each output is), shown for the first config.
      std::cout << "  the kernel registers `" << direction << "`; for the first config:\n";
      std::istringstream contract(tasks::describe_contract(configs.front(), direction));
      for (std::string line; std::getline(contract, line);) std::cout << "    " << line << "\n";
    }
    for (const auto& c : configs) {
      std::cout << "  " << c["name"].as_string() << "  [";
      for (const auto& m : c["modes"].as_array()) std::cout << " " << m.as_string();
      std::cout << " ]  reference "
                << (c["reference"].contains("autograd_of") ? "autograd through forward_fn"
                                                           : c["reference"]["call"].as_string())
                << "\n";
      for (const auto& w : c["warnings"].as_array())
        std::cout << "    warning: " << w.as_string() << "\n";
    }
  }
  return failed ? 1 : 0;
}

}  // namespace kforge::cli
