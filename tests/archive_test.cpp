// The archive: schema, sequences, verdicts, results, the queries (best per task and config set,
// lineage, history, unfinished work), and that what was committed survives a kill -9.
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <tuple>

#include "archive/archive.hpp"
#include "archive/verdict_reason.hpp"
#include "archive/views.hpp"
#include "tests/test_support.hpp"

namespace kforge::archive {
namespace {

namespace fs = std::filesystem;

class ArchiveTest : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = test::fresh_test_dir("archive_test");
    path_ = (dir_ / "archive.db").string();
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::unique_ptr<Archive> open() {
    auto a = Archive::open(path_);
    EXPECT_TRUE(a) << a.error;
    return a ? std::move(*a) : nullptr;
  }
  int64_t experiment(Archive& a, const std::string& name = "exp") {
    auto id = a.add_experiment({0, name, R"({"tasks":["softmax"]})", 42, "running", 0});
    EXPECT_TRUE(id) << id.error;
    return id ? *id : 0;
  }
  /// A candidate of `task` to add, with the next sequence unless one is set.
  static Candidate draft(int64_t experiment_id, const std::string& task = "softmax") {
    Candidate c;
    c.experiment_id = experiment_id;
    c.task = task;
    c.direction = "forward";
    c.backend = "cpu";
    c.source = "// kernel";
    c.source_hash = "abc";
    c.proposer = "builtin";
    c.strategy = "rows_per_block=4";
    c.seed = 7;
    return c;
  }
  int64_t candidate(Archive& a, int64_t experiment_id, int64_t parent = 0,
                    const std::string& task = "softmax") {
    Candidate c = draft(experiment_id, task);
    c.parent_id = parent;
    auto id = a.add_candidate(c);
    EXPECT_TRUE(id) << id.error;
    return id ? *id : 0;
  }
  void result(Archive& a, int64_t id, int index, bool correct, std::optional<double> speedup) {
    ConfigResult r;
    r.candidate_id = id;
    r.config_set = "multi";
    r.config_index = index;
    r.config_name = "c" + std::to_string(index);
    r.correct = correct;
    r.speedup = speedup;
    r.kernel_ms = 1.0;
    r.eager_ms = speedup;
    ASSERT_TRUE(a.add_results({r}));
  }

  fs::path dir_;
  std::string path_;
};

TEST_F(ArchiveTest, CandidatesGetSequencesAndLineage) {
  auto a = open();
  int64_t e = experiment(*a);
  int64_t root = candidate(*a, e);
  int64_t child = candidate(*a, e, root);
  int64_t grandchild = candidate(*a, e, child);
  auto all = test::must(a->candidates(e));
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0].sequence, 0);
  EXPECT_EQ(all[2].sequence, 2);
  EXPECT_EQ(all[1].strategy, "rows_per_block=4");
  auto line = test::must(a->lineage(grandchild));
  ASSERT_EQ(line.size(), 3u);
  EXPECT_EQ(line[0].id, grandchild);
  EXPECT_EQ(line[2].id, root);
  EXPECT_FALSE(line[2].parent_id);
}

TEST_F(ArchiveTest, UnfinishedAreThoseWithoutAFinalVerdict) {
  auto a = open();
  int64_t e = experiment(*a);
  int64_t evaluated = candidate(*a, e), rejected = candidate(*a, e), compiled = candidate(*a, e);
  ASSERT_TRUE(a->add_verdict({evaluated, "verify", "accepted", "", ""}));
  ASSERT_TRUE(a->add_verdict({evaluated, "evaluate", "correct", "", ""}));
  ASSERT_TRUE(a->add_verdict({rejected, "verify", "rejected", "forbidden_construct", "uses asm"}));
  ASSERT_TRUE(a->add_verdict({compiled, "verify", "accepted", "", ""}));
  auto open_work = test::must(a->unfinished(e));
  ASSERT_EQ(open_work.size(), 1u);
  EXPECT_EQ(open_work[0].id, compiled);
  auto v = test::must(a->verdicts(rejected));
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].reason, "uses asm");
}

TEST_F(ArchiveTest, BestNeedsEveryConfigCorrectAndRanksByGeometricMean) {
  auto a = open();
  int64_t e = experiment(*a);
  int64_t steady = candidate(*a, e), spiky = candidate(*a, e), wrong = candidate(*a, e);
  result(*a, steady, 0, true, 2.0);
  result(*a, steady, 1, true, 2.0);
  result(*a, spiky, 0, true, 8.0);
  result(*a, spiky, 1, true, 0.25);  // geometric mean 1.41
  result(*a, wrong, 0, true, 50.0);
  result(*a, wrong, 1, false, 50.0);
  auto best = test::must(a->best("softmax", "forward", "cpu", "multi", e));
  ASSERT_TRUE(best);
  EXPECT_EQ(best->candidate.id, steady);
  EXPECT_NEAR(best->geomean_speedup, 2.0, 1e-12);
  EXPECT_EQ(best->configs, 2);
  EXPECT_FALSE(test::must(a->best("softmax", "forward", "cuda", "multi", e)));
  EXPECT_FALSE(test::must(a->best("softmax", "forward", "cpu", "multi", e + 1)));
  auto rows = test::must(a->results(spiky));
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[1].speedup.value_or(0), 0.25);
}

TEST_F(ArchiveTest, ExperimentsEventsAndStatus) {
  auto a = open();
  int64_t e = experiment(*a, "first");
  ASSERT_TRUE(a->add_event({0, e, 0, "started", R"({"workers":1})"}));
  ASSERT_TRUE(a->add_event({0, e, 0, "candidate_evaluated", "{}"}));
  auto h = test::must(a->history(e));
  ASSERT_EQ(h.size(), 2u);
  EXPECT_EQ(h[0].kind, "started");
  EXPECT_EQ(h[1].kind, "candidate_evaluated");
  ASSERT_TRUE(a->add_event({0, e, 0, "target_failed", R"({"target":"t"})"}));
  auto only = test::must(a->history(e, {"target_failed", "target_exhausted"}));
  ASSERT_EQ(only.size(), 1u);
  EXPECT_EQ(only[0].kind, "target_failed");
  EXPECT_EQ(test::must(a->history(e, {"candidate_evaluated", "started"})).size(), 2u);
  EXPECT_EQ(test::must(a->experiments_with_status("running")).size(), 1u);
  ASSERT_TRUE(a->set_experiment_status(e, "finished"));
  EXPECT_TRUE(test::must(a->experiments_with_status("running")).empty());
  EXPECT_EQ(test::must(a->experiment(e))->name, "first");
  EXPECT_FALSE(a->set_experiment_status(e + 100, "finished"));
}

// A damaged archive (here a table gone, as another program or a broken disk leaves it): the reads
// that need the table fail with SQLite's words, and no read or view answers "nothing found".
TEST_F(ArchiveTest, AReadThatFailsSaysSoAndNeverReadsAsEmpty) {
  auto a = open();
  const int64_t e = experiment(*a);
  const int64_t id = candidate(*a, e);
  ASSERT_TRUE(a->add_verdict({id, "verify", "accepted", "", ""}));
  ASSERT_EQ(test::must(a->progress(e)).size(), 1u);
  sqlite3* other = nullptr;
  ASSERT_EQ(sqlite3_open(path_.c_str(), &other), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(other, "DROP TABLE verdicts;", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(other);

  EXPECT_EQ(test::must(a->candidates(e)).size(), 1u);  // its table is whole
  for (const std::string& error :
       {a->progress(e).error, a->verdicts(id).error, a->unfinished(e).error,
        experiment_view(*a, e).error, candidate_view(*a, id).error, suite_view(*a, e).error})
    EXPECT_NE(error.find("no such table: verdicts"), std::string::npos) << error;
  EXPECT_FALSE(a->progress(e));
  EXPECT_FALSE(experiment_view(*a, e));
}

TEST_F(ArchiveTest, CommittedWorkSurvivesKillNine) {
  int64_t e;
  {
    auto a = open();
    e = experiment(*a);
  }
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    auto opened = Archive::open(path_);
    if (!opened) ::_exit(3);
    auto& a = *opened;
    for (int i = 0; i < 100; ++i) {
      if (i == 50) ::kill(::getpid(), SIGKILL);
      Candidate c;
      c.experiment_id = e;
      c.task = "softmax";
      c.direction = "forward";
      c.backend = "cpu";
      (void)a->add_candidate(c);
    }
    ::_exit(0);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  auto a = open();
  auto all = test::must(a->candidates(e));
  EXPECT_EQ(all.size(), 50u);
  EXPECT_EQ(all.back().sequence, 49);
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(path_.c_str(), &raw), SQLITE_OK);
  sqlite3_stmt* check = nullptr;
  sqlite3_prepare_v2(raw, "PRAGMA integrity_check;", -1, &check, nullptr);
  ASSERT_EQ(sqlite3_step(check), SQLITE_ROW);
  EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(check, 0)), "ok");
  sqlite3_finalize(check);
  sqlite3_prepare_v2(raw, "PRAGMA journal_mode;", -1, &check, nullptr);
  ASSERT_EQ(sqlite3_step(check), SQLITE_ROW);
  EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(check, 0)), "wal");
  sqlite3_finalize(check);
  sqlite3_close(raw);
}

// A user's `kforge report` while `kforge run` makes the archive, or a test that watches a run's
// archive: processes that open one new archive at the same moment all get it, schema and all.
TEST_F(ArchiveTest, ProcessesOpeningOneNewArchiveAtOnceAllGetIt) {
  constexpr int kProcesses = 8, kRounds = 10;
  for (int round = 0; round < kRounds; ++round) {
    const std::string path = (dir_ / ("race" + std::to_string(round) + ".db")).string();
    int go[2];
    ASSERT_EQ(::pipe(go), 0);
    std::vector<pid_t> children;
    for (int i = 0; i < kProcesses; ++i) {
      pid_t pid = ::fork();
      ASSERT_GE(pid, 0);
      if (pid == 0) {
        ::close(go[1]);
        char byte;
        if (::read(go[0], &byte, 1) != 0) ::_exit(4);  // all start when the pipe closes
        auto opened = Archive::open(path);
        if (!opened) {
          std::fprintf(stderr, "%s\n", opened.error.c_str());
          ::_exit(3);
        }
        ::_exit((*opened)->experiments_with_status("running") ? 0 : 5);
      }
      children.push_back(pid);
    }
    ::close(go[0]);
    ::close(go[1]);
    for (pid_t pid : children) {
      int status = 0;
      ::waitpid(pid, &status, 0);
      EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
          << "round " << round << ": status " << status;
    }
  }
}

TEST_F(ArchiveTest, ExplicitSequencesAreKeptAndTakenOnlyOnce) {
  auto a = open();
  int64_t e = experiment(*a);
  Candidate c = draft(e);
  c.sequence = 5;
  c.params = R"({"vec":4})";
  auto id = a->add_candidate(c);
  ASSERT_TRUE(id) << id.error;
  EXPECT_EQ(test::must(a->candidate(*id))->sequence, 5);
  EXPECT_EQ(test::must(a->candidate(*id))->params, R"({"vec":4})");
  EXPECT_FALSE(a->add_candidate(c));  // a sequence proposed twice is refused
}

TEST_F(ArchiveTest, AProposalIsKeptWithItsLlmCallsOrNotAtAll) {
  auto a = open();
  int64_t e = experiment(*a);
  Candidate c = draft(e);
  c.sequence = 0;
  LlmCall call;
  call.role = "propose";
  call.model_name = "m1";
  call.ok = true;
  call.cost_usd = 0.5;
  const auto added = a->add_candidate(c, {call});
  ASSERT_TRUE(added) << added.error;
  const int64_t id = *added;
  auto calls = test::must(a->llm_calls(e));
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].candidate_id, id);
  EXPECT_FALSE(a->add_candidate(c, {call, call}));  // the sequence is taken: neither is kept
  EXPECT_EQ(test::must(a->llm_calls(e)).size(), 1u);
  ASSERT_TRUE(a->add_llm_verdicts({{id, "judge", "numerics", true, false, "[]"}}));
  EXPECT_EQ(test::must(a->llm_verdicts(e)).size(), 1u);
}

TEST_F(ArchiveTest, AnEvaluationIsRecordedWholeOrNotAtAll) {
  auto a = open();
  int64_t e = experiment(*a);
  int64_t id = candidate(*a, e);
  ConfigResult good{id, "multi", 0, "c0", true, 0, 0, 1.0, 2.0, 2.0, "{}"};
  ConfigResult clash = good;  // the same config twice violates the primary key
  EXPECT_FALSE(a->record_evaluation({good, clash}, {id, "evaluate", "correct", "", ""}));
  EXPECT_TRUE(test::must(a->results(id)).empty());
  EXPECT_TRUE(test::must(a->verdicts(id)).empty());
  ASSERT_TRUE(a->record_evaluation({good}, {id, "evaluate", "correct", "", ""}));
  EXPECT_EQ(test::must(a->results(id)).size(), 1u);
  EXPECT_EQ(test::must(a->verdicts(id)).size(), 1u);
}

TEST_F(ArchiveTest, ProgressSaysHowFarEachCandidateGot) {
  auto a = open();
  int64_t e = experiment(*a);
  int64_t proposed = candidate(*a, e), rejected = candidate(*a, e), evaluated = candidate(*a, e);
  ASSERT_TRUE(a->add_verdict({rejected, "verify", "rejected", "forbidden_construct", "fork"}));
  ASSERT_TRUE(a->add_verdict({evaluated, "verify", "accepted", "", ""}));
  ASSERT_TRUE(a->record_compile({evaluated, true, false, 1.0, "log", "[]", "full", "no at::conv2d"},
                                {evaluated, "compile", "accepted", "", ""}));
  ConfigResult r0{evaluated, "multi", 0, "c0", true, 0, 0, 1.0, 2.0, 2.0, "{}"};
  ConfigResult r1{evaluated, "multi", 1, "c1", true, 0, 0, 1.0, 8.0, 8.0, "{}"};
  ASSERT_TRUE(a->record_evaluation({r0, r1}, {evaluated, "evaluate", "correct", "", ""}));
  ASSERT_TRUE(a->add_profile(evaluated, R"({"summary":{}})"));
  auto p = test::must(a->progress(e));
  ASSERT_EQ(p.size(), 3u);
  EXPECT_EQ(p[0].candidate.id, proposed);
  EXPECT_FALSE(p[0].verified || p[0].finished);
  EXPECT_TRUE(p[1].finished);
  EXPECT_FALSE(p[1].verified || p[1].correct);
  EXPECT_TRUE(p[2].verified && p[2].compiled && p[2].finished && p[2].correct && p[2].profiled);
  EXPECT_NEAR(p[2].geomean_speedup, 4.0, 1e-9);
  auto view = test::must(experiment_view(*a, e));
  ASSERT_TRUE(view);
  EXPECT_EQ((*view)["targets"][0]["best_candidate"].as_int(), evaluated);
  auto cv = test::must(candidate_view(*a, evaluated));
  ASSERT_TRUE(cv);
  EXPECT_EQ((*cv)["results"].as_array().size(), 2u);
  EXPECT_EQ((*cv)["compile"]["headers"].as_string(), "full");
  EXPECT_EQ((*cv)["compile"]["light_error"].as_string(), "no at::conv2d");
  EXPECT_EQ((*cv)["compile"]["log"].as_string(), "log");
  EXPECT_FALSE(test::must(candidate_view(*a, 999)));
}

// A profile's counters come back alone (the views read them for every target on every request,
// and the profile's kernel trace is large); nothing from a profile without them or not JSON.
TEST_F(ArchiveTest, AProfilesCountersAreReadWithoutItsTrace) {
  auto a = open();
  int64_t e = experiment(*a);
  const int64_t none = candidate(*a, e), counted = candidate(*a, e), broken = candidate(*a, e);
  EXPECT_TRUE(a->add_profile(none, R"({"trace":{"candidate":[]}})"));
  EXPECT_TRUE(a->add_profile(
      counted, R"({"trace":{"candidate":[{"name":"k"}]},"counters":{"config":"c0"}})"));
  EXPECT_TRUE(a->add_profile(broken, "not json"));
  EXPECT_FALSE(test::must(a->profile_counters(none)));
  EXPECT_FALSE(test::must(a->profile_counters(broken)));
  EXPECT_FALSE(test::must(a->profile_counters(counted + 100)));
  auto text = test::must(a->profile_counters(counted));
  ASSERT_TRUE(text);
  EXPECT_EQ(*text, R"({"config":"c0"})");
  // the latest profile is the one read
  EXPECT_TRUE(a->add_profile(counted, R"({"counters":{"config":"c1"}})"));
  EXPECT_EQ(*test::must(a->profile_counters(counted)), R"({"config":"c1"})");
}

// The hardware counters a GPU evaluation read (the profile's "counters", as
// evaluation::summarise_counters writes it) come back with the target's best kernel: its longest
// kernel's share of DRAM peak and its bound, on the config they were read on; and with its row
// of a suite.
TEST_F(ArchiveTest, TheBestKernelsCountersComeWithTheTarget) {
  auto a = open();
  int64_t e = experiment(*a);
  auto evaluated = [&](double speedup, const std::string& profile) {
    int64_t id = candidate(*a, e);
    EXPECT_TRUE(a->add_verdict({id, "verify", "accepted", "", ""}));
    ConfigResult r{id, "multi", 0, "c0", true, 0, 0, 1.0, speedup, speedup, "{}"};
    EXPECT_TRUE(a->record_evaluation({r}, {id, "evaluate", "correct", "", ""}));
    if (!profile.empty()) {
      EXPECT_TRUE(a->add_profile(id, profile));
    }
    return id;
  };
  evaluated(1.1, R"({"summary":{}})");
  const std::string counted = R"({"summary":{},"counters":{"config":"batch_size=4096","candidate":{
      "kernels":2,"ms":6.1,"passes":14,"top":[
        {"name":"cfg0::k0","ms":6.0,"dram_pct":66.4,"roofline":{"bound":"memory","pct_of_roof":66.4}},
        {"name":"cfg0::k1","ms":0.1,"dram_pct":90,"roofline":{"bound":"memory","pct_of_roof":90}}]}}})";
  const int64_t best = evaluated(1.5, counted);
  auto view = test::must(experiment_view(*a, e));
  ASSERT_TRUE(view);
  const auto& t = (*view)["targets"][0];
  ASSERT_EQ(t["best_candidate"].as_int(), best);
  const auto& c = t["best_counters"];
  EXPECT_EQ(c["config"].as_string(), "batch_size=4096");
  EXPECT_EQ(c["kernel"].as_string(), "cfg0::k0");
  EXPECT_DOUBLE_EQ(c["dram_pct"].as_number(), 66.4);
  EXPECT_EQ(c["bound"].as_string(), "memory");
  // the suite's row of the kernel says the same (its DRAM column), the others' rows nothing
  auto suite = test::must(suite_view(*a, e));
  ASSERT_TRUE(suite);
  int with_counters = 0;
  for (const auto& row : (*suite)["rows"].as_array()) {
    if (row["candidate"].as_int() != best) {
      EXPECT_TRUE(row["dram_pct"].is_null()) << row.dump();
      continue;
    }
    ++with_counters;
    EXPECT_DOUBLE_EQ(row["dram_pct"].as_number(), 66.4);
    EXPECT_EQ(row["bound"].as_string(), "memory");
  }
  EXPECT_EQ(with_counters, 1);
  EXPECT_TRUE(c["own"].as_bool(false));  // no compile log names its kernels: nothing says otherwise
  // a kernel with library calls whose longest kernel is cuDNN's, not one its compile log names
  const std::string library = R"({"summary":{},"counters":{"config":"n=1","candidate":{
      "kernels":2,"ms":1.0,"passes":14,"top":[
        {"name":"sm90_xmma_fprop_implicit_gemm_f32f32_tf32f32_f32_nhwckrsc_nchw<float>","ms":0.9,
         "dram_pct":7,"roofline":{"bound":"memory","pct_of_roof":7}},
        {"name":"cfg0::k1","ms":0.1,"dram_pct":80,"roofline":{"bound":"memory","pct_of_roof":80}}]}}})";
  const std::string own = R"j({"summary":{},"counters":{"config":"n=1","candidate":{
      "kernels":1,"ms":1.0,"passes":14,"top":[
        {"name":"void cfg0::k1<256>(float const*, float*)","ms":0.9,"dram_pct":80,
         "roofline":{"bound":"memory","pct_of_roof":80}}]}}})j";
  // a long name the counters cut with "..." (evaluation/kernel_names.hpp) is still the kernel's own
  const std::string cut = R"({"summary":{},"counters":{"config":"n=1","candidate":{
      "kernels":1,"ms":1.0,"passes":14,"top":[
        {"name":"a_kernel_whose_name_is_long...","ms":0.9,"dram_pct":80,
         "roofline":{"bound":"memory","pct_of_roof":80}}]}}})";
  // a kernel that is one ATen call (a generated library kernel of a depthwise convolution): its
  // compile defined no kernel, so ATen's is not its own; without a list (a compile archived
  // before the lists were kept) nothing says otherwise
  const std::string aten = R"({"summary":{},"counters":{"config":"n=1","candidate":{
      "kernels":1,"ms":1.0,"passes":14,"top":[
        {"name":"at::native::conv_depthwise2d_forward_kernel<3, float, int>","ms":0.9,
         "dram_pct":18,"roofline":{"bound":"memory","pct_of_roof":18}}]}}})";
  const std::string kernels =
      R"([{"name":"k0","registers":30},{"name":"k1","registers":40},)"
      R"({"name":"a_kernel_whose_name_is_long_and_cut<4>","registers":32}])";
  for (const auto& [profile, resources, expected] :
       {std::tuple{library, kernels, false}, std::tuple{own, kernels, true},
        std::tuple{cut, kernels, true}, std::tuple{aten, std::string("[]"), false},
        std::tuple{aten, std::string(), true}}) {
    const int64_t id = evaluated(1.6, profile);
    CompileLog log;
    log.candidate_id = id;
    log.ok = true;
    log.resources_json = resources;
    EXPECT_TRUE(a->add_compile(log));
    auto suite_rows = test::must(suite_view(*a, e));
    ASSERT_TRUE(suite_rows);
    int found = 0;
    for (const auto& row : (*suite_rows)["rows"].as_array()) {
      if (row["candidate"].as_int() != id) continue;
      ++found;
      EXPECT_EQ(row["longest_kernel_own"].as_bool(!expected), expected) << row.dump();
      EXPECT_EQ(row["bound"].as_string(), "memory");
    }
    EXPECT_EQ(found, 1);
  }
  // a CPU candidate's profile has no counters: nothing is claimed
  const int64_t cpu = evaluated(2.0, R"({"summary":{}})");
  view = test::must(experiment_view(*a, e));
  ASSERT_EQ((*view)["targets"][0]["best_candidate"].as_int(), cpu);
  EXPECT_FALSE((*view)["targets"][0].contains("best_counters"));
}

// The counters' shares of peak name the unit that sets the longest kernel's pace (the limiter):
// the SM where its pipes are busier than DRAM and L2 (a max pool's comparisons), L2 where it is
// 10 points or more busier than DRAM (windows that threads share, read again from L2), else DRAM
// (a streaming kernel's L2 share runs a few points above its DRAM share); with that unit's share,
// on the target and on the kernel's suite row. Counters archived without the shares name none.
TEST_F(ArchiveTest, TheCountersNameTheUnitThatSetsTheLongestKernelsPace) {
  auto a = open();
  int64_t e = experiment(*a);
  double speedup = 1;
  for (const auto& [shares, limiter, pct] :
       {std::tuple{R"("sm_pct":97,"dram_pct":62,"l2_pct":86)", "sm", 97.0},
        std::tuple{R"("sm_pct":48,"dram_pct":68,"l2_pct":95)", "l2", 95.0},
        std::tuple{R"("sm_pct":16,"dram_pct":80,"l2_pct":86)", "dram", 80.0},
        std::tuple{R"("sm_pct":60,"dram_pct":88,"l2_pct":97)", "dram", 88.0},
        std::tuple{R"("dram_pct":70)", "", 0.0}}) {
    const int64_t id = candidate(*a, e);
    EXPECT_TRUE(a->add_verdict({id, "verify", "accepted", "", ""}));
    speedup += 0.1;  // each the target's best in turn
    ConfigResult r{id, "multi", 0, "c0", true, 0, 0, 1.0, speedup, speedup, "{}"};
    EXPECT_TRUE(a->record_evaluation({r}, {id, "evaluate", "correct", "", ""}));
    EXPECT_TRUE(a->add_profile(
        id, std::string(R"({"summary":{},"counters":{"config":"n=1","candidate":{"kernels":1,)") +
                R"("ms":1.0,"passes":14,"top":[{"name":"cfg0::k0","ms":1.0,)" + shares +
                R"(,"roofline":{"bound":"memory","pct_of_roof":60}}]}}})"));
    auto view = test::must(experiment_view(*a, e));
    ASSERT_TRUE(view);
    const auto& c = (*view)["targets"][0]["best_counters"];
    EXPECT_EQ(c["limiter"].as_string(), limiter) << shares;
    EXPECT_EQ(c.contains("limiter_pct"), *limiter != 0) << shares;
    if (*limiter) {
      EXPECT_DOUBLE_EQ(c["limiter_pct"].as_number(), pct) << shares;
    }
    auto suite = test::must(suite_view(*a, e));
    ASSERT_TRUE(suite);
    for (const auto& row : (*suite)["rows"].as_array()) {
      if (row["candidate"].as_int() == id) {
        EXPECT_EQ(row["limiter"].as_string(), limiter) << shares;
      }
    }
  }
}

// Once the search is over its best few are timed again: the target's best is the best of those
// times (here the search's second, as the largest draw came out slower), with its range, and the
// search's largest draw is named beside it. Without confirmations the search's best stands,
// marked as not confirmed.
TEST_F(ArchiveTest, TheBestIsTheFastestWhenTimedAgain) {
  auto a = open();
  int64_t e = experiment(*a);
  auto correct = [&](double speedup) {
    int64_t id = candidate(*a, e);
    EXPECT_TRUE(a->add_verdict({id, "verify", "accepted", "", ""}));
    EXPECT_TRUE(a->record_compile({id, true, false, 1.0, "", "[]", "light", ""},
                                  {id, "compile", "accepted", "", ""}));
    ConfigResult r{id, "multi", 0, "c0", true, 0, 0, 1.0, speedup, speedup, "{}"};
    EXPECT_TRUE(a->record_evaluation({r}, {id, "evaluate", "correct", "", ""}));
    return id;
  };
  const int64_t lucky = correct(1.5), steady = correct(1.4), slow = correct(1.1);
  auto view = test::must(experiment_view(*a, e));
  ASSERT_TRUE(view);
  EXPECT_EQ((*view)["targets"][0]["best_candidate"].as_int(), lucky);
  EXPECT_FALSE((*view)["targets"][0]["best_confirmed"].as_bool(true));

  ASSERT_TRUE(a->add_confirmation({lucky, true, 1.2, 1.1, 1.3, "", "[]", 0}));
  ASSERT_TRUE(a->add_confirmation({steady, true, 1.35, 1.3, 1.4, "", "[]", 0}));
  ASSERT_TRUE(a->add_confirmation({slow, false, 0, 0, 0, "wrong on config 0", "[]", 0}));
  // A later confirmation of the same candidate replaces the earlier one.
  ASSERT_TRUE(a->add_confirmation({steady, true, 1.33, 1.28, 1.38, "", "[]", 0}));
  EXPECT_EQ(test::must(a->confirmations(e)).size(), 3u);
  view = test::must(experiment_view(*a, e));
  ASSERT_TRUE(view);
  const auto& t = (*view)["targets"][0];
  EXPECT_EQ(t["best_candidate"].as_int(), steady) << t.dump();
  EXPECT_TRUE(t["best_confirmed"].as_bool());
  EXPECT_DOUBLE_EQ(t["best_speedup"].as_number(), 1.33);
  EXPECT_DOUBLE_EQ(t["best_speedup_p10"].as_number(), 1.28);
  EXPECT_DOUBLE_EQ(t["best_speedup_p90"].as_number(), 1.38);
  EXPECT_NEAR(t["best_speedup_searched"].as_number(), 1.4, 1e-9);
  EXPECT_EQ(t["best_after"].as_int(), 2);
  EXPECT_EQ(t["search_best_candidate"].as_int(), lucky);
  EXPECT_NEAR(t["search_best_speedup"].as_number(), 1.5, 1e-9);
  ASSERT_EQ(t["confirmations"].as_array().size(), 3u);
  EXPECT_FALSE(t["confirmations"][2]["confirmed"].as_bool(true));
  EXPECT_EQ(t["confirmations"][2]["reason"].as_string(), "wrong on config 0");
}

// An archive of schema 3 (before compiles said which headers built a candidate) opens, keeps its
// compile logs, and records the headers of new ones.
TEST_F(ArchiveTest, ASchemaThreeArchiveGainsTheHeadersColumns) {
  int64_t id = 0;
  {
    auto a = open();
    id = candidate(*a, experiment(*a));
    ASSERT_TRUE(a->record_compile({id, true, false, 1.0, "old log", "[]", "", ""},
                                  {id, "compile", "accepted", "", ""}));
  }
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(path_.c_str(), &raw), SQLITE_OK);
  for (const char* sql :
       {"CREATE TABLE old_compiles AS SELECT candidate_id, ok, cache_hit, seconds, "
        "log, resources FROM compiles;",
        "DROP TABLE compiles;", "ALTER TABLE old_compiles RENAME TO compiles;",
        "PRAGMA user_version=3;"})
    ASSERT_EQ(sqlite3_exec(raw, sql, nullptr, nullptr, nullptr), SQLITE_OK) << sql;
  sqlite3_close(raw);
  auto a = open();
  auto old = test::must(a->compile_log(id));
  ASSERT_TRUE(old);
  EXPECT_EQ(old->log, "old log");
  EXPECT_EQ(old->headers, "");
  ASSERT_TRUE(a->record_compile({id, true, true, 0.0, "new log", "[]", "light", ""},
                                {id, "compile", "accepted", "", ""}));
  EXPECT_EQ(test::must(a->compile_log(id))->headers, "light");
}

TEST_F(ArchiveTest, ANewerSchemaIsRefusedWithAReason) {
  { open(); }
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(path_.c_str(), &raw), SQLITE_OK);
  sqlite3_exec(raw, "PRAGMA user_version=99;", nullptr, nullptr, nullptr);
  sqlite3_close(raw);
  auto newer = Archive::open(path_);
  EXPECT_FALSE(newer);
  EXPECT_NE(newer.error.find("newer kforge"), std::string::npos) << newer.error;
  auto nowhere = Archive::open("/no/such/dir/archive.db");
  EXPECT_FALSE(nowhere);
  EXPECT_NE(nowhere.error.find("cannot open the archive"), std::string::npos) << nowhere.error;
}

// A verdict's reason carries the worker's flags after its message; the suite's rows read them back.
TEST(VerdictReason, FlagsComeBackFromTheReasonTheyWereWrittenInto) {
  const std::vector<std::string> flags = {"library operators called at run time: aten::mm, aten::t",
                                          "sampled_memo: a; b"};
  EXPECT_EQ(
      reason_with_flags("", flags),
      "flag: library operators called at run time: aten::mm, aten::t; flag: sampled_memo: a; b");
  EXPECT_EQ(flags_of_reason(reason_with_flags("", flags)), flags);
  EXPECT_EQ(flags_of_reason(reason_with_flags("mismatch at [0, 3]; 2 of 8", flags)), flags);
  EXPECT_TRUE(flags_of_reason("mismatch at [0, 3]").empty());
  EXPECT_TRUE(flags_of_reason("").empty());
}

}  // namespace
}  // namespace kforge::archive
