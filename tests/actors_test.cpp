// The actors, stepped deterministically by CAF's test coordinator: the real coordinator, archive,
// verifier, profiler and built-in proposer; stand-ins for the compiler and the evaluator (they
// implement the same typed interfaces and answer as a function of the candidate's source, so
// the tests decide when and in which order evaluations finish) and for a failing proposer.
#include <gtest/gtest.h>

#include <sqlite3.h>
#include <unistd.h>
#include <caf/all.hpp>
#include <caf/scheduler/test_coordinator.hpp>

#include <deque>
#include <filesystem>
#include <fstream>
#include <set>

#include "actors/archive_actor.hpp"
#include "actors/archive_reads.hpp"
#include "actors/builtin_proposer_actor.hpp"
#include "actors/coordinator.hpp"
#include "actors/files_proposer_actor.hpp"
#include "actors/profiler.hpp"
#include "actors/runtime.hpp"
#include "actors/verifier.hpp"
#include "common/evaluation_defaults.hpp"
#include "evaluation/hashing.hpp"
#include "evaluation/source_check.hpp"
#include "messages/errors.hpp"
#include "messages/registration.hpp"
#include "proposers/kernel_files.hpp"
#include "tests/test_support.hpp"

namespace kforge {
namespace {

namespace fs = std::filesystem;

/// A softmax-like task export, enough for the verifier and the built-in proposer.
const char* kTaskJson = R"({"format": 1, "task": "softmax", "directions": {"forward": {"configs": [
  {"name": "c0", "modes": ["single", "multi"],
   "args": [{"name": "x", "kind": "input", "dtype": "float32", "shape": [4, 8]},
            {"name": "dim", "kind": "scalar", "type": "int", "value": -1}],
   "outputs": [{"dtype": "float32", "shape": [4, 8]}],
   "reference": {"file": "forward_fn.pt", "call": "all_args", "ops": ["aten::softmax"]}}]}}})";

/// Compiles everything (or, `failing`, nothing) at once; exports to `export_dir`.
compiler_actor::behavior_type fake_compiler(compiler_actor::pointer, std::string export_dir,
                                            bool failing) {
  return {
      [](status_atom) {
        actor_status s;
        s.name = "compiler";
        return s;
      },
      [failing](compile_atom, compile_request& r) {
        evaluation::CompileResult out;
        out.ok = !failing;
        if (failing) out.error = "error: expected ';' before '}'";
        out.library_path =
            evaluation::sha256_hex(r.source);  // the evaluator's verdict follows from it
        out.log = "fake compile";
        return candidate_compile{r.candidate_id, out};
      },
      [export_dir](export_atom, export_request& r) {
        // Task folders named for what goes wrong: "broken" cannot be exported; "cumsum" exports
        // a task no built-in template implements.
        const auto name = fs::path(r.task_dir).filename().string();
        export_result out;
        out.ok = name != "broken";
        if (!out.ok) {
          out.error = "Model(**{'kernel_size': 2}) failed";
          return out;
        }
        out.directions = {"forward"};
        out.export_dir = name == "cumsum"
                             ? (fs::path(export_dir).parent_path() / "export_cumsum").string()
                             : export_dir;
        return out;
      },
  };
}

/// What the stand-in evaluator did, for the test to inspect.
struct EvaluatorLog {
  std::vector<int64_t> evaluated;   ///< candidate ids in the order they were answered
  std::vector<int64_t> unprofiled;  ///< those asked without a trace or counters (confirmations)
  size_t max_pending = 0;
};

/// A verdict that depends on the source only: 3 in 4 correct, speedups from 1 to 3.
eval_result outcome(const eval_request& r) {
  eval_result e;
  e.candidate_id = r.candidate_id;
  e.config_set = r.worker.mode;
  const int a = std::stoi(r.worker.library.substr(0, 1), nullptr, 16);
  const int b = std::stoi(r.worker.library.substr(1, 1), nullptr, 16);
  e.report.verdict = a < 12 ? EvalVerdict::correct : EvalVerdict::incorrect;
  evaluation::ConfigReport c;
  c.name = "c0";
  c.correct = a < 12;
  c.speedup = 1 + b / 8.0;
  if (c.correct) c.kernel.median_ms = 1;
  // Softmax's kernels come near the bound (up to 15/16 of it); other tasks' stay at a tenth.
  c.bytes_moved = 1e6;
  c.copy_bound_ms = r.tgt.task == "softmax" ? b / 16.0 : 0.1;
  c.eager.median_ms = c.speedup;
  c.record_json = "{}";
  if (!c.correct) {
    e.report.failure_kind = c.failure_kind = "mismatch";
    e.report.failure_message = c.failure_message = "wrong values";
  }
  e.report.configs.push_back(c);
  return e;
}

struct fake_evaluator_state {
  bool deferred = false;
  std::deque<std::pair<eval_request, caf::response_promise>> pending;
  std::shared_ptr<EvaluatorLog> log;
};

/// Answers at once, or (deferred) holds every request until released with (tick_atom, lifo).
caf::behavior fake_evaluator(caf::stateful_actor<fake_evaluator_state>* self, bool deferred,
                             std::shared_ptr<EvaluatorLog> log) {
  self->state.deferred = deferred;
  self->state.log = std::move(log);
  return {
      [self](status_atom) {
        actor_status s;
        s.name = "evaluator";
        s.queued = static_cast<int64_t>(self->state.pending.size());
        return s;
      },
      [self](evaluate_atom, eval_request& r) -> caf::result<eval_result> {
        auto& st = self->state;
        if (!r.worker.trace) st.log->unprofiled.push_back(r.candidate_id);
        if (!st.deferred) {
          st.log->evaluated.push_back(r.candidate_id);
          return outcome(r);
        }
        auto promise = self->make_response_promise();
        st.pending.emplace_back(r, promise);
        st.log->max_pending = std::max(st.log->max_pending, st.pending.size());
        return caf::delegated<eval_result>();
      },
      [](device_atom) { return device_info{true, "cuda", "stand-in GPU", "sm_90", "{}", ""}; },
      [self](tick_atom, bool lifo) {
        auto& st = self->state;
        if (st.pending.empty()) return;
        auto [request, promise] = lifo ? st.pending.back() : st.pending.front();
        if (lifo)
          st.pending.pop_back();
        else
          st.pending.pop_front();
        st.log->evaluated.push_back(request.candidate_id);
        promise.deliver(outcome(request));
      },
  };
}

proposer_actor::behavior_type failing_proposer(proposer_actor::pointer) {
  return {
      [](status_atom) { return actor_status{}; },
      [](propose_atom, propose_request&) -> caf::result<proposal> {
        return make_error(error_code::proposer_failure, "the model is unreachable");
      },
      [](meta_atom, meta_request&) -> caf::result<meta_reply> {
        return make_error(error_code::proposer_failure, "the model is unreachable");
      },
  };
}

/// One candidate as the tests compare runs: what was proposed, from which parent.
struct Proposed {
  int64_t sequence;
  std::string strategy, params;
  int64_t parent_sequence;  // -1: none
  bool operator==(const Proposed&) const = default;
};

class ActorTest : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = test::fresh_test_dir("actor_test");
    fs::create_directories(dir_ / "export");
    std::ofstream(dir_ / "export" / "task.json") << kTaskJson;
    fs::create_directories(dir_ / "export_cumsum");
    std::string cumsum = kTaskJson;
    cumsum.replace(cumsum.find("aten::softmax"), 13, "aten::cumsum");
    std::ofstream(dir_ / "export_cumsum" / "task.json") << cumsum;
  }
  void TearDown() override {
    EXPECT_TRUE(untargeted_.empty()) << untargeted_.front();
    stop_system();
    fs::remove_all(dir_);
  }

  /// A fresh actor system on the test scheduler, with an archive in `archive_name`.
  void start_system(const std::string& archive_name = "archive.db") {
    stop_system();
    cfg_ = std::make_unique<caf::actor_system_config>();
    cfg_->set("scheduler.policy", caf::atom("testing"));
    cfg_->set("logger.verbosity", caf::atom("quiet"));
    register_message_types(*cfg_);
    sys_ = std::make_unique<caf::actor_system>(*cfg_);
    sched_ = &dynamic_cast<caf::scheduler::test_coordinator&>(sys_->scheduler());
    self_ = std::make_unique<caf::scoped_actor>(*sys_);
    auto opened = archive::Archive::open((dir_ / archive_name).string());
    ASSERT_TRUE(opened) << opened.error;
    db_ = std::move(*opened);
    log_ = std::make_shared<EvaluatorLog>();
  }

  void stop_system() {
    if (!sys_) return;
    for (auto& a : spawned_) caf::anon_send_exit(a, caf::exit_reason::user_shutdown);
    spawned_.clear();
    sched_->run();
    self_.reset();
    sys_.reset();
    cfg_.reset();
    db_.reset();
  }

  template <class Handle>
  Handle keep(Handle h) {
    spawned_.push_back(caf::actor_cast<caf::actor>(h));
    return h;
  }

  stage_handles stages(bool deferred, bool failing_proposer_instead = false,
                       bool failing_compiler = false) {
    stage_handles s;
    s.archive = keep(sys_->spawn(archive_actor_impl, db_));
    s.compiler = keep(sys_->spawn(fake_compiler, (dir_ / "export").string(), failing_compiler));
    s.verifier = keep(sys_->spawn(verifier_impl));
    s.profiler = keep(sys_->spawn(profiler_impl));
    s.proposers["builtin"] = failing_proposer_instead ? keep(sys_->spawn(failing_proposer))
                                                      : keep(sys_->spawn(builtin_proposer_impl));
    evaluator_ = keep(sys_->spawn(fake_evaluator, deferred, log_));
    s.evaluators["cpu"] = caf::actor_cast<evaluator_actor>(evaluator_);
    return s;
  }

  /// `budget_more` and `search_more` add settings to those objects (each starting with a comma).
  search::ExperimentSpec spec(int64_t budget, int depth, const std::string& backend = "cpu",
                              const std::string& extra_task = "",
                              const std::string& budget_more = "",
                              const std::string& search_more = "") {
    std::string tasks = "\"" + (dir_ / "softmax").string() + "\"";
    if (!extra_task.empty()) tasks += ", \"" + (dir_ / extra_task).string() + "\"";
    auto parsed = search::parse_experiment_spec(
        R"({"seed": 11, "tasks": [)" + tasks + R"(], "backends": [")" + backend +
        R"("], "budget": {"candidates_per_target": )" + std::to_string(budget) + budget_more +
        R"(}, "search": {"pipeline_depth": )" + std::to_string(depth) + search_more + "}}");
    EXPECT_TRUE(parsed.ok()) << parsed.error_text();
    return parsed.spec;
  }

  coordinator_actor start(const search::ExperimentSpec& s, const stage_handles& st,
                          bool resume = false, int64_t id = 0) {
    coordinator_config c;
    if (!id) {
      id = db_->add_experiment({0, "test", s.to_json().dump(), s.seed, "starting", 0})
               .value.value_or(0);
    }
    c.experiment = {id, "test", s.to_json().dump(), s.seed, "starting"};
    c.spec = s;
    c.resume = resume;
    c.listener = caf::actor_cast<experiment_listener>(*self_);
    experiment_ = id;
    return keep(sys_->spawn(coordinator_impl, c, st));
  }

  /// Steps the actors, finishing one deferred evaluation a step, until the experiment ends (at most
  /// 100 steps).
  void finish_deferred() {
    for (int step = 0; step < 100 && !collect(); ++step) {
      sched_->run();
      caf::anon_send(evaluator_, tick_atom::value, false);
      sched_->run();
    }
  }

  /// Drains the listener's mailbox; true once the experiment ended.
  bool collect() {
    bool more = true;
    while (more)
      (*self_)->receive(
          [&](event_atom, event_record& e) {
            events_.push_back(e.kind);
            // Every event about a target names it (the suite's per-target progress reads it).
            auto d = json::parse(e.detail_json);
            if (events::about_target(events::kind_named(e.kind)) &&
                (!d.value || (*d.value)["target"].as_string().empty()))
              untargeted_.push_back(e.kind + " " + e.detail_json);
          },
          [&](done_atom, experiment_status& s) { done_ = s; },
          caf::after(std::chrono::seconds(0)) >> [&] { more = false; });
    return done_.has_value();
  }

  std::vector<Proposed> proposed() {
    std::map<int64_t, int64_t> sequence_of;
    std::vector<Proposed> out;
    for (const auto& c : test::must(db_->candidates(experiment_))) {
      sequence_of[c.id] = c.sequence;
      out.push_back(
          {c.sequence, c.strategy, c.params, c.parent_id ? sequence_of.at(c.parent_id) : -1});
    }
    return out;
  }

  /// Every candidate has exactly one final verdict, and evaluated ones one set of results.
  void expect_each_finished_once() {
    for (const auto& c : test::must(db_->candidates(experiment_))) {
      int finals = 0, evaluations = 0;
      for (const auto& v : test::must(db_->verdicts(c.id))) {
        finals += v.stage == "evaluate" || v.verdict == "rejected";
        evaluations += v.stage == "evaluate";
      }
      EXPECT_EQ(finals, 1) << "candidate " << c.id;
      EXPECT_EQ(test::must(db_->results(c.id)).size(), static_cast<size_t>(evaluations))
          << "candidate " << c.id;
    }
  }

  fs::path dir_;
  std::unique_ptr<caf::actor_system_config> cfg_;
  std::unique_ptr<caf::actor_system> sys_;
  caf::scheduler::test_coordinator* sched_ = nullptr;
  std::unique_ptr<caf::scoped_actor> self_;
  std::shared_ptr<archive::Archive> db_;
  std::shared_ptr<EvaluatorLog> log_;
  std::vector<caf::actor> spawned_;
  caf::actor evaluator_;
  int64_t experiment_ = 0;
  std::vector<std::string> events_;
  std::vector<std::string> untargeted_;  ///< events about a target that do not name it
  std::optional<experiment_status> done_;
};

TEST_F(ActorTest, RunsToTheBudgetAndArchivesEveryOutcomeBeforeReporting) {
  start_system();
  start(spec(10, 3), stages(false));
  sched_->run();
  ASSERT_TRUE(collect());
  EXPECT_EQ(done_->status, "finished");
  EXPECT_EQ(done_->proposed, 10);
  EXPECT_EQ(done_->evaluated, 10);
  EXPECT_EQ(test::must(db_->candidates(experiment_)).size(), 10u);
  expect_each_finished_once();
  EXPECT_EQ(test::must(db_->experiment(experiment_))->status, "finished");
  // Everything the listener heard was archived first.
  auto history = test::must(db_->history(experiment_));
  ASSERT_EQ(history.size(), events_.size());
  for (size_t i = 0; i < events_.size(); ++i) EXPECT_EQ(history[i].kind, events_[i]);
  EXPECT_EQ(events_.front(), "experiment_started");
  EXPECT_EQ(events_.back(), "experiment_finished");
  // Correct candidates were profiled.
  for (const auto& p : test::must(db_->progress(experiment_))) EXPECT_EQ(p.profiled, p.correct);
}

TEST_F(ActorTest, TheOrderInWhichEvaluationsFinishDoesNotChangeTheCandidates) {
  start_system("in_order.db");
  start(spec(14, 4), stages(false));
  sched_->run();
  ASSERT_TRUE(collect());
  auto in_order = proposed();
  ASSERT_EQ(in_order.size(), 14u);
  // At least one candidate descends from another: the outcomes steer the proposals.
  EXPECT_TRUE(std::any_of(in_order.begin(), in_order.end(),
                          [](auto& p) { return p.parent_sequence >= 0; }));

  done_.reset();
  start_system("last_first.db");
  start(spec(14, 4), stages(true));
  for (int step = 0; step < 1000 && !collect(); ++step) {
    sched_->run();
    caf::anon_send(evaluator_, tick_atom::value, true);  // the newest evaluation finishes first
    sched_->run();
  }
  ASSERT_TRUE(done_);
  EXPECT_EQ(proposed(), in_order);
  EXPECT_LE(log_->max_pending, 4u);  // back-pressure: never more than the pipeline depth
  EXPECT_GE(log_->max_pending, 2u);  // and the stages really overlapped
  expect_each_finished_once();
}

TEST_F(ActorTest, IslandsAndSpeedOfLightBudgetingSteerTheRunAndStillRepeatExactly) {
  // Softmax comes near its bound; a second softmax task named otherwise never does (the
  // stand-in evaluator goes by the name) and gets what softmax leaves.
  const auto s = spec(8, 2, "cpu", "rowsoftmax", R"(, "speed_of_light": {"fraction": 0.5})",
                      R"(, "islands": {"count": 2, "migration_interval": 4})");
  start_system("structured.db");
  start(s, stages(false));
  sched_->run();
  ASSERT_TRUE(collect());
  EXPECT_EQ(done_->status, "finished");
  const auto in_order = proposed();
  std::map<std::string, int> per_task;
  std::set<int64_t> islands;
  for (const auto& c : test::must(db_->candidates(experiment_))) {
    ++per_task[c.task];
    auto d = json::parse(c.decision);
    ASSERT_TRUE(d) << c.decision;
    islands.insert((*d.value)["island"].as_int());
  }
  EXPECT_LT(per_task["softmax"], 8);     // it stopped at its share once near the bound
  EXPECT_GT(per_task["rowsoftmax"], 8);  // and its budget went on
  EXPECT_EQ(per_task["softmax"] + per_task["rowsoftmax"], 16);
  EXPECT_EQ(islands, (std::set<int64_t>{0, 1}));
  expect_each_finished_once();

  // The newest evaluation finishing first changes nothing: every decision saw the same outcomes.
  done_.reset();
  start_system("structured_last_first.db");
  start(s, stages(true));
  for (int step = 0; step < 1000 && !collect(); ++step) {
    sched_->run();
    caf::anon_send(evaluator_, tick_atom::value, true);
    sched_->run();
  }
  ASSERT_TRUE(done_);
  EXPECT_EQ(proposed(), in_order);
}

TEST_F(ActorTest, TheBuiltInRulesWriteStrategiesItsProposalsFollowAndARunRepeats) {
  const auto s = spec(16, 2, "cpu", "", "", R"(, "meta_generation": {"every": 4, "count": 3})");
  auto run = [&](const std::string& archive_name, bool last_first) {
    done_.reset();
    start_system(archive_name);
    start(s, stages(last_first));
    for (int step = 0; step < 1000 && !collect(); ++step) {
      sched_->run();
      if (last_first) caf::anon_send(evaluator_, tick_atom::value, true);
      sched_->run();
    }
    ASSERT_TRUE(done_);
    EXPECT_EQ(done_->status, "finished");
  };
  run("meta.db", false);
  const auto in_order = proposed();
  auto written = test::must(db_->strategies(experiment_));
  ASSERT_FALSE(written.empty());
  std::set<std::string> texts;
  for (const auto& w : written) {
    EXPECT_EQ(w.source, "rules");
    EXPECT_EQ(w.serves, "builtin");
    EXPECT_GE(w.round, 1);
    texts.insert(w.text);
  }
  // Later proposals were asked to follow them, and where the parent allowed the move, the
  // candidate is the parent with that parameter moved that way (else the usual mutation).
  int asked = 0, followed = 0;
  for (const auto& c : test::must(db_->candidates(experiment_))) {
    auto d = json::parse(c.decision);
    ASSERT_TRUE(d) << c.decision;
    asked += texts.count((*d.value)["strategy"].as_string()) > 0;
  }
  for (const auto& e : test::must(db_->history(experiment_, {"proposed"}))) {
    const auto detail = *json::parse(e.detail_json).value;
    const auto rationale = detail["rationale"].as_string();
    if (rationale.rfind("strategy \"", 0) != 0) continue;
    const auto strategy = rationale.substr(10, rationale.find('"', 10) - 10);
    EXPECT_TRUE(texts.count(strategy)) << rationale;
    ++followed;
    auto c = test::must(db_->candidate(detail["candidate"].as_int()));
    ASSERT_TRUE(c && c->parent_id) << e.detail_json;
    auto parent = test::must(db_->candidate(c->parent_id));
    const auto param = strategy.substr(6);  // after "raise " or "lower "
    const auto before = (*json::parse(parent->params).value)[param].as_int();
    const auto after = (*json::parse(c->params).value)[param].as_int();
    EXPECT_EQ(after > before, strategy.rfind("raise", 0) == 0) << rationale;
    EXPECT_NE(after, before) << rationale;
  }
  EXPECT_GE(asked, followed);
  EXPECT_GE(followed, 1);
  auto events = test::must(db_->history(experiment_, {"strategies_written"}));
  EXPECT_FALSE(events.empty());
  expect_each_finished_once();

  // Evaluations finishing newest first write the same strategies and make the same candidates.
  run("meta_last_first.db", true);
  EXPECT_EQ(proposed(), in_order);
  std::vector<std::string> again;
  for (const auto& w : test::must(db_->strategies(experiment_))) again.push_back(w.text);
  std::vector<std::string> first;
  for (const auto& w : written) first.push_back(w.text);
  EXPECT_EQ(again, first);
}

TEST_F(ActorTest, PauseHoldsNewWorkResumeFinishesIt) {
  start_system();
  auto c = start(spec(8, 2), stages(true));
  sched_->run();
  const size_t before = test::must(db_->candidates(experiment_)).size();
  EXPECT_EQ(before, 2u);  // the pipeline is full
  caf::anon_send(c, pause_atom::value);
  sched_->run();
  caf::anon_send(evaluator_, tick_atom::value, false);
  caf::anon_send(evaluator_, tick_atom::value, false);
  sched_->run();
  EXPECT_EQ(test::must(db_->candidates(experiment_)).size(), before);  // nothing new while paused
  EXPECT_EQ(test::must(db_->experiment(experiment_))->status, "paused");
  caf::anon_send(c, resume_atom::value);
  finish_deferred();
  ASSERT_TRUE(done_);
  EXPECT_EQ(done_->status, "finished");
  EXPECT_EQ(test::must(db_->candidates(experiment_)).size(), 8u);
}

// A pause that reaches the experiment while it is being set up (a daemon's restart resumes it, a
// console pauses it at once) holds it from its start, and is announced when it is answered, as a
// running experiment's is; the resume that follows lets it finish.
TEST_F(ActorTest, APauseWhileTheExperimentStartsHoldsItFromItsStart) {
  start_system();
  auto c = start(spec(8, 2), stages(true));
  caf::anon_send(c, pause_atom::value);  // handled before the setup's answer: still starting
  sched_->run();
  caf::anon_send(evaluator_, tick_atom::value, false);
  sched_->run();
  EXPECT_TRUE(test::must(db_->candidates(experiment_)).empty());  // nothing proposed
  EXPECT_EQ(test::must(db_->experiment(experiment_))->status, "paused");
  const auto paused = test::must(db_->history(experiment_, {"experiment_paused"}));
  EXPECT_EQ(paused.size(), 1u);
  caf::anon_send(c, resume_atom::value);
  finish_deferred();
  ASSERT_TRUE(done_);
  EXPECT_EQ(done_->status, "finished");
  EXPECT_EQ(test::must(db_->candidates(experiment_)).size(), 8u);
  EXPECT_EQ(test::must(db_->history(experiment_, {"experiment_resumed"})).size(), 1u);
}

TEST_F(ActorTest, StopLetsThePipelineFinishAndProposesNothingMore) {
  start_system();
  auto c = start(spec(50, 3), stages(true));
  sched_->run();
  caf::anon_send(c, stop_atom::value);
  finish_deferred();
  ASSERT_TRUE(done_);
  EXPECT_EQ(done_->status, "stopped");
  EXPECT_EQ(test::must(db_->candidates(experiment_)).size(), 3u);
  expect_each_finished_once();
}

TEST_F(ActorTest, AFailingProposerIsBackedOffThenAbandoned) {
  start_system();
  start(spec(5, 2), stages(false, true));
  for (int step = 0; step < 40 && !collect(); ++step) {
    sched_->run();
    sched_->trigger_timeouts();  // the back-off's delayed tick
  }
  ASSERT_TRUE(done_);
  EXPECT_EQ(std::count(events_.begin(), events_.end(), "proposal_failed"), 7);
  EXPECT_EQ(std::count(events_.begin(), events_.end(), "target_abandoned"), 1);
  EXPECT_EQ(done_->status, "finished");
  EXPECT_NE(done_->last_error.find("unreachable"), std::string::npos) << done_->last_error;
  auto history = test::must(db_->history(experiment_));
  auto first_retry = std::find_if(history.begin(), history.end(),
                                  [](auto& e) { return e.kind == "proposal_failed"; });
  ASSERT_NE(first_retry, history.end());
  EXPECT_NE(first_retry->detail_json.find("\"kind\":\"proposer_error\""), std::string::npos);
  EXPECT_NE(first_retry->detail_json.find("\"retry_in_seconds\":1"), std::string::npos);
}

TEST_F(ActorTest, ATargetNoProposerCanWriteIsAbandonedAtOnceAndTheOthersGoOn) {
  start_system();
  start(spec(4, 2, "cpu", "cumsum"), stages(false));
  for (int step = 0; step < 40 && !collect(); ++step) sched_->run();  // no timeouts needed
  ASSERT_TRUE(done_);
  EXPECT_EQ(done_->status, "finished");
  EXPECT_EQ(std::count(events_.begin(), events_.end(), "proposal_failed"), 0);
  EXPECT_EQ(std::count(events_.begin(), events_.end(), "target_abandoned"), 1);
  ASSERT_EQ(done_->targets.size(), 2u);
  EXPECT_EQ(done_->targets[0].candidates, 4);  // softmax goes on to its budget
  EXPECT_EQ(done_->targets[1].candidates, 0);
  EXPECT_NE(done_->targets[1].ended.find("no proposer can write it"), std::string::npos)
      << done_->targets[1].ended;
  EXPECT_NE(done_->targets[1].ended.find("aten::cumsum"), std::string::npos)
      << done_->targets[1].ended;
}

TEST_F(ActorTest, ATaskThatCannotBeExportedEndsItsTargetsAndTheOthersGoOn) {
  start_system();
  start(spec(3, 2, "cpu", "broken"), stages(false));
  for (int step = 0; step < 40 && !collect(); ++step) sched_->run();
  ASSERT_TRUE(done_);
  EXPECT_EQ(done_->status, "finished");
  ASSERT_EQ(done_->targets.size(), 2u);
  EXPECT_EQ(done_->targets[0].candidates, 3);
  EXPECT_GT(done_->targets[0].best_candidate, 0);
  EXPECT_EQ(done_->targets[1].target_key, "broken/forward/cpu");
  EXPECT_NE(done_->targets[1].ended.find("kernel_size"), std::string::npos)
      << done_->targets[1].ended;
  EXPECT_EQ(std::count(events_.begin(), events_.end(), "target_failed"), 1);
}

TEST_F(ActorTest, OnlyBrokenTasksFailTheExperimentWithTheirReasons) {
  start_system();
  auto s = spec(3, 2, "cpu", "broken");
  s.tasks = {s.tasks.back()};
  start(s, stages(false));
  for (int step = 0; step < 40 && !collect(); ++step) sched_->run();
  ASSERT_TRUE(done_);
  EXPECT_EQ(done_->status, "failed");
  EXPECT_NE(done_->last_error.find("kernel_size"), std::string::npos) << done_->last_error;
}

TEST_F(ActorTest, ATargetWhoseCandidatesKeepFailingToCompileIsAbandoned) {
  start_system();
  auto s = spec(30, 2);
  s.abandon_after_compile_failures = 3;
  start(s, stages(false, false, true));
  for (int step = 0; step < 60 && !collect(); ++step) sched_->run();
  ASSERT_TRUE(done_);
  EXPECT_EQ(done_->status, "finished");
  ASSERT_EQ(done_->targets.size(), 1u);
  EXPECT_LE(done_->targets[0].candidates, 3 + 2);  // the ones in flight when it ended finish
  EXPECT_NE(done_->targets[0].ended.find("3 candidates in a row failed to compile"),
            std::string::npos)
      << done_->targets[0].ended;
  EXPECT_NE(done_->targets[0].ended.find("expected ';'"), std::string::npos);
}

TEST_F(ActorTest, CudaTargetsGoToTheGpusInTurnAndStayOnTheirs) {
  start_system();
  auto s = stages(false);
  auto other_log = std::make_shared<EvaluatorLog>();
  s.evaluators.clear();
  s.evaluators["cuda:0"] =
      caf::actor_cast<evaluator_actor>(keep(sys_->spawn(fake_evaluator, false, log_)));
  s.evaluators["cuda:1"] =
      caf::actor_cast<evaluator_actor>(keep(sys_->spawn(fake_evaluator, false, other_log)));
  start(spec(4, 2, "cuda", "softmax_copy"), s);
  sched_->run();
  ASSERT_TRUE(collect());
  EXPECT_EQ(done_->status, "finished") << done_->last_error;
  std::map<int64_t, std::string> task_of;
  for (const auto& c : test::must(db_->candidates(experiment_))) task_of[c.id] = c.task;
  ASSERT_EQ(task_of.size(), 8u);
  // Each target's four candidates, then its best two correct ones timed again (the fake
  // evaluator's verdict is a draw from the source's hash): all on the target's own GPU.
  auto confirmed = [&](const std::string& task) {
    size_t correct = 0;
    for (const auto& c : test::must(db_->candidates(experiment_)))
      for (const auto& v : test::must(db_->verdicts(c.id)))
        correct += c.task == task && v.stage == "evaluate" && v.verdict == "correct";
    return std::min<size_t>(2, correct);
  };
  const size_t first = confirmed("softmax"), second = confirmed("softmax_copy");
  ASSERT_GE(first + second, 2u);  // the test means something only with confirmations
  ASSERT_EQ(log_->evaluated.size(), 4u + first);
  ASSERT_EQ(other_log->evaluated.size(), 4u + second);
  // The confirmations (the last of each) ask for no trace and no counters: their profile was made
  // after the search's evaluation.
  EXPECT_EQ(log_->unprofiled,
            std::vector<int64_t>(log_->evaluated.end() - first, log_->evaluated.end()));
  EXPECT_EQ(other_log->unprofiled,
            std::vector<int64_t>(other_log->evaluated.end() - second, other_log->evaluated.end()));
  for (int64_t id : log_->evaluated) EXPECT_EQ(task_of[id], "softmax");
  for (int64_t id : other_log->evaluated) EXPECT_EQ(task_of[id], "softmax_copy");
}

TEST_F(ActorTest, AResumedExperimentLosesNothingAndRepeatsNothing) {
  // The uninterrupted run, for reference.
  start_system("whole.db");
  start(spec(12, 3), stages(false));
  sched_->run();
  ASSERT_TRUE(collect());
  auto whole = proposed();

  // The same experiment, its coordinator killed with evaluations in flight.
  done_.reset();
  start_system("interrupted.db");
  auto s = spec(12, 3);
  auto first = start(s, stages(true));
  for (int i = 0; i < 5; ++i) {
    sched_->run();
    caf::anon_send(evaluator_, tick_atom::value, false);
  }
  sched_->run();
  caf::anon_send_exit(first, caf::exit_reason::kill);
  sched_->run();
  const auto at_kill = test::must(db_->candidates(experiment_)).size();
  EXPECT_GT(at_kill, 5u);
  EXPECT_LT(at_kill, 12u);
  // A new coordinator carries on from the archive.
  auto evaluated_before = log_->evaluated;
  const int64_t id = experiment_;
  start(s, stages(false), true, id);
  sched_->run();
  ASSERT_TRUE(collect());
  EXPECT_EQ(done_->status, "finished");
  EXPECT_EQ(proposed(), whole);
  expect_each_finished_once();
  // What was evaluated and recorded before the kill was not evaluated again.
  for (int64_t c : evaluated_before)
    EXPECT_EQ(std::count(log_->evaluated.begin(), log_->evaluated.end(), c), 1)
        << "candidate " << c;
}

// What a resumed experiment starts from is read from the archive: when that read fails (a table
// gone), the answer is an error, never a snapshot without candidates, from which the experiment
// would start over and propose its first candidates again.
TEST(ArchiveReads, AResumeThatCannotReadTheArchiveFailsInsteadOfStartingOver) {
  const fs::path dir = test::fresh_test_dir("archive_reads");
  const std::string path = (dir / "archive.db").string();
  auto opened = archive::Archive::open(path);
  ASSERT_TRUE(opened) << opened.error;
  auto& db = **opened;
  const int64_t e = *db.add_experiment({0, "exp", "{}", 1, "running", 0});
  Candidate c;
  c.experiment_id = e;
  c.task = "softmax";
  c.direction = "forward";
  c.backend = "cpu";
  ASSERT_TRUE(db.add_candidate(c));
  auto whole = archived_snapshot(db, e);
  ASSERT_EQ(whole.flag, caf::rt_value);
  EXPECT_EQ(whole.value.get_as<experiment_snapshot>(0).candidates.size(), 1u);

  sqlite3* other = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &other), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(other, "DROP TABLE results;", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(other);
  auto damaged = archived_snapshot(db, e);
  ASSERT_EQ(damaged.flag, caf::rt_error);
  EXPECT_EQ(damaged.err.code(), static_cast<uint8_t>(error_code::archive_failure));
  EXPECT_NE(describe(damaged.err).find("no such table: results"), std::string::npos)
      << describe(damaged.err);
  query_request q;
  q.what = "candidates";
  q.id = e;
  EXPECT_EQ(answer_query(db, q).flag, caf::rt_error);
  fs::remove_all(dir);
}

// The files proposer's matching rules: the backend by extension, the direction by what a file
// registers unless the pattern names {direction}; {task}, {name} expand.
TEST(FilesProposer, KernelFilesFitTheirTargetsBackendAndDirection) {
  const fs::path dir =
      fs::temp_directory_path() / ("kforge_files_" + std::to_string(::getpid())) / "mytask";
  fs::remove_all(dir.parent_path());
  fs::create_directories(dir / "kernels");
  auto write = [&](const std::string& name, const std::string& registers) {
    std::ofstream(dir / "kernels" / name)
        << "#include <torch/extension.h>\nPYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { " << registers
        << " }\n";
  };
  write("a.cu", "m.def(\"forward\", &f);");
  write("b.cpp", "m.def(\"forward\", &f);");
  write("c.cpp", "m.def(\"backward\", &g);");
  write("d.cpp", "");  // registers nothing it can see: taken as a forward kernel
  write("e.cpp", "m.def(\"forward\", &f); m.def(\"backward\", &g);");
  proposers::FileTarget t;
  t.task = "mytask";
  t.task_dir = dir.string();
  auto names = [&](const std::string& pattern, const std::string& direction,
                   const std::string& backend) {
    t.direction = direction;
    t.backend = backend;
    std::vector<std::string> out;
    for (const auto& f : proposers::kernel_files(pattern, t))
      out.push_back(fs::path(f).filename().string());
    return out;
  };
  using list = std::vector<std::string>;
  EXPECT_EQ(names("{task}/kernels/*", "forward", "cpu"), (list{"b.cpp", "d.cpp", "e.cpp"}));
  EXPECT_EQ(names("{task}/kernels/*", "backward", "cpu"), (list{"c.cpp", "e.cpp"}));
  EXPECT_EQ(names("{task}/kernels/*", "forward", "cuda"), (list{"a.cu"}));
  EXPECT_TRUE(names("{task}/kernels/*", "backward", "cuda").empty());
  // Naming {direction} or {name} in the pattern: the file is the user's word for it.
  fs::create_directories(dir.parent_path() / "highlighted/mytask/backward");
  std::ofstream(dir.parent_path() / "highlighted/mytask/backward/kernel.cu") << "// no m.def\n";
  EXPECT_EQ(names(dir.parent_path().string() + "/highlighted/{name}/{direction}/kernel.cu",
                  "backward", "cuda"),
            (list{"kernel.cu"}));
  EXPECT_TRUE(names("/no/such/{name}/*", "forward", "cpu").empty());
  fs::remove_all(dir.parent_path());
}

// A kernel file is proposed whole up to the largest source an experiment accepts, and one byte
// past it where it is larger, so that the verifier names its size: a 4 MB cut left a generated 9.7
// MB kernel (KernelBench's 36_LSTMHn) without its m.def, "registers nothing".
TEST(FilesProposer, AKernelFileIsProposedWholeUpToTheLargestLimit) {
  const fs::path dir = fs::temp_directory_path() / ("kforge_large_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  auto write = [&](const std::string& name, size_t padding, const std::string& registers) {
    std::ofstream out(dir / name);
    out << "#include <torch/extension.h>\n";
    const std::string line(99, '/');
    for (size_t i = 0; i < padding / 100; ++i) out << line << '\n';
    out << "PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { " << registers << " }\n";
    return (dir / name).string();
  };
  const auto backward = write("large.cpp", size_t(9) << 20, "m.def(\"backward\", &g);");
  const std::string whole = proposers::read_kernel_file(backward);
  EXPECT_EQ(whole.size(), fs::file_size(backward));
  EXPECT_EQ(evaluation::registered_functions(whole), std::vector<std::string>{"backward"});
  proposers::FileTarget t{dir.string(), "large", "forward", "cpu"};
  EXPECT_TRUE(proposers::kernel_files((dir / "*").string(), t).empty());  // backward only
  t.direction = "backward";
  EXPECT_EQ(proposers::kernel_files((dir / "*").string(), t).size(), 1u);

  const auto huge =
      write("huge.cpp", size_t(kLargestMaxSourceBytes) + 100, "m.def(\"forward\", &f);");
  const std::string cut = proposers::read_kernel_file(huge);
  EXPECT_EQ(cut.size(), static_cast<size_t>(kLargestMaxSourceBytes) + 1);
  evaluation::TaskParameters none;
  const auto v = evaluation::check_source(cut, "forward", none, LibraryPolicy::allow,
                                          static_cast<size_t>(kLargestMaxSourceBytes));
  EXPECT_EQ(v.kind, "too_large") << v.reason;
  fs::remove_all(dir);
}

// CUDA_VISIBLE_DEVICES narrows the GPUs kforge spawns evaluators for, as CUDA narrows the devices a
// worker sees: an evaluator for a device the worker cannot see fails every candidate (seen on a
// 4-GPU host with CUDA_VISIBLE_DEVICES=2,3: "CUDA device 2 does not exist (2 visible)").
TEST(GpuCount, CudaVisibleDevicesNarrowsTheMachinesGpus) {
  EXPECT_EQ(visible_gpu_count(4, nullptr), 4);
  EXPECT_EQ(visible_gpu_count(4, "2,3"), 2);
  EXPECT_EQ(visible_gpu_count(4, "3"), 1);
  EXPECT_EQ(visible_gpu_count(4, ""), 0);
  EXPECT_EQ(visible_gpu_count(4, "0, 1"), 2);
  EXPECT_EQ(visible_gpu_count(4, "1,7,2"), 1);  // CUDA stops at the first that names no device
  EXPECT_EQ(visible_gpu_count(4, "1,1"), 1);
  EXPECT_EQ(visible_gpu_count(4, "-1"), 0);
  EXPECT_EQ(visible_gpu_count(2, "GPU-8a1b,GPU-77c2,GPU-0000"), 2);
  EXPECT_EQ(visible_gpu_count(0, "0"), 0);
}

// A torch.compile baseline build sees one GPU, named as the daemon's CUDA_VISIBLE_DEVICES names it.
TEST(GpuCount, EachGpuIsNamedForAChildAsTheVariableNamesIt) {
  EXPECT_EQ(visible_gpu_name(1, nullptr), "1");
  EXPECT_EQ(visible_gpu_name(0, "2,3"), "2");
  EXPECT_EQ(visible_gpu_name(1, "2, 3"), "3");
  EXPECT_EQ(visible_gpu_name(1, "GPU-8a1b,GPU-77c2"), "GPU-77c2");
  EXPECT_EQ(visible_gpu_name(2, "2,3"), "2");  // no such entry: the index
}

}  // namespace
}  // namespace kforge
