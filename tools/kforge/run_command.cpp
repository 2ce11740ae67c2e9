#include "tools/kforge/run_command.hpp"

#include <cctype>
#include <filesystem>
#include <functional>
#include <optional>

#include <unistd.h>

#include <iostream>
#include <limits>

#include "actors/coordinator.hpp"
#include "archive/report.hpp"
#include "archive/views.hpp"
#include "common/numbers.hpp"
#include "evaluation/task_export.hpp"
#include "messages/errors.hpp"
#include "tools/kforge/actor_host.hpp"
#include "tools/kforge/command_line.hpp"
#include "tools/kforge/event_lines.hpp"
#include "tools/kforge/run_progress.hpp"
#include "tools/kforge/tables.hpp"

namespace kforge::cli {

int run_experiment(const std::vector<std::string>& args) {
  std::string config_path;
  ForegroundOptions fg;
  fg.archive_path = default_state_dir() + "/archive.db";
  int64_t replay_of = 0;
  bool offline = false;
  CommandLine line(
      "run",
      "Runs one experiment in the foreground (kforge run CONFIG, or kforge run --resume "
      "EXPERIMENT): a progress line and a line per event, then a table of the best kernels.",
      "Ctrl-C once stops proposing and lets the pipeline finish; twice leaves at once, and so\n"
      "does SIGTERM (exit status 143; the experiment stays resumable: --resume, or a daemon on\n"
      "the same archive carries it on).\n"
      "exit status: 0 every target has a correct kernel, 1 some has none, 2 usage or "
      "infrastructure");
  auto& app = line.app();
  app.add_option("CONFIG", config_path, "the experiment's configuration (JSON)")->type_name("FILE");
  add_foreground_options(app, fg);
  app.add_flag("--offline", offline,
               "LLM replies only from the response cache (a miss fails the experiment); replays "
               "the decisions of the latest experiment with this configuration");
  app.add_option("--replay", replay_of,
                 "follow the recorded decisions of experiment ID (same candidates with its "
                 "replies in the cache)")
      ->check(whole_number(1, std::numeric_limits<int64_t>::max()))
      ->type_name("ID");
  if (auto code = line.parse(args)) return *code;
  if (config_path.empty() == (fg.resume_id == 0))
    return line.error("give a configuration file or --resume EXPERIMENT");
  const std::string& archive_path = fg.archive_path;
  const int64_t resume_id = fg.resume_id;
  const bool quiet = fg.quiet;
  actor_host host;
  auto begun =
      begin_foreground(host, archive_path, fg.cache, fg.jobs, fg.allow_unconfined, resume_id);
  if (!begun) {
    std::cerr << "kforge run: " << begun.error << "\n";
    return 2;
  }
  auto& rt = host.rt();
  search::ExperimentSpec spec = std::move(begun->spec);
  experiment_record record = begun->record;
  if (!resume_id) {
    auto loaded = load_experiment(config_path, rt, offline);
    if (!loaded) {
      std::cerr << "kforge run: " << loaded.error;
      return 2;
    }
    spec = std::move(*loaded);
    if (offline && !replay_of) {
      // Offline replays the latest run of the same configuration, whose replies are cached.
      auto plain = spec;
      plain.offline = false;
      plain.replay_of = 0;
      const std::string same = plain.to_json().dump();
      auto all = host.experiments();
      if (!all) {
        std::cerr << "kforge run: " << all.error << " (" << archive_path << ")\n";
        return 2;
      }
      // The latest first, as the archive lists them.
      for (auto e = all->begin(); e != all->end() && !replay_of; ++e) {
        auto earlier = search::parse_experiment_spec(e->config_json);
        if (!earlier.ok()) continue;
        earlier.spec.replay_of = 0;
        earlier.spec.offline = false;
        if (earlier.spec.to_json().dump() != same) continue;
        auto view = host.query({"experiment", e->id});
        if (view && (*view)["candidates"].as_int() > 0) replay_of = e->id;
      }
      if (!replay_of)
        std::cerr << "kforge run: no earlier run of this configuration in " << archive_path
                  << "; deciding afresh from the cache alone\n";
    }
    if (replay_of && !host.query({"experiment", replay_of})) {
      std::cerr << "kforge run: no experiment " << replay_of << " to replay in " << archive_path
                << "\n";
      return 2;
    }
    spec.replay_of = replay_of;
    spec.offline = offline;
    auto recorded = host.record_experiment(spec);
    if (!recorded) {
      std::cerr << "kforge run: " << recorded.error << "\n";
      return 2;
    }
    record = *recorded;
  }
  std::cout << "experiment " << record.id << " \"" << record.name << "\": seed " << spec.seed
            << ", " << spec.tasks.size() << " task(s), archive " << archive_path << "\n"
            << std::flush;
  const auto start = std::chrono::steady_clock::now();
  RunProgress progress(std::cout, spec.candidates_per_target, ::isatty(STDOUT_FILENO) != 0, start);
  auto last_shown = start;
  auto final_status = follow_experiment(
      host, record, spec, resume_id != 0, "kforge run",
      [&](const event_record& ev) {
        const auto event = read_event(ev);
        if (!quiet) {
          progress.before_line();
          std::cout << elapsed_stamp(start) << describe_event(ev.kind, event) << "\n" << std::flush;
        }
        if (event) progress.on_event(*event);
      },
      [&] {
        const auto now = std::chrono::steady_clock::now();
        if (quiet || now - last_shown < std::chrono::seconds(1) || !progress.due()) return;
        last_shown = now;
        progress.show(actors_at_work(host));
      });
  progress.finish();
  std::cout << "\nexperiment " << record.id << " " << final_status.status << " after "
            << format("%.0f s", final_status.elapsed_seconds) << ": " << final_status.proposed
            << " proposed, " << final_status.rejected << " rejected before evaluation, "
            << final_status.evaluated << " evaluated, " << final_status.correct << " correct\n";
  if (!final_status.last_error.empty())
    std::cout << "last error: " << final_status.last_error << "\n";
  if (!final_status.models.empty()) {
    json::Value models{json::Array{}};
    for (const auto& u : final_status.models) {
      json::Value m;
      m.set("name", u.name).set("calls", u.calls).set("failures", u.failures);
      m.set("cached", u.cached).set("input_tokens", u.input_tokens);
      m.set("output_tokens", u.output_tokens).set("cost_usd", u.cost_usd);
      models.push(std::move(m));
    }
    std::cout << "\n" << usage_table(models, "");
  }
  int code = final_status.status == "failed" ? 2 : 0;
  if (auto view = host.query({"experiment", record.id})) {
    std::cout << "\n" << experiment_table(*view);
    for (const auto& t : (*view)["targets"].as_array())
      if (!t.contains("best_candidate") && code == 0) code = 1;
    if ((*view)["targets"].as_array().empty() && code == 0) code = 1;
  }
  std::cout << "\nkforge show CANDIDATE --archive " << archive_path
            << " prints a kernel; kforge report " << record.id << " --archive " << archive_path
            << " each best kernel's times per config and what the LLMs cost\n";
  return code;
}

namespace {

/// `kforge show` and `kforge report`: one archive document by id, as a table, JSON, or (where
/// `csv` is given) CSV.
int print_view(
    const std::vector<std::string>& args, const std::string& command,
    const std::string& description, const std::string& what,
    const std::function<Result<std::optional<json::Value>>(archive::Archive&, int64_t)>& view,
    const std::function<std::string(const json::Value&, bool plain)>& table,
    const std::function<std::string(const json::Value&)>& csv = {}) {
  std::string archive_path = default_state_dir() + "/archive.db", id_text;
  bool plain = false, as_json = false, as_csv = false;
  CommandLine line(command, description);
  auto& app = line.app();
  std::string id_name = what;
  for (auto& c : id_name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  app.add_option(id_name, id_text, "the " + what + "'s id")->required();
  add_archive_option(app, archive_path);
  auto* json_flag = app.add_flag("--json", as_json, "print the document as JSON");
  if (csv) app.add_flag("--csv", as_csv, "print the results as CSV")->excludes(json_flag);
  if (command == "show") app.add_flag("--no-source", plain, "leave the kernel's source out");
  if (auto code = line.parse(args)) return *code;
  // The id is read here, not by a validator: the message names it as people say it.
  auto parsed_id = parse_integer(id_text, 1, std::numeric_limits<int64_t>::max());
  if (!parsed_id)
    return line.error(
        integer_error("the " + what + " id", id_text, 1, std::numeric_limits<int64_t>::max()));
  const int64_t id = *parsed_id;
  auto opened = open_archive_to_read(archive_path);
  if (!opened) {
    std::cerr << "kforge " << command << ": " << opened.error << "\n";
    return 2;
  }
  auto& db = *opened;
  auto found = view(*db, id);
  if (!found) {
    std::cerr << "kforge " << command << ": " << archive_path << ": " << found.error << "\n";
    return 2;
  }
  auto& doc = *found;
  if (!doc) {
    std::cerr << "kforge " << command << ": no " << what << " " << id << " in " << archive_path
              << "\n";
    return 2;
  }
  // Which archive answered: a line before a table, a member of the JSON document.
  if (as_json)
    std::cout << json::Value(*doc).set("archive", archive_path).dump() << "\n";
  else if (as_csv)
    std::cout << csv(*doc);
  else
    std::cout << "archive " << archive_path << "\n" << table(*doc, plain);
  return 0;
}

}  // namespace

int run_show(const std::vector<std::string>& args) {
  return print_view(args, "show",
                    "An archived candidate: verdicts, results per config, profile, source.",
                    "candidate", archive::candidate_view,
                    [](const json::Value& v, bool plain) { return candidate_report(v, !plain); });
}

int run_list(const std::vector<std::string>& args) {
  std::string archive_path = default_state_dir() + "/archive.db";
  bool as_json = false;
  CommandLine line("list",
                   "The experiments in an archive: status, candidates, correct ones, and the "
                   "best speedup per target.");
  add_archive_option(line.app(), archive_path);
  line.app().add_flag("--json", as_json, "print the list as JSON");
  if (auto code = line.parse(args)) return *code;
  auto opened = open_archive_to_read(archive_path);
  if (!opened) {
    std::cerr << "kforge list: " << opened.error << "\n";
    return 2;
  }
  auto& db = *opened;
  json::Value views;
  views.array();
  auto experiments = archive::experiments_view(*db);
  if (!experiments) {
    std::cerr << "kforge list: " << archive_path << ": " << experiments.error << "\n";
    return 2;
  }
  for (const auto& e : experiments->as_array()) {
    auto view = archive::experiment_view(*db, e["id"].as_int());
    if (!view) {
      std::cerr << "kforge list: " << archive_path << ": " << view.error << "\n";
      return 2;
    }
    if (*view) {
      json::Value row = **view;
      row.set("config", json::Value());
      views.push(row);
    }
  }
  if (as_json)
    std::cout
        << json::Value(json::Object{}).set("archive", archive_path).set("experiments", views).dump()
        << "\n";
  else
    std::cout << "archive " << archive_path << "\n" << experiments_list_table(views);
  return 0;
}

int run_report(const std::vector<std::string>& args) {
  return print_view(
      args, "report",
      "Per target the best kernel (speedup, share of the speed-of-light bound, after how many "
      "candidates, its ancestors) with its per-config times (medians with p10-p90) next to eager "
      "PyTorch and torch.compile; the LLMs' optimisation strategies with their records, LLM "
      "calls, tokens and money per model, the cost per correct kernel, and each LLM verifier's "
      "confusion matrix against the hardware's verdicts.",
      "experiment", archive::report_view,
      [](const json::Value& v, bool) { return report_table(v); }, report_csv);
}

}  // namespace kforge::cli
