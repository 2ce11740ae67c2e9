// The candidate pipeline on CAF's deterministic scheduler, with typed stand-ins for every stage
// but the archive (the real one, on a fresh database): each stage's outcomes and failures reach
// the archive and the answer in order, events go to the listener, a paused pipeline holds work
// between stages, and the verifier judges its LLM panel together.
#include <gtest/gtest.h>

#include <unistd.h>
#include <caf/all.hpp>
#include <caf/scheduler/test_coordinator.hpp>

#include <filesystem>

#include "actors/archive_actor.hpp"
#include "actors/candidate_pipeline.hpp"
#include "actors/verifier.hpp"
#include "messages/errors.hpp"
#include "messages/registration.hpp"
#include "tests/test_support.hpp"

namespace kforge {
namespace {

namespace fs = std::filesystem;

/// A candidate's source says where it goes wrong: "verify:reject", "compile:error" (the stage
/// itself fails), "evaluate:incorrect", "llm:reject", "llm:offline", "profile:error", ...
bool says(const std::string& source, const std::string& what) {
  return source.find(what) != std::string::npos;
}

caf::error stage_down(const std::string& stage) {
  return make_error(error_code::invalid_request, stage + " is down");
}

verifier_actor::behavior_type stand_in_verifier(verifier_actor::pointer) {
  return {
      [](status_atom) { return actor_status{}; },
      [](verify_atom, verify_request& r) -> caf::result<verdict> {
        if (says(r.candidate.source, "verify:error")) return stage_down("verifier");
        const bool reject = says(r.candidate.source, "verify:reject");
        return verdict{
            Stage::verify, !reject, reject ? "forbidden" : "", reject ? "uses asm" : "", {}};
      },
      [](verify_atom, llm_panel_request& r) -> caf::result<llm_judgement> {
        const auto& source = r.request.candidate.source;
        llm_verdict v;
        v.verifier = r.names.at(0);
        v.checks.push_back(
            {"numerics", true, !says(source, "llm:reject"), {"reads out of bounds"}});
        v.calls.push_back(LlmCall{});
        v.calls.back().model_name = v.verifier;
        v.calls.back().cost_usd = 0.25;
        if (says(source, "llm:offline")) v.offline_miss = true;
        return judge_llm_verdicts({v}, r.audit_fraction, r.audit_seed);
      },
  };
}

compiler_actor::behavior_type stand_in_compiler(compiler_actor::pointer) {
  return {
      [](status_atom) { return actor_status{}; },
      [](compile_atom, compile_request& r) -> caf::result<candidate_compile> {
        if (says(r.source, "compile:error")) return stage_down("compiler");
        evaluation::CompileResult out;
        out.ok = !says(r.source, "compile:fail");
        if (!out.ok) out.error = "error: expected ';'";
        out.log = out.ok ? "ptxas info for " + r.source : "k.cu(3): error: expected ';'";
        if (out.ok) out.kernels = {{r.source, "sm_90", 32}};  // named by the source: tests steer it
        out.library_path = r.source;
        return candidate_compile{r.candidate_id, out};
      },
      [](export_atom, export_request&) -> caf::result<export_result> {
        return stage_down("exporter");
      },
  };
}

evaluator_actor::behavior_type stand_in_evaluator(evaluator_actor::pointer) {
  return {
      [](status_atom) { return actor_status{}; },
      [](evaluate_atom, eval_request& r) -> caf::result<eval_result> {
        if (says(r.worker.library, "evaluate:error")) return stage_down("evaluator");
        eval_result e;
        e.candidate_id = r.candidate_id;
        const bool ok = !says(r.worker.library, "evaluate:incorrect");
        e.report.verdict = ok ? EvalVerdict::correct : EvalVerdict::incorrect;
        for (double speedup : {2.0, 8.0}) {
          evaluation::ConfigReport c;
          c.index = static_cast<int32_t>(e.report.configs.size());
          c.name = "c" + std::to_string(c.index);
          c.correct = ok;
          c.kernel.median_ms = ok ? 1 : 0;
          c.speedup = speedup;
          // The second config moves the most bytes: its bound is 0.4 of the kernel's time.
          c.bytes_moved = speedup * 1e6;
          c.copy_bound_ms = speedup == 8.0 ? 0.4 : 0.9;
          c.record_json = "{}";
          e.report.configs.push_back(c);
        }
        if (!ok) e.report.failure_kind = e.report.failure_message = "mismatch";
        return e;
      },
      [](device_atom) { return device_info{}; },
  };
}

profiler_actor::behavior_type stand_in_profiler(profiler_actor::pointer) {
  return {
      [](status_atom) { return actor_status{}; },
      [](profile_atom, profile_request& r) -> caf::result<profile_summary> {
        for (const auto& k : r.kernels)
          if (says(k.name, "profile:error")) return stage_down("profiler");
        return profile_summary{r.candidate_id, "{}", "32 registers"};
      },
  };
}

/// What the pipeline told its coordinator and answered.
struct Heard {
  std::vector<std::string> events;  ///< kinds, in order
  std::vector<std::string> untargeted;  ///< events about a target that do not name it
  std::vector<candidate_outcome> outcomes;
  std::vector<std::string> errors;
  std::vector<profile_outcome> profiles;
  double charged = 0;
};

pipeline_listener::behavior_type listener(pipeline_listener::pointer, std::shared_ptr<Heard> h) {
  return {
      [h](event_atom, event_record& e) {
        h->events.push_back(e.kind);
        // What the suite's per-target progress reads: every event about a target names it.
        auto d = json::parse(e.detail_json);
        if (events::about_target(events::kind_named(e.kind)) &&
            (!d.value || (*d.value)["target"].as_string().empty()))
          h->untargeted.push_back(e.kind + " " + e.detail_json);
      },
      [h](charge_atom, int64_t, std::vector<LlmCall>& calls) {
        for (const auto& c : calls) h->charged += c.cost_usd;
      },
      [h](profiled_atom, profile_outcome& p) { h->profiles.push_back(p); },
  };
}

class PipelineTest : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = test::fresh_test_dir("pipeline_test");
    cfg_.set("scheduler.policy", caf::atom("testing"));
    cfg_.set("logger.verbosity", caf::atom("quiet"));
    register_message_types(cfg_);
    sys_ = std::make_unique<caf::actor_system>(cfg_);
    sched_ = &dynamic_cast<caf::scheduler::test_coordinator&>(sys_->scheduler());
    auto opened = archive::Archive::open((dir_ / "archive.db").string());
    ASSERT_TRUE(opened) << opened.error;
    db_ = std::move(*opened);
    auto experiment = db_->add_experiment({0, "test", "{}", 1, "running", 0});
    ASSERT_TRUE(experiment) << experiment.error;
    experiment_ = *experiment;
    stages_.archive = sys_->spawn(archive_actor_impl, db_);
    stages_.verifier = sys_->spawn(stand_in_verifier);
    stages_.compiler = sys_->spawn(stand_in_compiler);
    stages_.profiler = sys_->spawn(stand_in_profiler);
    stages_.evaluators["cpu"] = sys_->spawn(stand_in_evaluator);
    listener_ = sys_->spawn(listener, heard_);
  }

  void TearDown() override {
    EXPECT_TRUE(heard_->untargeted.empty()) << heard_->untargeted.front();
    for (auto a : {caf::actor_cast<caf::actor>(stages_.archive),
                   caf::actor_cast<caf::actor>(stages_.verifier),
                   caf::actor_cast<caf::actor>(stages_.compiler),
                   caf::actor_cast<caf::actor>(stages_.profiler),
                   caf::actor_cast<caf::actor>(stages_.evaluators["cpu"]),
                   caf::actor_cast<caf::actor>(listener_), caf::actor_cast<caf::actor>(pipeline_)})
      if (a) caf::anon_send_exit(a, caf::exit_reason::user_shutdown);
    sched_->run();
    sys_.reset();
    db_.reset();
    fs::remove_all(dir_);
  }

  /// A pipeline for one cpu target; `llm_verifiers` gives it an LLM panel (one stand-in model).
  void start(bool llm_verifiers = false, double audit_fraction = 0) {
    pipeline_config c;
    c.experiment_id = experiment_;
    c.spec.audit_fraction = audit_fraction;
    target_layout t;
    t.tgt.task = "softmax";
    t.tgt.backend = "cpu";
    t.tgt.config_set = "single";
    t.export_dir = dir_.string();
    c.targets.push_back(t);
    if (llm_verifiers) c.llm_verifiers["judge"] = llm_model_actor{};
    pipeline_ = sys_->spawn(candidate_pipeline_impl, c, stages_, listener_);
  }

  /// Archives a candidate with `source` and hands it to the pipeline.
  /// `repeats`: the earlier proposal the novelty filter found it repeats (-1: none).
  int64_t judge(const std::string& source, pipeline_entry entry = pipeline_entry::verify,
                int64_t repeats = -1) {
    Candidate c;
    c.experiment_id = experiment_;
    c.sequence = sequence_++;
    c.task = "softmax";
    c.direction = "forward";
    c.backend = "cpu";
    c.source = source;
    auto id = db_->add_candidate(c);
    EXPECT_TRUE(id) << id.error;
    c.id = id.value.value_or(0);
    auto h = heard_;
    sys_->spawn([h, c, entry, repeats, p = pipeline_](caf::event_based_actor* self) {
      self->request(p, caf::infinite, judge_atom::value, pipeline_job{c, 0, entry, repeats})
          .then([h](candidate_outcome& o) { h->outcomes.push_back(o); },
                [h](caf::error& e) { h->errors.push_back(context_text(e)); });
    });
    return c.id;
  }

  std::vector<std::string> verdicts(int64_t id) {
    std::vector<std::string> out;
    for (const auto& v : test::must(db_->verdicts(id))) out.push_back(v.stage + ":" + v.verdict);
    return out;
  }

  fs::path dir_;
  caf::actor_system_config cfg_;
  std::unique_ptr<caf::actor_system> sys_;
  caf::scheduler::test_coordinator* sched_ = nullptr;
  std::shared_ptr<archive::Archive> db_;
  int64_t experiment_ = 0, sequence_ = 0;
  stage_handles stages_;
  pipeline_listener listener_;
  candidate_pipeline_actor pipeline_;
  std::shared_ptr<Heard> heard_ = std::make_shared<Heard>();
};

using Strings = std::vector<std::string>;

TEST_F(PipelineTest, ACorrectCandidateIsArchivedAtEveryStageThenAnsweredThenProfiled) {
  start();
  const auto id = judge("kernel");
  sched_->run();
  ASSERT_EQ(heard_->outcomes.size(), 1u) << (heard_->errors.empty() ? "" : heard_->errors[0]);
  const auto& o = heard_->outcomes[0];
  EXPECT_EQ(o.stage, Stage::evaluate);
  EXPECT_TRUE(o.evaluated() && o.compiled() && o.correct && o.profiling);
  EXPECT_NEAR(o.speedup, 4.0, 1e-12);         // the geometric mean of 2 and 8
  EXPECT_NEAR(o.speed_of_light, 0.4, 1e-12);  // on the config that moves the most bytes
  EXPECT_EQ(verdicts(id), (Strings{"verify:accepted", "compile:accepted", "evaluate:correct"}));
  EXPECT_EQ(test::must(db_->results(id)).size(), 2u);
  EXPECT_TRUE(test::must(db_->profile(id)).has_value());
  EXPECT_EQ(heard_->events, (Strings{"evaluated"}));
  ASSERT_EQ(heard_->profiles.size(), 1u);
  EXPECT_EQ(heard_->profiles[0].brief, "32 registers");
  EXPECT_TRUE(heard_->errors.empty());
}

TEST_F(PipelineTest, EveryStagesRejectionEndsTheCandidateThereWithWhatAFixIsShown) {
  start();
  const auto rejected = judge("verify:reject");
  const auto not_compiled = judge("compile:fail");
  const auto incorrect = judge("evaluate:incorrect");
  sched_->run();
  ASSERT_EQ(heard_->outcomes.size(), 3u);
  std::map<int64_t, candidate_outcome> by;
  for (const auto& o : heard_->outcomes) by[o.sequence] = o;
  EXPECT_EQ(by[0].stage, Stage::verify);
  EXPECT_EQ(by[0].reason, "uses asm");
  EXPECT_FALSE(by[0].evaluated());
  EXPECT_EQ(by[1].stage, Stage::compile);
  EXPECT_FALSE(by[1].compiled());
  EXPECT_EQ(by[1].failure, "k.cu(3): error: expected ';'");  // the log, for a fix
  EXPECT_EQ(by[2].stage, Stage::evaluate);
  EXPECT_TRUE(by[2].evaluated() && by[2].compiled() && !by[2].correct);
  EXPECT_FALSE(by[2].failure.empty());
  EXPECT_EQ(verdicts(rejected), (Strings{"verify:rejected"}));
  EXPECT_EQ(verdicts(not_compiled), (Strings{"verify:accepted", "compile:rejected"}));
  EXPECT_EQ(verdicts(incorrect),
            (Strings{"verify:accepted", "compile:accepted", "evaluate:incorrect"}));
  EXPECT_TRUE(heard_->profiles.empty());
  EXPECT_TRUE(heard_->errors.empty());
}

TEST_F(PipelineTest, AKernelTheNoveltyFilterFoundRepeatedIsRejectedWithoutBeingJudged) {
  start();
  const auto id = judge("verify:error", pipeline_entry::verify, 3);  // no stage is asked
  sched_->run();
  ASSERT_EQ(heard_->outcomes.size(), 1u) << (heard_->errors.empty() ? "" : heard_->errors[0]);
  const auto& o = heard_->outcomes[0];
  EXPECT_EQ(o.stage, Stage::verify);
  EXPECT_FALSE(o.stage_error || o.evaluated());
  EXPECT_EQ(verdicts(id), (Strings{"verify:rejected"}));
  const auto v = test::must(db_->verdicts(id)).at(0);
  EXPECT_EQ(v.kind, "repeated_kernel");
  EXPECT_NE(v.reason.find("the same kernel as candidate 3"), std::string::npos) << v.reason;
  EXPECT_EQ(heard_->events, (Strings{"rejected"}));
}

TEST_F(PipelineTest, AStageThatFailsGivesAStageErrorVerdictNotALostCandidate) {
  start();
  const auto ids =
      std::vector<int64_t>{judge("verify:error"), judge("compile:error"), judge("evaluate:error")};
  sched_->run();
  ASSERT_EQ(heard_->outcomes.size(), 3u);
  for (const auto& o : heard_->outcomes) {
    EXPECT_TRUE(o.stage_error) << to_string(o.stage);
    EXPECT_FALSE(o.evaluated()) << to_string(o.stage);  // counted as rejected
    // An evaluator that fails still had a compiled kernel: the compile failures in a row end.
    EXPECT_EQ(o.compiled(), o.stage == Stage::evaluate);
    EXPECT_NE(o.error.find("is down"), std::string::npos) << o.error;
  }
  EXPECT_EQ(heard_->events, (Strings{"stage_error", "stage_error", "stage_error"}));
  EXPECT_EQ(verdicts(ids[0]), (Strings{"verify:rejected"}));
  EXPECT_EQ(verdicts(ids[1]), (Strings{"verify:accepted", "compile:rejected"}));
  EXPECT_EQ(verdicts(ids[2]),
            (Strings{"verify:accepted", "compile:accepted", "evaluate:rejected"}));
}

TEST_F(PipelineTest, AFailedProfileIsReportedAndTheArchiveFailingIsAnError) {
  start();
  judge("profile:error");
  sched_->run();
  ASSERT_EQ(heard_->outcomes.size(), 1u);
  EXPECT_TRUE(heard_->outcomes[0].correct);  // the verdict stands without a profile
  ASSERT_EQ(heard_->profiles.size(), 1u);
  EXPECT_NE(heard_->profiles[0].error.find("profiler is down"), std::string::npos);
  EXPECT_FALSE(heard_->profiles[0].fatal);

  // The archive gone: the candidate's answer is an error, the experiment's end.
  caf::anon_send_exit(stages_.archive, caf::exit_reason::kill);
  sched_->run();
  judge("kernel");
  sched_->run();
  ASSERT_EQ(heard_->errors.size(), 1u);
  EXPECT_NE(heard_->errors[0].find("archive"), std::string::npos) << heard_->errors[0];
}

TEST_F(PipelineTest, TheLlmPanelRejectsAuditsChargesAndAnOfflineMissIsAnError) {
  start(true);
  judge("kernel");
  const auto rejected = judge("llm:reject");
  judge("llm:offline");
  sched_->run();
  ASSERT_EQ(heard_->outcomes.size(), 2u);
  std::map<int64_t, candidate_outcome> by;
  for (const auto& o : heard_->outcomes) by[o.sequence] = o;
  EXPECT_EQ(by[0].stage, Stage::evaluate);
  EXPECT_EQ(by[1].stage, Stage::llm_verify);
  EXPECT_EQ(verdicts(rejected), (Strings{"verify:accepted", "llm_verify:rejected"}));
  ASSERT_EQ(heard_->errors.size(), 1u);
  EXPECT_NE(heard_->errors[0].find("offline"), std::string::npos);
  EXPECT_NEAR(heard_->charged, 0.75, 1e-12);  // every verifier call is charged
  EXPECT_EQ(test::must(db_->llm_verdicts(experiment_)).size(), 3u);
}

TEST_F(PipelineTest, AnAuditedRejectionStillRunsOnTheHardware) {
  start(true, 1.0);
  const auto id = judge("llm:reject");
  sched_->run();
  ASSERT_EQ(heard_->outcomes.size(), 1u);
  EXPECT_EQ(heard_->outcomes[0].stage, Stage::evaluate);
  EXPECT_EQ(verdicts(id), (Strings{"verify:accepted", "compile:accepted", "evaluate:correct"}));
}

TEST_F(PipelineTest, PausedWorkWaitsBetweenStagesAndResumedWorkFinishes) {
  start();
  caf::anon_send(pipeline_, pause_atom::value);
  sched_->run();
  const auto id = judge("kernel");
  sched_->run();
  EXPECT_TRUE(heard_->outcomes.empty());
  EXPECT_TRUE(test::must(db_->verdicts(id)).empty());  // not even verified
  caf::anon_send(pipeline_, resume_atom::value);
  sched_->run();
  ASSERT_EQ(heard_->outcomes.size(), 1u);
  EXPECT_TRUE(heard_->outcomes[0].correct);
}

TEST_F(PipelineTest, AResumedCandidateEntersWhereItStopped) {
  start();
  const auto compiled_before = judge("kernel", pipeline_entry::recompile);
  const auto unprofiled = judge("kernel", pipeline_entry::profile);
  sched_->run();
  // Compiled before: compiled again (a cache hit) without a second compile record.
  EXPECT_EQ(verdicts(compiled_before), (Strings{"evaluate:correct"}));
  // Finished before: answered at once, and profiled from the archive (nothing to read here).
  ASSERT_EQ(heard_->outcomes.size(), 2u);
  std::map<int64_t, candidate_outcome> by;
  for (const auto& o : heard_->outcomes) by[o.sequence] = o;
  EXPECT_EQ(by[1].stage, Stage::profile);
  EXPECT_EQ(heard_->profiles.size(), 2u);
  EXPECT_TRUE(verdicts(unprofiled).empty());
}

/// An LLM verifier that rejects, or (crashing) answers with an error.
llm_model_actor::behavior_type stand_in_model(llm_model_actor::pointer, std::string name,
                                              bool crashing) {
  return {
      [](status_atom) { return actor_status{}; },
      [](propose_atom, propose_request&) -> caf::result<proposal> {
        return stage_down("proposer");
      },
      [](meta_atom, meta_request&) -> caf::result<meta_reply> { return stage_down("proposer"); },
      [](profile_atom, profile_advice_request&) -> caf::result<profile_advice> {
        return stage_down("proposer");
      },
      [name, crashing](verify_atom, llm_verify_request&) -> caf::result<llm_verdict> {
        if (crashing) return stage_down(name);
        llm_verdict v;
        v.verifier = name;
        v.checks.push_back({"memory_safety", true, false, {"writes past the end", "no guard"}});
        return v;
      },
  };
}

TEST_F(PipelineTest, TheVerifierAsksEveryLlmAndJudgesFromAllTheirVerdicts) {
  auto verifier = sys_->spawn(verifier_impl);
  llm_panel_request panel;
  panel.names = {"strict", "broken"};
  panel.models = {caf::actor_cast<caf::actor>(sys_->spawn(stand_in_model, "strict", false)),
                  caf::actor_cast<caf::actor>(sys_->spawn(stand_in_model, "broken", true))};
  panel.audit_fraction = 1;
  auto got = std::make_shared<std::optional<llm_judgement>>();
  sys_->spawn([got, verifier, panel](caf::event_based_actor* self) {
    self->request(verifier, caf::infinite, verify_atom::value, panel).then([got](llm_judgement& j) {
      *got = j;
    });
  });
  sched_->run();
  ASSERT_TRUE(got->has_value());
  const auto& j = **got;
  EXPECT_EQ(j.verdicts.size(), 2u);
  EXPECT_TRUE(j.rejected);
  EXPECT_TRUE(j.audited);
  EXPECT_EQ(j.reasons, "strict/memory_safety: writes past the end; no guard");
  // The broken verifier decided nothing, which rejects nothing.
  for (const auto& v : j.verdicts)
    if (v.verifier == "broken") {
      EXPECT_FALSE(v.checks.at(0).decided);
    }
  for (auto& m : panel.models) caf::anon_send_exit(m, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(verifier, caf::exit_reason::user_shutdown);
}

}  // namespace
}  // namespace kforge
