#include "tools/kforge/suite_command.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <limits>
#include <map>
#include <set>

#include "actors/files_proposer_actor.hpp"
#include "common/evaluation_defaults.hpp"
#include "common/numbers.hpp"
#include "evaluation/task_export.hpp"
#include "proposers/kernel_files.hpp"
#include "tools/kforge/actor_host.hpp"
#include "tools/kforge/command_line.hpp"
#include "tools/kforge/event_lines.hpp"
#include "tools/kforge/suite_progress.hpp"
#include "tools/kforge/suite_summary.hpp"
#include "tools/kforge/tables.hpp"

namespace kforge::cli {
namespace {

bool is_task(const std::filesystem::path& p) {
  std::error_code ec;
  return std::filesystem::exists(p / "func_forward.py", ec) ||
         std::filesystem::exists(p / "func_backward.py", ec);
}

/// The task folders a --tasks argument names: itself, or the task folders under it (sorted).
std::vector<std::string> task_folders(const std::string& arg) {
  namespace fs = std::filesystem;
  if (is_task(arg)) return {arg};
  std::vector<std::string> out;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(arg, ec); !ec && it != fs::end(it);
       it.increment(ec)) {
    if (it->is_directory(ec) && is_task(it->path())) {
      out.push_back(it->path().string());
      it.disable_recursion_pending();
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

/// A CSV field, quoted where needed; a line break becomes a space (one row per line).
std::string csv_field(std::string s) {
  for (auto& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  if (s.find_first_of(",\"") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string number_text(const json::Value& v, const char* f) {
  return v.is_number() ? format(f, v.as_number()) : "";
}

/// The flags' headlines (what comes before a colon), each once.
std::string flags_text(const json::Value& row) {
  std::string out;
  std::set<std::string> seen;
  for (const auto& f : row["flags"].as_array()) {
    const auto& text = f.as_string();
    auto headline = text.substr(0, text.find(':'));
    if (seen.insert(headline).second) out += (out.empty() ? "" : "; ") + headline;
  }
  return out;
}

std::string suite_csv(const json::Value& suite) {
  std::string out =
      "task,direction,backend,kernel,candidate,status,configs_correct,configs_total,"
      "speedup_eager,speedup_compile,kernel_ms_largest_config,speed_of_light,flags,reason,"
      "compile_baseline,dram_pct,bound,longest_kernel,longest_kernel_own,limiter,limiter_pct\n";
  for (const auto& r : suite["rows"].as_array()) {
    out +=
        csv_field(r["task"].as_string()) + "," + r["direction"].as_string() + "," +
        r["backend"].as_string() + "," + csv_field(r["kernel"].as_string()) + "," +
        (r["candidate"].is_null() ? "" : std::to_string(r["candidate"].as_int())) + "," +
        r["status"].as_string() + "," + std::to_string(r["configs_correct"].as_int()) + "," +
        std::to_string(r["configs_total"].as_int()) + "," +
        number_text(r["speedup_eager"], "%.4g") + "," + number_text(r["speedup_compile"], "%.4g") +
        "," + number_text(r["kernel_ms_largest_config"], "%.6g") + "," +
        number_text(r["speed_of_light"], "%.3g") + "," + csv_field(flags_text(r)) + "," +
        csv_field(r["reason"].as_string()) + "," + csv_field(r["compile_baseline"].as_string()) +
        "," + number_text(r["dram_pct"], "%.3g") + "," + r["bound"].as_string() + "," +
        csv_field(r["longest_kernel"].as_string()) + "," +
        (r["longest_kernel_own"].is_bool() ? (r["longest_kernel_own"].as_bool() ? "1" : "0") : "") +
        "," + r["limiter"].as_string() + "," + number_text(r["limiter_pct"], "%.3g") + "\n";
  }
  return out;
}

/// Drops the rows of directions a task does not have (a task that failed to export ends all
/// the targets of its folder, also those of a direction it never had).
void keep_existing_directions(json::Value& suite, const search::ExperimentSpec& spec) {
  std::map<std::string, std::string> folders;
  for (const auto& t : spec.tasks) folders[std::filesystem::path(t).filename().string()] = t;
  json::Value kept{json::Array{}};
  for (const auto& r : suite["rows"].as_array()) {
    auto it = folders.find(r["task"].as_string());
    if (r["candidate"].is_null() && it != folders.end() &&
        !std::filesystem::exists(std::filesystem::path(it->second) /
                                 ("func_" + r["direction"].as_string() + ".py")))
      continue;
    kept.push(r);
  }
  suite.set("rows", kept);
}

/// The counters' share of DRAM peak of a row's longest kernel and its bound ("87% mem", "3% cmp",
/// "- tc" on the tensor cores; "7% lib" where that kernel is a library's the candidate calls), or
/// nothing without counters.
std::string dram_text(const json::Value& row) {
  if (!row["dram_pct"].is_number()) return "";
  if (!row["longest_kernel_own"].as_bool(true))
    return format("%.0f%%", row["dram_pct"].as_number()) + " lib";
  const std::string bound = row["bound"].as_string();
  return format("%.0f%%", row["dram_pct"].as_number()) + (bound == "memory" ? " mem"
                                                          : bound == "compute"
                                                              ? " cmp"
                                                              : " " + bound.substr(0, 3));
}

std::string one_line(std::string s, size_t width) {
  for (auto& c : s)
    if (c == '\n' || c == '\t') c = ' ';
  return s.size() > width ? s.substr(0, width - 3) + "..." : s;
}

std::string suite_table(const json::Value& suite) {
  std::string out = pad("task", 28) + pad("dir", 9) + pad("kernel", 22) + pad("correct", 9) +
                    pad("x eager", 9) + pad("x compile", 10) + pad("ms largest", 11) +
                    pad("of bound", 9) + pad("DRAM", 9) + "status\n";
  for (const auto& r : suite["rows"].as_array()) {
    const std::string kernel = std::filesystem::path(r["kernel"].as_string()).filename().string();
    std::string status = r["status"].as_string();
    if (!r["reason"].as_string().empty()) status += ": " + r["reason"].as_string();
    if (!r["flags"].as_array().empty()) status += " [" + flags_text(r) + "]";
    out += pad(one_line(r["task"].as_string(), 27), 28) + pad(r["direction"].as_string(), 9) +
           pad(one_line(kernel.empty() ? "-" : kernel, 21), 22) +
           pad(std::to_string(r["configs_correct"].as_int()) + "/" +
                   std::to_string(r["configs_total"].as_int()),
               9) +
           pad(number_text(r["speedup_eager"], "%.2f"), 9) +
           pad(r["speedup_compile"].is_number() ? number_text(r["speedup_compile"], "%.2f")
                                                : (r.contains("compile_baseline") ? "n/a" : ""),
               10) +
           pad(number_text(r["kernel_ms_largest_config"], "%.4f"), 11) +
           pad(r["speed_of_light"].is_number()
                   ? format("%.0f%%", 100 * r["speed_of_light"].as_number())
                   : "",
               9) +
           pad(dram_text(r), 9) + one_line(status, 120) + "\n";
  }
  return out;
}

/// How many kernels the suite has per target, to show progress against.
std::map<std::string, int64_t> expected_kernels(const search::ExperimentSpec& spec) {
  std::map<std::string, int64_t> out;
  for (const auto& task : spec.tasks)
    for (const auto& direction : spec.directions)
      for (const auto& backend : spec.backends) {
        if (!std::filesystem::exists(std::filesystem::path(task) / ("func_" + direction + ".py")))
          continue;
        target t;
        t.task_dir = task;
        t.task = std::filesystem::path(task).filename().string();
        t.direction = direction;
        t.backend = backend;
        const auto files = proposers::kernel_files(spec.proposers.front().pattern,
                                                   {t.task_dir, t.task, t.direction, t.backend});
        out[t.key()] = std::max<int64_t>(1, static_cast<int64_t>(files.size()));
      }
  return out;
}

struct SuiteArgs {
  std::vector<std::string> task_args;
  std::string pattern, backend = "auto", configs = "auto", out_prefix, library = "flag";
  std::string compiled = "max-autotune", directions;
  int64_t seeds = kDefaultSeeds;
  int64_t max_source_bytes = kDefaultMaxSourceBytes;
  int64_t table_id = 0;  ///< --table: only the tables of a suite in the archive
  ForegroundOptions fg;
};

/// The options of `kforge suite`, bound to `a`.
void add_suite_options(CLI::App& app, SuiteArgs& a) {
  app.add_option("--tasks", a.task_args,
                 "task folders; a folder that is no task adds the task folders under it")
      ->type_name("DIR...");
  app.add_option("--kernels", a.pattern,
                 "a glob with {task} (the task folder), {name} (its last component), {direction} "
                 "and {backend}: '{task}/kernels/*', or robust-kbench's "
                 "'highlighted/{name}/{direction}/kernel.cu'. A .cu file is a cuda kernel, any "
                 "other a cpu one; without {direction}, a file belongs to the direction it "
                 "registers (m.def(\"forward\"/\"backward\", ...))")
      ->type_name("PATTERN");
  add_choice(app, "--backend", a.backend, {"cpu", "cuda", "auto"},
             "cpu, cuda or auto (default: cuda when there is a GPU)");
  add_choice(app, "--directions", a.directions,
             {"forward", "backward", "forward,backward", "backward,forward"},
             "forward, backward or forward,backward (default: both, where a task has them)");
  add_choice(app, "--configs", a.configs, {"single", "multi", "auto"},
             "single, multi or auto (default: multi on cuda, single on cpu)");
  app.add_option("--seeds", a.seeds, "trials with fresh inputs per config (default 3)")
      ->check(whole_number(1, 100));
  add_choice(app, "--library-calls", a.library, {"allow", "flag", "forbid"},
             "allow, flag (default) or forbid kernels that hand work to libraries");
  add_choice(
      app, "--compiled", a.compiled, {"max-autotune", "default", "off"},
      "the torch.compile baseline: max-autotune (default), default or off; built once "
      "per task before its first evaluation (minutes for max-autotune) while other tasks are "
      "evaluated, kept in the cache");
  app.add_option("--max-source-bytes", a.max_source_bytes,
                 "the largest kernel source judged (default 262144; a generated kernel for a task "
                 "of many configs, robust-kbench's resnet_block, has 275 KB)")
      ->check(whole_number(1024, kLargestMaxSourceBytes))
      ->type_name("N");
  app.add_option("--out", a.out_prefix,
                 "where the tables go (default suite-EXPERIMENT in the current folder)")
      ->type_name("PREFIX");
  app.add_option("--table", a.table_id,
                 "write the tables of suite EXPERIMENT from what the archive holds, running "
                 "nothing (a finished suite, or one stopped or killed: its kernels not yet "
                 "evaluated read as pending)")
      ->type_name("EXPERIMENT");
  add_foreground_options(app, a.fg);
}

/// The suite as an experiment's configuration: its tasks, the files proposer alone, and every
/// kernel evaluated however many of a target fail to compile (many compile at once).
Result<json::Value> suite_document(const SuiteArgs& a) {
  std::vector<std::string> tasks;
  for (const auto& arg : a.task_args) {
    auto found = task_folders(arg);
    if (found.empty())
      return Result<json::Value>::failure(arg + " is no task folder and holds none");
    tasks.insert(tasks.end(), found.begin(), found.end());
  }
  json::Value doc;
  doc.set("name", "suite " + a.pattern).set("seed", int64_t{0});
  json::Value task_list{json::Array{}};
  for (const auto& t : tasks) task_list.push(std::filesystem::absolute(t).string());
  doc.set("tasks", task_list);
  json::Value dirs{json::Array{}};
  const std::string directions = a.directions.empty() ? "forward,backward" : a.directions;
  for (size_t at = 0; at <= directions.size();) {
    const size_t comma = std::min(directions.find(',', at), directions.size());
    const std::string d = directions.substr(at, comma - at);
    if (d != "forward" && d != "backward")
      return Result<json::Value>::failure("--directions takes forward, backward or both, not \"" +
                                          d + "\"");
    dirs.push(d);
    at = comma + 1;
  }
  doc.set("directions", dirs);
  doc.set("backends", json::Value{json::Array{json::Value(a.backend)}});
  doc.set("config_set", a.configs);
  json::Value proposer;
  proposer.set("kind", "files").set("pattern", a.pattern);
  doc.set("proposers", json::Value{json::Array{proposer}});
  json::Value budget;
  budget.set("candidates_per_target", int64_t{1000000});
  doc.set("budget", budget);
  json::Value policy;
  policy.set("library_calls", a.library).set("max_source_bytes", a.max_source_bytes);
  doc.set("policy", policy);
  json::Value evaluation;
  evaluation.set("seeds", a.seeds).set("compiled_baseline", a.compiled);
  doc.set("evaluation", evaluation);
  json::Value search;
  search.set("abandon_after_compile_failures", int64_t{0}).set("pipeline_depth", int64_t{32});
  doc.set("search", search);
  return {std::move(doc), {}};
}

/// Each event as a line (unless quiet) and, when a kernel is done, how far the suite is.
class SuiteFollower {
 public:
  SuiteFollower(std::map<std::string, int64_t> expected, bool quiet)
      : progress_(std::move(expected)), quiet_(quiet) {}
  int64_t total() const { return progress_.total(); }
  int64_t done() const { return progress_.done(); }

  /// A resumed suite: the kernels its earlier runs finished (the archive's candidates list).
  void count_finished_before(const json::Value& candidates) {
    for (const auto& c : candidates.as_array())
      if (c["outcome"].as_string() != "in pipeline")
        progress_.count_finished_before(c["target"].as_string());
  }

  void operator()(const event_record& ev) {
    const auto event = read_event(ev);
    const bool counted = event && progress_.on_event(*event);
    if (!quiet_) std::cout << elapsed_stamp(start_) << describe_event(ev.kind, event) << "\n";
    if (counted) {
      const int64_t done = progress_.done(), total = progress_.total();
      const int64_t now = done - progress_.done_before();  // this run's, whose pace it knows
      const double elapsed =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
      const double left = now > 0 && done < total ? elapsed / static_cast<double>(now) *
                                                        static_cast<double>(total - done)
                                                  : 0.0;
      std::cout << "progress: " << done << "/" << total << " done, " << format("%.0f s", elapsed)
                << " elapsed"
                << (done < total ? ", about " + format("%.0f s", left) + " left" : std::string())
                << "\n";
    }
    std::cout << std::flush;
  }

 private:
  SuiteProgress progress_;
  bool quiet_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

/// The suite's tables from the archive: PREFIX.csv, PREFIX.json, the table and its summary on the
/// terminal. `status` is the run's that just ended; empty for --table (the archive's status).
int write_tables(actor_host& host, const experiment_record& record,
                 const search::ExperimentSpec& spec, const experiment_status& status,
                 const std::string& prefix) {
  auto suite = host.query({"suite", record.id});
  if (!suite) {
    std::cerr << "kforge suite: suite " << record.id << " cannot be read: " << suite.error << "\n";
    return 2;
  }
  keep_existing_directions(*suite, spec);
  const bool ran = !status.status.empty();
  const std::string state = ran ? status.status : record.status;
  suite->set("status", state);
  if (ran) suite->set("elapsed_seconds", status.elapsed_seconds);
  suite->set("summary", suite_summary(*suite));
  const std::string out_prefix = prefix.empty() ? "suite-" + std::to_string(record.id) : prefix;
  std::ofstream(out_prefix + ".csv") << suite_csv(*suite);
  std::ofstream(out_prefix + ".json") << suite->dump() << "\n";
  std::cout << "\n"
            << suite_table(*suite) << "\n"
            << suite_summary_text((*suite)["summary"]) << "\nsuite " << record.id << " " << state
            << (ran ? " after " + format("%.0f s", status.elapsed_seconds) : std::string())
            << "; tables in " << out_prefix << ".csv and " << out_prefix << ".json\n";
  if (ran && !status.last_error.empty() && status.status == "failed")
    std::cout << "error: " << status.last_error << "\n";
  if (state == "failed") return 2;
  for (const auto& r : (*suite)["rows"].as_array())
    if (r["status"].as_string() != "correct") return 1;
  return 0;
}

}  // namespace

int run_suite(const std::vector<std::string>& args) {
  SuiteArgs a;
  a.fg.archive_path = default_state_dir() + "/archive.db";
  CommandLine line(
      "suite",
      "Evaluates every kernel file that PATTERN names for each task (kforge suite --tasks DIR... "
      "--kernels PATTERN, or kforge suite --resume EXPERIMENT), through the experiment pipeline "
      "(compiled in parallel, one evaluation at a time per GPU, archived, resumable), and writes "
      "a results table: PREFIX.csv, PREFIX.json and a table on the terminal.",
      "exit status: 0 every kernel correct, 1 some row is not, 2 usage or infrastructure");
  add_suite_options(line.app(), a);
  if (auto code = line.parse(args)) return *code;
  if (a.fg.resume_id == 0 && a.table_id == 0 && (a.task_args.empty() || a.pattern.empty()))
    return line.error("give --tasks and --kernels, or --resume EXPERIMENT, or --table EXPERIMENT");
  const std::string& archive_path = a.fg.archive_path;
  const int64_t resume_id = a.fg.resume_id;
  actor_host host;
  auto begun = begin_foreground(host, archive_path, a.fg.cache, a.fg.jobs, a.fg.allow_unconfined,
                                resume_id);
  if (!begun) {
    std::cerr << "kforge suite: " << begun.error << "\n";
    return 2;
  }
  if (a.table_id) {
    auto found = load_experiment(host, a.table_id);
    if (!found) {
      std::cerr << "kforge suite: " << found.error << " (" << archive_path << ")\n";
      return 2;
    }
    if (found->spec.proposers.empty() || found->spec.proposers.front().kind != "files") {
      std::cerr << "kforge suite: experiment " << a.table_id << " is no suite (" << archive_path
                << ")\n";
      return 2;
    }
    return write_tables(host, found->record, found->spec, {}, a.out_prefix);
  }
  search::ExperimentSpec spec = std::move(begun->spec);
  experiment_record record = begun->record;
  if (resume_id) {
    if (spec.proposers.empty() || spec.proposers.front().kind != "files") {
      std::cerr << "kforge suite: experiment " << resume_id
                << " is not a suite; resume it with kforge run --resume\n";
      return 2;
    }
  } else {
    auto doc = suite_document(a);
    if (!doc) {
      std::cerr << "kforge suite: " << doc.error << "\n";
      return 2;
    }
    auto parsed = search::parse_experiment_doc(*doc);
    std::error_code ec;
    auto problems = parsed.ok() ? resolve_spec(parsed.spec, host.rt(),
                                               std::filesystem::current_path(ec).string())
                                : parsed.errors;
    if (!problems.empty()) {
      std::cerr << "kforge suite:\n";
      for (const auto& p : problems) std::cerr << "  " << p << "\n";
      return 2;
    }
    spec = std::move(parsed.spec);
    auto recorded = host.record_experiment(spec);
    if (!recorded) {
      std::cerr << "kforge suite: " << recorded.error << "\n";
      return 2;
    }
    record = *recorded;
  }
  const auto expected = expected_kernels(spec);
  SuiteFollower follow(expected, a.fg.quiet);
  if (resume_id) {
    auto candidates = host.query({"candidates", record.id});
    if (candidates) follow.count_finished_before(*candidates);
  }
  std::cout << "suite " << record.id << ": " << spec.tasks.size() << " task(s), " << follow.total()
            << " kernel(s) for " << expected.size() << " target(s), archive " << archive_path
            << "\n";
  if (resume_id) std::cout << "resumed: " << follow.done() << " of them judged before\n";
  std::cout << std::flush;
  auto status = follow_experiment(host, record, spec, resume_id != 0, "kforge suite",
                                  std::ref(follow));
  return write_tables(host, record, spec, status, a.out_prefix);
}

}  // namespace kforge::cli
