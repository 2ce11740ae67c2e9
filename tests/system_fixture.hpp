// What kforge's end-to-end tests share: a test folder with a small softmax experiment (ten
// candidates on the CPU backend), kforge run as a user runs it, a daemon started as from a shell,
// and what the archive must say of a finished experiment (every candidate, each judged once).
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "archive/archive.hpp"
#include "evaluation/process.hpp"
#include "tests/test_support.hpp"

namespace kforge::test {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

class SystemTest : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = fresh_test_dir("system_test");
    // Ten candidates of the softmax task on its single config; depth 3 keeps three in flight.
    config_ = (dir_ / "experiment.json").string();
    std::ofstream(config_) << R"({"name": "system-test", "seed": 5, "tasks": [")" << source_dir()
                           << R"(/tasks/softmax"], "backends": ["cpu"], "config_set": "single",
      "budget": {"candidates_per_target": 10}, "evaluation": {"seeds": 1, "timing_seconds": 0.1},
      "search": {"pipeline_depth": 3}})";
  }
  void TearDown() override {
    if (daemon_) daemon_->kill_group();
    fs::remove_all(dir_);
  }

  evaluation::SpawnOptions kforge(std::vector<std::string> args) {
    evaluation::SpawnOptions o;
    o.argv = {KFORGE_CLI_PATH};
    o.argv.insert(o.argv.end(), args.begin(), args.end());
    o.set_env = {{"KFORGE_CACHE", cache_dir()}};
    o.isolate_network = false;
    o.own_pid_namespace = false;  // as from a shell (see start_daemon)
    return o;
  }
  evaluation::RunResult run(std::vector<std::string> args, std::chrono::seconds timeout = 10min) {
    return evaluation::run(kforge(std::move(args)), timeout);
  }

  std::unique_ptr<archive::Archive> open(const fs::path& path) {
    auto a = archive::Archive::open(path.string());
    EXPECT_TRUE(a) << a.error;
    return a ? std::move(*a) : nullptr;
  }

  /// What two runs must agree on: every candidate's proposal and every verdict, without times.
  static std::vector<std::string> fingerprint(archive::Archive& a, int64_t experiment) {
    std::vector<std::string> out;
    std::map<int64_t, int64_t> sequence_of;
    for (const auto& c : test::must(a.candidates(experiment))) {
      sequence_of[c.id] = c.sequence;
      std::string line = std::to_string(c.sequence) + " " + c.strategy + " " + c.params + " " +
                         c.source_hash + " seed " + std::to_string(c.seed) + " parent " +
                         (c.parent_id ? std::to_string(sequence_of[c.parent_id]) : "-");
      for (const auto& v : test::must(a.verdicts(c.id)))
        line += " | " + v.stage + ":" + v.verdict + ":" + v.kind;
      for (const auto& r : test::must(a.results(c.id)))
        line += " | config " + std::to_string(r.config_index) + (r.correct ? " ok" : " wrong");
      out.push_back(line);
    }
    return out;
  }

  /// How many verdicts of `stage` the experiment's candidates have so far.
  static int verdicts_at(archive::Archive& a, int64_t experiment, const std::string& stage) {
    int n = 0;
    for (const auto& c : test::must(a.candidates(experiment)))
      for (const auto& v : test::must(a.verdicts(c.id))) n += v.stage == stage;
    return n;
  }

  static void expect_complete(archive::Archive& a, int64_t experiment, size_t budget) {
    auto candidates = test::must(a.candidates(experiment));
    ASSERT_EQ(candidates.size(), budget);
    for (size_t i = 0; i < candidates.size(); ++i) {
      EXPECT_EQ(candidates[i].sequence, static_cast<int64_t>(i));  // none lost
      int finals = 0, evaluations = 0;
      for (const auto& v : test::must(a.verdicts(candidates[i].id))) {
        finals += v.stage == "evaluate" || v.verdict == "rejected";
        evaluations += v.stage == "evaluate";
      }
      EXPECT_EQ(finals, 1) << "candidate " << candidates[i].id;
      EXPECT_LE(evaluations, 1) << "candidate " << candidates[i].id << " evaluated twice";
    }
  }

  /// Starts `kforge daemon --state state` as a shell would (no PID namespace of its own, so that
  /// nothing but kforge itself ties its children's lives to it) and waits for its port file.
  void start_daemon(const fs::path& state, const std::string& cache = cache_dir(),
                    const std::vector<std::string>& more = {}) {
    fs::remove(state / "daemon.json");  // a killed daemon leaves its port file behind
    std::vector<std::string> args{"daemon", "--state", state.string()};
    args.insert(args.end(), more.begin(), more.end());
    auto options = kforge(args);
    options.set_env = {{"KFORGE_CACHE", cache}};
    options.capture_output = false;  // its log goes to the test's output
    auto spawned = evaluation::spawn(options);
    ASSERT_TRUE(spawned.child) << spawned.error;
    daemon_ = std::move(spawned.child);
    for (int i = 0; i < 200 && !fs::exists(state / "daemon.json"); ++i)
      std::this_thread::sleep_for(50ms);
    ASSERT_TRUE(fs::exists(state / "daemon.json"));
  }

  fs::path dir_;
  std::string config_;
  std::optional<evaluation::Child> daemon_;
};

}  // namespace kforge::test
