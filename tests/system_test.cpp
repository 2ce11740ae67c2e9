// kforge as a user runs it, end to end on the CPU backend with the built-in proposer: the same
// seed twice gives the same candidates; a daemon killed with SIGKILL mid-experiment resumes with
// nothing lost and nothing evaluated twice; the console shows the live state of the actors.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <future>
#include <map>
#include <sstream>
#include <thread>

#include "archive/archive.hpp"
#include "common/json.hpp"
#include "evaluation/process.hpp"
#include "evaluation/python_scripts.hpp"
#include "net/http_client.hpp"
#include "tests/system_fixture.hpp"
#include "tests/test_support.hpp"

namespace kforge::test {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

TEST_F(SystemTest, TheSameSeedTwiceGivesTheSameCandidates) {
  auto first = run({"run", config_, "--archive", (dir_ / "first.db").string()});
  ASSERT_EQ(first.exit_code, 0) << first.output;
  EXPECT_NE(first.output.find("softmax/forward/cpu"), std::string::npos) << first.output;
  auto second = run({"run", config_, "--archive", (dir_ / "second.db").string(), "--quiet"});
  ASSERT_EQ(second.exit_code, 0) << second.output;
  auto a = open(dir_ / "first.db"), b = open(dir_ / "second.db");
  auto fa = fingerprint(*a, 1), fb = fingerprint(*b, 1);
  ASSERT_EQ(fa.size(), 10u);
  EXPECT_EQ(fa, fb);
  expect_complete(*a, 1, 10);
  // The summary and the report say how close the best came to the bound and when it was found.
  for (const char* column : {"of bound", "found after"})
    EXPECT_NE(first.output.find(column), std::string::npos) << column << "\n" << first.output;
  auto report = run({"report", "1", "--archive", (dir_ / "first.db").string(), "--json"});
  ASSERT_EQ(report.exit_code, 0) << report.output;
  auto doc = json::parse(report.output);
  ASSERT_TRUE(doc.value) << report.output;
  const auto& target = (*doc.value)["targets"][0];
  ASSERT_TRUE(target.contains("best_candidate")) << report.output;
  int64_t position = 0;
  for (const auto& c : test::must(a->candidates(1))) {
    ++position;
    if (c.id == target["best_candidate"].as_int()) break;
  }
  EXPECT_EQ(target["best_after"].as_int(), position) << report.output;
  EXPECT_GT(target["best_speed_of_light"].as_number(), 0) << report.output;
  // The best two were timed again once the search was over, and the best is reported from those
  // times, with their range; the summary says so.
  EXPECT_TRUE(target["best_confirmed"].as_bool()) << report.output;
  EXPECT_EQ(target["confirmations"].as_array().size(), 2u) << report.output;
  EXPECT_EQ(target["results_timed"].as_string(), "confirmation") << report.output;
  EXPECT_LE(target["best_speedup_p10"].as_number(), target["best_speedup"].as_number());
  EXPECT_GE(target["best_speedup_p90"].as_number(), target["best_speedup"].as_number());
  EXPECT_EQ(test::must(a->history(1, {"confirmed"})).size(), 2u);
  for (const char* words : {"confirmed", "timed again", "(p10-p90)"})
    EXPECT_NE(first.output.find(words), std::string::npos) << words << "\n" << first.output;
}

// The README's main job, as a user runs it twice: the same verdict for every candidate, and no
// honest kernel rejected for speed. Its layernorm moves 2 MB per call, which a cache holds: timed
// in batches, kernels beat a bound made from memory's bandwidth and were rejected as
// impossible_speed in some runs and not in others.
TEST_F(SystemTest, TheMainJobGivesTheSameVerdictsTwiceAndRejectsNoKernelForSpeed) {
  const std::string main_job = source_dir() + "/configs/example.json";
  for (const char* db : {"first.db", "second.db"}) {
    auto r = run({"run", main_job, "--archive", (dir_ / db).string(), "--quiet"});
    ASSERT_EQ(r.exit_code, 0) << r.output;
  }
  auto a = open(dir_ / "first.db"), b = open(dir_ / "second.db");
  auto fa = fingerprint(*a, 1), fb = fingerprint(*b, 1);
  ASSERT_EQ(fa.size(), 16u);
  EXPECT_EQ(fa, fb);
  for (const auto& line : fa)
    EXPECT_EQ(line.find("impossible_speed"), std::string::npos) << line;
}

TEST_F(SystemTest, TheDaemonSurvivesKillNineAndResumesWithNothingLost) {
  // The reference: the same experiment, uninterrupted.
  auto reference = run({"run", config_, "--archive", (dir_ / "reference.db").string(), "--quiet"});
  ASSERT_EQ(reference.exit_code, 0) << reference.output;

  const auto state = dir_ / "state";
  start_daemon(state);
  EXPECT_EQ(fs::status(state / "token").permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write);
  auto submitted = run({"console", "--state", state.string(), "submit", config_}, 1min);
  ASSERT_EQ(submitted.exit_code, 0) << submitted.output;
  EXPECT_NE(submitted.output.find("experiment 1 started"), std::string::npos) << submitted.output;

  // Wait until some candidates are evaluated, look at the live state, then kill -9.
  auto db = open(state / "archive.db");
  auto evaluated = [&] { return verdicts_at(*db, 1, "evaluate"); };
  for (int i = 0; i < 1200 && evaluated() < 3; ++i) std::this_thread::sleep_for(100ms);
  ASSERT_GE(evaluated(), 3);
  auto live = run({"console", "--state", state.string(), "state"}, 1min);
  ASSERT_EQ(live.exit_code, 0) << live.output;
  for (const char* expected :
       {"evaluator cpu", "compiler", "proposer builtin", "system-test", "running"})
    EXPECT_NE(live.output.find(expected), std::string::npos) << expected << "\n" << live.output;
  auto json_state = run({"console", "--state", state.string(), "state", "--json"}, 1min);
  auto doc = json::parse(json_state.output);
  ASSERT_TRUE(doc.value) << json_state.output;
  int64_t evaluator_done = -1;
  for (const auto& a : (*doc.value)["actors"].as_array())
    if (a["name"].as_string() == "evaluator cpu") evaluator_done = a["completed"].as_int();
  EXPECT_GE(evaluator_done, 3);
  ASSERT_LT(evaluated(), 10) << "the experiment finished before it could be killed";
  ::kill(daemon_->pid(), SIGKILL);
  daemon_->wait();
  daemon_.reset();
  EXPECT_EQ(test::must(db->experiment(1))->status, "running");
  auto read_line = [](const fs::path& p) {
    std::string line;
    std::getline(std::ifstream(p), line);
    return line;
  };
  const std::string api_token = read_line(state / "token");
  const std::string metrics_token = read_line(state / "metrics_token");
  EXPECT_EQ(metrics_token.size(), 64u);
  EXPECT_EQ(fs::status(state / "metrics_token").permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write);

  // A wrong token is refused; then the daemon comes back and carries on, with a new API token
  // and the same metrics token, which a scraper uses as before.
  start_daemon(state);
  EXPECT_NE(read_line(state / "token"), api_token);
  EXPECT_EQ(read_line(state / "metrics_token"), metrics_token);
  {
    auto info = json::parse_file((state / "daemon.json").string());
    ASSERT_TRUE(info.value) << info.error;
    const auto port = static_cast<uint16_t>((*info.value)["port"].as_int());
    auto scraped = net::http_call("127.0.0.1", port, "GET", "/metrics", metrics_token);
    EXPECT_EQ(scraped.status, 200) << scraped.body << scraped.error;
    EXPECT_NE(scraped.body.find("kforge_actor_queued"), std::string::npos) << scraped.body;
    EXPECT_EQ(net::http_call("127.0.0.1", port, "GET", "/api/state", metrics_token).status, 401);
  }
  auto not_a_token =
      run({"console", "--state", state.string(), "--token-file", config_, "state"}, 1min);
  EXPECT_EQ(not_a_token.exit_code, 2);
  EXPECT_NE(not_a_token.output.find("does not hold a token"), std::string::npos)
      << not_a_token.output;
  std::ofstream(dir_ / "wrong_token") << "0123456789abcdef\n";
  auto refused = run({"console", "--state", state.string(), "--token-file",
                      (dir_ / "wrong_token").string(), "state"},
                     1min);
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_NE(refused.output.find("401"), std::string::npos)
      << "[" << refused.output << "]" << refused.describe();
  // Live events over the WebSocket while the experiment carries on, until it ends; pause and
  // resume it.
  auto events = std::async(std::launch::async, [&] {
    return run({"console", "--state", state.string(), "events", "--experiment", "1"}, 5min);
  });
  std::this_thread::sleep_for(500ms);
  auto paused = run({"console", "--state", state.string(), "pause", "1"}, 1min);
  EXPECT_EQ(paused.exit_code, 0) << paused.output;
  auto twice = run({"console", "--state", state.string(), "pause", "1"}, 1min);
  EXPECT_EQ(twice.exit_code, 1) << twice.output;  // 409: it is paused already
  EXPECT_NE(twice.output.find("409"), std::string::npos) << twice.output;
  auto carried_on = run({"console", "--state", state.string(), "resume", "1"}, 1min);
  EXPECT_EQ(carried_on.exit_code, 0) << carried_on.output;
  for (int i = 0; i < 3000 && test::must(db->experiment(1))->status != "finished"; ++i)
    std::this_thread::sleep_for(100ms);
  ASSERT_EQ(test::must(db->experiment(1))->status, "finished");
  expect_complete(*db, 1, 10);
  auto streamed = events.get();
  EXPECT_EQ(streamed.exit_code, 0) << streamed.describe();  // it ended with the experiment
  EXPECT_NE(streamed.output.find("[experiment 1] experiment paused"), std::string::npos)
      << streamed.output;
  EXPECT_NE(streamed.output.find("[experiment 1] experiment finished"), std::string::npos)
      << streamed.output;
  // Following an experiment that has ended returns at once.
  auto after = run({"console", "--state", state.string(), "events", "--experiment", "1"}, 1min);
  EXPECT_EQ(after.exit_code, 0) << after.output;
  EXPECT_NE(after.output.find("experiment 1 has ended: finished"), std::string::npos)
      << after.output;
  EXPECT_NE(streamed.output.find("[experiment 1] candidate"), std::string::npos) << streamed.output;
  auto ref = open(dir_ / "reference.db");
  EXPECT_EQ(fingerprint(*db, 1), fingerprint(*ref, 1));
  bool resumed = false;
  for (const auto& e : test::must(db->history(1))) resumed = resumed || e.kind == "resumed";
  EXPECT_TRUE(resumed);
  auto shown = run({"console", "--state", state.string(), "experiment", "1"}, 1min);
  EXPECT_NE(shown.output.find("finished: 10 candidates"), std::string::npos) << shown.output;
  // The daemon's log says what it did across both lives, with levels, and never a token.
  std::ifstream log_file(state / "daemon.log");
  std::stringstream log;
  log << log_file.rdbuf();
  for (const char* expected :
       {"info    listening on http://127.0.0.1:", "info    api: POST /api/experiments 201",
        "info    experiment 1: experiment started", "info    experiment 1: resumed",
        "info    api: POST /api/experiments/1/pause 200", "experiment 1: new best for",
        "info    experiment 1: experiment finished"})
    EXPECT_NE(log.str().find(expected), std::string::npos) << expected << "\n" << log.str();
  for (const auto& token : {api_token, read_line(state / "token"), metrics_token})
    EXPECT_EQ(log.str().find(token), std::string::npos) << "a token in the log";
}

/// Every process below `root` (children, their children, ...).
std::vector<LiveProcess> descendants(pid_t root) {
  std::map<pid_t, std::vector<LiveProcess>> children;
  for (auto& p : live_processes()) children[p.parent].push_back(std::move(p));
  std::vector<LiveProcess> out;
  std::vector<pid_t> todo{root};
  while (!todo.empty()) {
    pid_t p = todo.back();
    todo.pop_back();
    for (const auto& c : children[p]) {
      out.push_back(c);
      todo.push_back(c.pid);
    }
  }
  return out;
}

/// Waits until processes whose names contain each of `wanted` run below `parent`, lets them run
/// `settle` longer, kills the parent with SIGKILL, and expects every process that was below it to
/// be gone within 2 s.
void kill_nine_when_running(std::optional<evaluation::Child>& parent,
                            const std::vector<std::string>& wanted,
                            std::chrono::milliseconds settle, const char* phase) {
  std::vector<LiveProcess> seen;
  bool found = false;
  for (int i = 0; i < 3600 && !found; ++i) {
    seen = descendants(parent->pid());
    found = std::all_of(wanted.begin(), wanted.end(), [&](const std::string& w) {
      return std::any_of(seen.begin(), seen.end(),
                         [&](const LiveProcess& p) { return p.name.find(w) != std::string::npos; });
    });
    if (!found) std::this_thread::sleep_for(50ms);
  }
  std::string names;
  for (const auto& p : seen) names += p.name + " ";
  ASSERT_TRUE(found) << phase << ": never saw them all running; last seen: " << names;
  std::this_thread::sleep_for(settle);
  seen = descendants(parent->pid());
  ::kill(parent->pid(), SIGKILL);
  parent->wait();
  parent.reset();
  std::vector<LiveProcess> left = seen;
  for (int i = 0; i < 40 && !left.empty(); ++i) {
    std::erase_if(left, [](const LiveProcess& p) { return !is_alive(p.pid); });
    if (!left.empty()) std::this_thread::sleep_for(50ms);
  }
  std::string survivors;
  for (const auto& p : left) survivors += p.name + " (" + std::to_string(p.pid) + ") ";
  EXPECT_TRUE(left.empty()) << phase << ": still running 2 s after kill -9: " << survivors;
}

/// Waits for `child` to exit, at most `limit`; the raw wait status, or nothing if it still runs.
std::optional<int> exit_within(evaluation::Child& child, std::chrono::milliseconds limit) {
  const auto until = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < until) {
    if (auto status = child.try_wait()) return status;
    std::this_thread::sleep_for(50ms);
  }
  return std::nullopt;
}

// A service manager's stop: SIGTERM ends `kforge suite` within 10 s though the kernel in flight
// loops until its call times out (a minute), its worker with it; and `kforge run` given SIGTERM
// mid-experiment resumes to the same candidates and verdicts as a run never stopped.
TEST_F(SystemTest, SigtermEndsARunWithinTenSecondsAndItResumesWithNothingLost) {
  auto suite = kforge({"suite", "--tasks", source_dir() + "/tasks/softmax", "--kernels",
                       source_dir() + "/tests/exploits/cpu/endless_loop.cpp", "--backend", "cpu",
                       "--archive", (dir_ / "suite.db").string()});
  suite.capture_output = false;
  auto spawned = evaluation::spawn(suite);
  ASSERT_TRUE(spawned.child) << spawned.error;
  auto suite_db = [&] { return archive::Archive::open((dir_ / "suite.db").string()); };
  bool compiled = false;
  std::optional<int> ended;
  // the task's export (cold in a clean clone) and the compile come first: 10-60 s alone, minutes
  // on a loaded 2-core CI machine. (Waits of 2, 4 and 8 minutes all ran out in CI: kforge had
  // ended at once, its archive's making having collided with this test's opening of it.)
  for (int i = 0; i < 9600 && !compiled && !ended; ++i) {
    std::this_thread::sleep_for(50ms);
    if (auto db = suite_db(); db) compiled = verdicts_at(**db, 1, "compile") > 0;
    if (!compiled) ended = spawned.child->try_wait();
  }
  ASSERT_FALSE(ended) << "kforge suite ended before its endless kernel was evaluated: status "
                      << *ended;
  ASSERT_TRUE(compiled) << "the endless kernel never reached its evaluation";
  std::this_thread::sleep_for(2s);  // inside the endless call
  const auto working = descendants(spawned.child->pid());
  ::kill(spawned.child->pid(), SIGTERM);
  auto status = exit_within(*spawned.child, 10s);
  ASSERT_TRUE(status) << "kforge suite still runs 10 s after SIGTERM";
  EXPECT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) == 143) << *status;
  for (const auto& p : working)
    for (int i = 0; i < 40 && is_alive(p.pid); ++i) std::this_thread::sleep_for(50ms);
  for (const auto& p : working) EXPECT_FALSE(is_alive(p.pid)) << p.name << " outlived kforge";

  // Thirty candidates: long enough to be stopped in the middle.
  const auto longer = (dir_ / "longer.json").string();
  std::ofstream(longer) << R"({"name": "sigterm", "seed": 5, "tasks": [")" << source_dir()
                        << R"(/tasks/softmax"], "backends": ["cpu"], "config_set": "single",
      "budget": {"candidates_per_target": 30}, "evaluation": {"seeds": 1, "timing_seconds": 0.1},
      "search": {"pipeline_depth": 3}})";
  auto reference = run({"run", longer, "--archive", (dir_ / "reference.db").string(), "--quiet"});
  ASSERT_EQ(reference.exit_code, 0) << reference.output;
  auto interrupted = kforge({"run", longer, "--archive", (dir_ / "stopped.db").string(), "--quiet"});
  interrupted.capture_output = false;
  spawned = evaluation::spawn(interrupted);
  ASSERT_TRUE(spawned.child) << spawned.error;
  auto db = open(dir_ / "stopped.db");  // made by whichever of the two comes first
  auto evaluated = [&] { return verdicts_at(*db, 1, "evaluate"); };
  for (int i = 0; i < 1200 && evaluated() < 3; ++i) std::this_thread::sleep_for(50ms);
  ::kill(spawned.child->pid(), SIGTERM);
  status = exit_within(*spawned.child, 10s);
  ASSERT_TRUE(status) << "kforge run still runs 10 s after SIGTERM";
  EXPECT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) == 143) << *status;
  ASSERT_LT(evaluated(), 30) << "the experiment finished before SIGTERM";
  auto resumed =
      run({"run", "--resume", "1", "--archive", (dir_ / "stopped.db").string(), "--quiet"});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
  auto ref = open(dir_ / "reference.db");
  EXPECT_EQ(fingerprint(*db, 1), fingerprint(*ref, 1));
  expect_complete(*db, 1, 30);

  // The daemon, with the endless kernel in flight: gone within 10 s, its port file with it.
  const auto state = dir_ / "state";
  start_daemon(state);
  std::ofstream(dir_ / "endless.json")
      << R"({"name": "endless", "seed": 1, "tasks": [")" << source_dir()
      << R"(/tasks/softmax"], "backends": ["cpu"], "config_set": "single",
      "proposers": [{"kind": "files", "pattern": ")"
      << source_dir() << R"(/tests/exploits/cpu/endless_loop.cpp"}]})";
  auto submitted =
      run({"console", "--state", state.string(), "submit", (dir_ / "endless.json").string()}, 1min);
  ASSERT_EQ(submitted.exit_code, 0) << submitted.output;
  auto daemon_db = open(state / "archive.db");
  bool evaluating = false;
  for (int i = 0; i < 2400 && !evaluating; ++i) {
    std::this_thread::sleep_for(50ms);
    evaluating = verdicts_at(*daemon_db, 1, "compile") > 0;
  }
  ASSERT_TRUE(evaluating) << "the endless kernel never reached its evaluation";
  std::this_thread::sleep_for(2s);
  ::kill(daemon_->pid(), SIGTERM);
  status = exit_within(*daemon_, 10s);
  ASSERT_TRUE(status) << "the daemon still runs 10 s after SIGTERM";
  daemon_.reset();
  EXPECT_FALSE(fs::exists(state / "daemon.json"));
}

// kill -9 of kforge while it exports a task whose Python never finishes, while the daemon
// compiles and evaluates, and while `kforge eval` evaluates a kernel that loops forever: every
// process it started (the exporter, g++ and its cc1plus, kforge-worker) goes with it.
TEST_F(SystemTest, KillNineLeavesNoCompilerWorkerOrExporterBehind) {
  if (!pid_namespaces_work())
    GTEST_SKIP() << "no PID namespaces here: a compiler's cc1plus is not tied to kforge";
  // The exporter as the daemon's own child (a fresh interpreter), not a fork of the tests' script
  // server: script_server_test checks that a served script dies with its client.
  ::unsetenv(evaluation::kScriptServerVariable);
  const auto state = dir_ / "state", cache = dir_ / "cache";  // a cold cache: nothing is reused
  // A copy of the softmax task whose module takes ten minutes to import.
  fs::copy(source_dir() + "/tasks/softmax", dir_ / "slow_softmax", fs::copy_options::recursive);
  std::ofstream(dir_ / "slow_softmax" / "func_forward.py", std::ios::app)
      << "\nimport time\ntime.sleep(600)\n";
  std::ofstream(dir_ / "slow.json")
      << R"({"name": "slow", "seed": 1, "tasks": [")" << (dir_ / "slow_softmax").string()
      << R"("], "backends": ["cpu"], "config_set": "single"})";
  std::ofstream(dir_ / "fresh.json") << R"({"name": "orphans", "seed": 91, "tasks": [")"
                                     << source_dir() << R"(/tasks/softmax"], "backends": ["cpu"],
      "config_set": "single", "budget": {"candidates_per_target": 40},
      "evaluation": {"seeds": 2, "timing_seconds": 0.4}, "search": {"pipeline_depth": 4}})";

  start_daemon(state, cache.string());
  auto slow = run({"console", "--state", state.string(), "submit", (dir_ / "slow.json")}, 1min);
  ASSERT_EQ(slow.exit_code, 0) << slow.output;
  kill_nine_when_running(daemon_, {"python"}, 1s, "during an export");

  start_daemon(state, cache.string());
  run({"console", "--state", state.string(), "stop", "1"}, 1min);
  auto fresh = run({"console", "--state", state.string(), "submit", (dir_ / "fresh.json")}, 1min);
  ASSERT_EQ(fresh.exit_code, 0) << fresh.output;
  kill_nine_when_running(daemon_, {"cc1plus", "kforge-worker"}, 0ms,
                         "during compiles and an evaluation");

  auto eval = kforge({"eval", "--task", source_dir() + "/tasks/softmax", "--kernel",
                      source_dir() + "/tests/exploits/cpu/endless_loop.cpp", "--backend", "cpu"});
  eval.set_env = {{"KFORGE_CACHE", cache.string()}};
  auto spawned = evaluation::spawn(eval);
  ASSERT_TRUE(spawned.child) << spawned.error;
  std::optional<evaluation::Child> evaluating = std::move(spawned.child);
  kill_nine_when_running(evaluating, {"kforge-worker"}, 3s, "during an endless evaluation");
}

// Ids a client types, at every route that takes one, and the events stream's filter: boundary and
// malformed values get a 4xx that says what was expected, never a 5xx or a dead daemon; WebSocket
// upgrades are served on the events route only.
TEST_F(SystemTest, TheApiAnswersBadIdsWithClientErrorsAndStaysUp) {
  const auto state = dir_ / "state";
  start_daemon(state);
  auto info = json::parse_file((state / "daemon.json").string());
  ASSERT_TRUE(info.value) << info.error;
  const auto port = static_cast<uint16_t>((*info.value)["port"].as_int());
  std::ifstream token_file(state / "token");
  std::string token;
  std::getline(token_file, token);
  auto call = [&](const std::string& method, const std::string& target) {
    return net::http_call("127.0.0.1", port, method, target, token);
  };
  for (const std::string id : {"99999999999999999999", "9223372036854775808", "0", "-1", "abc",
                               "1e3", "007x", "9223372036854775807"}) {
    for (const auto& [method, route] : std::vector<std::pair<std::string, std::string>>{
             {"GET", "/api/experiments/" + id},
             {"GET", "/api/experiments/" + id + "/events"},
             {"GET", "/api/experiments/" + id + "/report"},
             {"POST", "/api/experiments/" + id + "/pause"},
             {"GET", "/api/candidates/" + id}}) {
      auto r = call(method, route);
      // A whole number from 1 to 2^63-1 that names nothing is a 404; anything else a 400.
      EXPECT_EQ(r.status, id == "9223372036854775807" ? 404 : 400)
          << method << " " << route << ": " << r.status << " " << r.body << r.error;
      if (id == "99999999999999999999") {
        EXPECT_NE(r.body.find("needs a whole number"), std::string::npos) << route << r.body;
      }
    }
  }
  // A name with a NUL (or any control character) in it is refused, and says why.
  auto nul = net::http_call("127.0.0.1", port, "POST", "/api/experiments", token,
                            R"({"name": "a\u0000b", "tasks": [")" + source_dir() +
                                R"(/tasks/softmax"], "backends": ["cpu"]})");
  EXPECT_EQ(nul.status, 400) << nul.body;
  EXPECT_NE(nul.body.find("control characters"), std::string::npos) << nul.body;
  for (const std::string target :
       {"/api/events?experiment=99999999999999999999", "/api/events?experiment=abc",
        "/api/events?experiment=", "/api/state", "/api/experiments"}) {
    net::WebSocketClient ws;
    EXPECT_FALSE(ws.connect("127.0.0.1", port, target, token)) << target << " was upgraded";
  }
  // The dashboard's address, signed in: the token after '#', both ways of asking for it.
  const std::string address =
      "http://127.0.0.1:" + std::to_string(port) + "/#token=" + token + "\n";
  for (const std::vector<std::string>& asked :
       {std::vector<std::string>{"dashboard", "--state", state.string()},
        std::vector<std::string>{"console", "--state", state.string(), "dashboard"}}) {
    auto r = run(asked, 1min);
    EXPECT_EQ(r.exit_code, 0) << asked[0] << "\n" << r.output;
    EXPECT_EQ(r.output.rfind(address, 0), 0u) << asked[0] << "\n" << r.output;
  }
  net::WebSocketClient events;
  auto connected = events.connect("127.0.0.1", port, "/api/events?experiment=1", token);
  EXPECT_TRUE(connected) << connected.error;
  events.close();
  auto bad_filter =
      run({"console", "--state", state.string(), "events", "--experiment", "99999999999999999999"},
          1min);
  EXPECT_EQ(bad_filter.exit_code, 2) << bad_filter.output;
  EXPECT_NE(bad_filter.output.find("--experiment needs a whole number"), std::string::npos)
      << bad_filter.output;
  for (const std::string verb : {"pause", "resume", "stop", "experiment", "show"}) {
    auto r = run({"console", "--state", state.string(), verb, "99999999999999999999"}, 1min);
    EXPECT_EQ(r.exit_code, 2) << verb << " " << r.output;
    EXPECT_NE(r.output.find("needs a whole number"), std::string::npos) << verb << " " << r.output;
  }
  auto alive = call("GET", "/api/state");
  EXPECT_EQ(alive.status, 200) << alive.body << alive.error;
}

TEST_F(SystemTest, BadConfigurationsAndRequestsGetClearErrors) {
  std::ofstream(dir_ / "bad.json") << R"({"seed": -1, "tasks": ["no/such/task"], "budgte": {}})";
  auto bad = run({"run", (dir_ / "bad.json").string(), "--archive", (dir_ / "a.db").string()});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.output.find("config.seed must be a non-negative integer"), std::string::npos)
      << bad.output;
  EXPECT_NE(bad.output.find("config.budgte is not a known setting"), std::string::npos)
      << bad.output;
  std::ofstream(dir_ / "missing.json") << R"({"seed": 1, "tasks": ["no/such/task"]})";
  auto missing =
      run({"run", (dir_ / "missing.json").string(), "--archive", (dir_ / "a.db").string()});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.output.find("no/such/task: no func_forward.py"), std::string::npos)
      << missing.output;
  std::ofstream(dir_ / "twice.json") << R"({"seed": 1, "tasks": ["softmax"], "seed": 2})";
  auto twice = run({"run", (dir_ / "twice.json").string(), "--archive", (dir_ / "a.db").string()});
  EXPECT_EQ(twice.exit_code, 2);
  EXPECT_NE(twice.output.find("the key \"seed\" appears twice"), std::string::npos) << twice.output;
  auto no_daemon = run({"console", "--state", (dir_ / "nothing").string(), "state"});
  EXPECT_EQ(no_daemon.exit_code, 2);
  EXPECT_NE(no_daemon.output.find("no daemon runs on"), std::string::npos) << no_daemon.output;
}

// The daemon's state folder: created private where missing; an existing one that others may write
// to, or that belongs to someone else, is refused with the reason and left as it was.
TEST_F(SystemTest, TheDaemonRefusesAStateFolderOthersCanWriteAndNeverChangesIt) {
  auto created = dir_ / "new" / "state";
  start_daemon(created);
  EXPECT_EQ(fs::status(created).permissions() & fs::perms::all, fs::perms::owner_all);
  daemon_->kill_group();
  daemon_->wait();
  daemon_.reset();

  auto shared = dir_ / "shared";
  fs::create_directories(shared);
  fs::permissions(shared, fs::perms::all | fs::perms::sticky_bit);
  auto refused = run({"daemon", "--state", shared.string()}, 1min);
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.output.find("writable by everyone (mode 1777)"), std::string::npos)
      << refused.output;
  EXPECT_EQ(fs::status(shared).permissions(), fs::perms::all | fs::perms::sticky_bit);
  EXPECT_FALSE(fs::exists(shared / "token"));

  if (::geteuid() == 0) {  // only root can give a folder away
    auto foreign = dir_ / "foreign";
    fs::create_directories(foreign);
    fs::permissions(foreign, fs::perms::owner_all);
    ASSERT_EQ(::chown(foreign.c_str(), 65534, 65534), 0);
    auto not_ours = run({"daemon", "--state", foreign.string()}, 1min);
    EXPECT_EQ(not_ours.exit_code, 2);
    EXPECT_NE(not_ours.output.find("belongs to uid 65534"), std::string::npos) << not_ours.output;
    EXPECT_FALSE(fs::exists(foreign / "token"));
  }
}

}  // namespace
}  // namespace kforge::test
