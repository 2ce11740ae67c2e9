// What `kforge run` prints between events (tools/kforge/run_progress) and the daemon's log
// (common/log, tools/kforge/daemon_log): progress with done/total and an estimate from the first
// second, live on a terminal and as periodic lines in a log; log lines with their level, filtered
// by the level asked for, in the file the daemon keeps.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "common/log.hpp"
#include "messages/payloads.hpp"
#include "tools/kforge/daemon_log.hpp"
#include "tools/kforge/eval_progress.hpp"
#include "tools/kforge/run_progress.hpp"
#include "tools/kforge/suite_progress.hpp"

namespace kforge::cli {
namespace {

using namespace std::chrono_literals;

// `kforge eval`'s lines: a config a line with done/total; a config reported again by a fresh worker
// (the evaluation judged once more after a worker was lost at its counters) is not one more.
TEST(EvalProgress, CountsEachConfigOnceWhenAFreshWorkerReportsItAgain) {
  std::ostringstream out;
  EvalProgress p(out, 2, false);
  auto config = [](int index) {
    auto e = json::parse(R"({"event":"config","index":)" + std::to_string(index) +
                         R"(,"correct":true,"candidate":{"median_ms":47.0},
                            "reference":{"median_ms":27.4}})");
    EXPECT_TRUE(e.value) << e.error;
    return *e.value;
  };
  p.on_event(config(0));
  p.on_event(config(0));
  p.on_event(config(1));
  p.finish();
  // a line a config event, its count the configs reported so far
  std::istringstream lines(out.str());
  std::vector<std::string> counts;
  for (std::string line; std::getline(lines, line);)
    counts.push_back(line.substr(0, line.find(" configs after")) +
                     line.substr(line.find(": config")));
  EXPECT_EQ(counts, (std::vector<std::string>{
                        "  1/2: config 0 correct, kernel 47.0000 ms vs eager 27.4000 ms",
                        "  1/2: config 0 correct, kernel 47.0000 ms vs eager 27.4000 ms",
                        "  2/2: config 1 correct, kernel 47.0000 ms vs eager 27.4000 ms"}))
      << out.str();
}

TEST(RunProgress, SaysHowFarTheExperimentIsAndWhatIsLeft) {
  std::ostringstream out;
  RunProgress p(out, 4, false, std::chrono::steady_clock::now() - 40s);
  EXPECT_EQ(p.summary(), "setting up (exporting the tasks)");
  EXPECT_TRUE(p.due()) << "40 s without a line: a log gets one";
  p.show({"compiler: export tasks/softmax"});
  EXPECT_NE(out.str().find("] setting up (exporting the tasks); now: compiler: export "
                           "tasks/softmax\n"),
            std::string::npos)
      << out.str();
  EXPECT_FALSE(p.due()) << "a line was just printed";
  p.on_event(events::ExperimentStarted{2});
  p.on_event(events::Evaluated{});
  p.on_event(events::Rejected{});
  p.on_event(events::Proposed{});
  // 2 of 2 x 4 finished after about 40 s: about 120 s for the other 6.
  const std::string s = p.summary();
  EXPECT_EQ(s.rfind("2/8 candidates finished, about 12", 0), 0u) << s;
  p.on_event(events::Confirming{4});
  p.on_event(events::Confirmed{});
  EXPECT_EQ(p.summary(), "confirming the best: 1/4 timed again");
}

TEST(RunProgress, OnATerminalTheLineIsRewrittenInPlace) {
  std::ostringstream out;
  RunProgress p(out, 4, true, std::chrono::steady_clock::now());
  EXPECT_TRUE(p.due());
  p.show({});
  p.show({"evaluator cpu: candidate 2"});
  p.before_line();
  const std::string s = out.str();
  EXPECT_EQ(s.find('\n'), std::string::npos) << s;
  EXPECT_NE(s.find("\r\033[K"), std::string::npos) << s;
  EXPECT_NE(s.find("now: evaluator cpu: candidate 2"), std::string::npos) << s;
  EXPECT_EQ(s.substr(s.size() - 4), "\r\033[K") << "cleared before an event line";
}

TEST(DaemonLog, LinesCarryTheirLevelAndOnlyThoseAskedForAreKept) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("kforge_log_test_" + std::to_string(::getpid()) + ".log");
  std::filesystem::remove(path);
  ASSERT_TRUE(log::to_stderr_and_file(path.string(), log::Level::info));
  log::debug("a debug line");
  log::info("experiment 1: experiment started");
  log::warn("evaluator cpu: the worker failed");
  log::error("experiment 2: experiment failed");
  log::to_stderr(log::Level::warn);
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  const std::string s = text.str();
  EXPECT_EQ(s.find("a debug line"), std::string::npos) << s;
  EXPECT_NE(s.find(" info    experiment 1: experiment started\n"), std::string::npos) << s;
  EXPECT_NE(s.find(" warning evaluator cpu: the worker failed\n"), std::string::npos) << s;
  EXPECT_NE(s.find(" error   experiment 2: experiment failed\n"), std::string::npos) << s;
  // A log that cannot be written is refused with the reason (here a file stands where its folder
  // would be).
  std::ofstream(path) << "a file";
  auto refused = log::to_stderr_and_file((path / "daemon.log").string(), log::Level::info);
  EXPECT_FALSE(refused);
  EXPECT_NE(refused.error.find("cannot write the log"), std::string::npos) << refused.error;
  std::filesystem::remove(path);
  log::to_stderr(log::Level::warn);
  EXPECT_EQ(log::parse_level("verbose"), std::nullopt);
}

TEST(DaemonLog, EventsAreLoggedAtTheLevelTheyDeserve) {
  EXPECT_EQ(event_level("experiment_failed"), log::Level::error);
  EXPECT_EQ(event_level("stage_error"), log::Level::error);
  EXPECT_EQ(event_level("proposer_error"), log::Level::warn);
  EXPECT_EQ(event_level("target_abandoned"), log::Level::warn);
  EXPECT_EQ(event_level("experiment_started"), log::Level::info);
  EXPECT_EQ(event_level("confirmed"), log::Level::info);
  EXPECT_EQ(event_level("new_best"), log::Level::info);
  EXPECT_EQ(event_level("evaluated"), log::Level::debug);
  EXPECT_EQ(event_level("proposed"), log::Level::debug);
  EXPECT_EQ(event_level("a_kind_of_a_later_kforge"), log::Level::debug);
}

/// An event as `kforge suite` hears it: made by a producer, archived as its record (kind and
/// JSON text) and read back.
events::Event heard(const events::Event& event) {
  auto read = read_event(make_event(event));
  EXPECT_TRUE(read) << read.error;
  return read ? *read : events::Event(events::Unknown{});
}

/// Candidate `candidate`'s event of type E, as the pipeline makes it.
template <class E>
events::Event about(const std::string& target, int64_t candidate) {
  return heard(events::about<E>({candidate, candidate, target}));
}

// A suite of two targets, 3 and 2 kernels: two of the first are rejected or fail to compile and
// the target is abandoned while a third is in flight; that one finishing later is not counted
// again. The count reaches 5 of 5, never more.
TEST(SuiteProgress, AnAbandonedTargetCountsWhatItWillNeverGetOnce) {
  const std::string a = "softmax/forward/cpu", b = "layernorm/forward/cpu";
  SuiteProgress p({{a, 3}, {b, 2}});
  EXPECT_EQ(p.total(), 5);
  EXPECT_TRUE(p.on_event(about<events::Rejected>(a, 1)));
  EXPECT_TRUE(p.on_event(about<events::CompileFailed>(a, 2)));
  EXPECT_FALSE(p.on_event(about<events::LlmVerified>(a, 3)));
  EXPECT_EQ(p.done(), 2);
  const auto abandoned = heard(events::TargetAbandoned{{a, "no proposer can write it"}});
  EXPECT_TRUE(p.on_event(abandoned));
  EXPECT_EQ(p.done(), 3);
  EXPECT_FALSE(p.on_event(about<events::Evaluated>(a, 3)));  // was in flight
  EXPECT_FALSE(p.on_event(abandoned));
  EXPECT_EQ(p.done(), 3);
  EXPECT_TRUE(p.on_event(about<events::Evaluated>(b, 4)));
  EXPECT_TRUE(p.on_event(about<events::StageError>(b, 5)));
  EXPECT_EQ(p.done(), 5);
  // A target that fails to start before any kernel counts all of its own.
  SuiteProgress q({{a, 3}});
  EXPECT_TRUE(q.on_event(heard(events::TargetFailed{{a, "the export failed"}})));
  EXPECT_EQ(q.done(), 3);
}

// A resumed suite starts from what its earlier runs finished: 2 of a's 3 kernels, so a's last one
// makes it 3 of 5, and an abandoned target adds only what it has left.
TEST(SuiteProgress, AResumedSuiteCountsWhatItsEarlierRunsFinished) {
  const std::string a = "softmax/forward/cpu", b = "layernorm/forward/cpu";
  SuiteProgress p({{a, 3}, {b, 2}});
  p.count_finished_before(a);
  p.count_finished_before(a);
  EXPECT_EQ(p.done(), 2);
  EXPECT_EQ(p.done_before(), 2);
  EXPECT_TRUE(p.on_event(about<events::Evaluated>(a, 3)));
  EXPECT_EQ(p.done(), 3);
  EXPECT_TRUE(p.on_event(heard(events::TargetAbandoned{{b, "no proposer can write it"}})));
  EXPECT_EQ(p.done(), 5);
  EXPECT_EQ(p.done_before(), 2);
}

}  // namespace
}  // namespace kforge::cli
