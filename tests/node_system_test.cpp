// A daemon and two nodes (`kforge node --cpu`) as separate processes on loopback, as a user starts
// them: an experiment uses both nodes; a node killed with SIGKILL mid-evaluation leaves every
// candidate evaluated exactly once and rejoins when started again; a node with a wrong token is
// refused; a daemon killed and restarted under running nodes is rejoined by them and resumes.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <set>

#include "common/json.hpp"
#include "net/http_client.hpp"
#include "tests/system_fixture.hpp"

namespace kforge::test {
namespace {

class NodeSystemTest : public SystemTest {
 protected:
  void SetUp() override {
    SystemTest::SetUp();
    state_ = dir_ / "state";
    join_ = "127.0.0.1:" + std::to_string(node_port_);
    // Evaluations of a second or more, so that a node is seen with one in flight.
    std::ofstream(config_) << R"({"name": "nodes-test", "seed": 5, "tasks": [")" << source_dir()
                           << R"(/tasks/softmax"], "backends": ["cpu"], "config_set": "single",
      "budget": {"candidates_per_target": 10}, "evaluation": {"seeds": 1, "timing_seconds": 1},
      "search": {"pipeline_depth": 3}})";
  }
  void TearDown() override {
    for (auto& [name, node] : nodes_)
      if (node) node->kill_group();
    SystemTest::TearDown();
  }

  void start_nodes_daemon() {
    start_daemon(state_, cache_dir(),
                 {"--node-port", std::to_string(node_port_), "--cpu-evaluators", "0"});
  }

  void start_node(const std::string& name) {
    auto options = kforge({"node", "--join", join_, "--token-file",
                           (state_ / "node_token").string(), "--cpu", "--name", name});
    options.capture_output = false;  // its log goes to the test's output
    auto spawned = evaluation::spawn(options);
    ASSERT_TRUE(spawned.child) << spawned.error;
    nodes_[name] = std::move(spawned.child);
  }

  /// The daemon's status rows by actor name (empty when the console cannot reach it).
  std::map<std::string, json::Value> rows() {
    auto r = run({"console", "--state", state_.string(), "state", "--json"}, 1min);
    std::map<std::string, json::Value> out;
    auto doc = json::parse(r.output);
    if (r.exit_code != 0 || !doc.value) return out;
    for (const auto& a : (*doc.value)["actors"].as_array()) out[a["name"].as_string()] = a;
    return out;
  }

  /// Waits up to `limit` for `ready`, polling every 100 ms.
  template <class F>
  static bool eventually(F ready, std::chrono::seconds limit) {
    const auto until = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < until) {
      if (ready()) return true;
      std::this_thread::sleep_for(100ms);
    }
    return ready();
  }

  bool nodes_joined(const std::vector<std::string>& names) {
    auto r = rows();
    for (const auto& n : names)
      if (!r.count("node " + n + " evaluator cpu")) return false;
    return true;
  }

  /// The devices that evaluated each candidate of the experiment, by candidate id.
  std::map<int64_t, std::vector<std::string>> devices(archive::Archive& a, int64_t experiment) {
    std::map<int64_t, std::vector<std::string>> out;
    for (const auto& e : must(a.history(experiment, {"evaluated"}))) {
      auto d = json::parse(e.detail_json);
      if (d.value)
        out[(*d.value)["candidate"].as_int()].push_back((*d.value)["device"].as_string());
    }
    return out;
  }

  void wait_finished(archive::Archive& db, int64_t experiment) {
    ASSERT_TRUE(
        eventually([&] { return must(db.experiment(experiment))->status == "finished"; }, 5min))
        << "experiment " << experiment << " did not finish";
  }

  uint16_t node_port_ = free_loopback_port();
  fs::path state_;
  std::string join_;
  std::map<std::string, std::optional<evaluation::Child>> nodes_;
};

TEST_F(NodeSystemTest, TwoNodesShareAnExperimentAndOneKilledMidEvaluationLosesNothing) {
  start_nodes_daemon();
  // A node without the daemon's token is refused, says so and exits 1.
  std::ofstream(dir_ / "wrong_token") << "0123456789abcdef\n";
  auto intruder = run({"node", "--join", join_, "--token-file", (dir_ / "wrong_token").string(),
                       "--cpu", "--name", "intruder"},
                      1min);
  EXPECT_EQ(intruder.exit_code, 1) << intruder.describe();
  EXPECT_NE(intruder.output.find("refused this node"), std::string::npos) << intruder.output;

  start_node("a");
  start_node("b");
  ASSERT_TRUE(eventually([&] { return nodes_joined({"a", "b"}); }, 60s));
  {  // A Prometheus scrape sees the nodes' evaluators too.
    auto info = json::parse_file((state_ / "daemon.json").string());
    ASSERT_TRUE(info.value) << info.error;
    std::string metrics_token;
    std::getline(std::ifstream(state_ / "metrics_token"), metrics_token);
    auto scraped =
        net::http_call("127.0.0.1", static_cast<uint16_t>((*info.value)["port"].as_int()), "GET",
                       "/metrics", metrics_token);
    EXPECT_EQ(scraped.status, 200) << scraped.error;
    EXPECT_NE(scraped.body.find("node b evaluator cpu"), std::string::npos) << scraped.body;
  }
  auto submitted = run({"console", "--state", state_.string(), "submit", config_}, 1min);
  ASSERT_EQ(submitted.exit_code, 0) << submitted.output;
  auto db = open(state_ / "archive.db");

  // Node a is killed while it evaluates a candidate, after it evaluated one.
  std::string lost;
  ASSERT_TRUE(eventually(
      [&] {
        auto r = rows();
        auto a = r.find("node a evaluator cpu");
        if (a == r.end() || a->second["in_flight"].as_int() != 1 ||
            a->second["completed"].as_int() < 1)
          return false;
        lost = a->second["current"].as_string();
        return true;
      },
      2min))
      << "node a never had a candidate in flight";
  ::kill(nodes_["a"]->pid(), SIGKILL);
  nodes_["a"]->wait();
  nodes_["a"].reset();
  ASSERT_EQ(lost.rfind("candidate ", 0), 0u) << lost;
  const int64_t lost_id = std::stoll(lost.substr(10));

  wait_finished(*db, 1);
  expect_complete(*db, 1, 10);
  auto by = devices(*db, 1);
  ASSERT_EQ(by.size(), 10u);
  std::set<std::string> nodes_seen;
  for (const auto& [id, list] : by) {
    ASSERT_EQ(list.size(), 1u) << "candidate " << id << " evaluated " << list.size() << " times";
    for (const char* n : {"(node a)", "(node b)"})
      if (list[0].find(n) != std::string::npos) nodes_seen.insert(n);
  }
  EXPECT_EQ(nodes_seen.size(), 2u) << "both nodes evaluate";
  ASSERT_TRUE(by.count(lost_id));
  EXPECT_NE(by[lost_id][0].find("(node b)"), std::string::npos)
      << "the candidate node a lost was evaluated by " << by[lost_id][0];
  EXPECT_NE(
      rows()["evaluator pool cpu"]["last_error"].as_string().find("node a evaluator cpu left"),
      std::string::npos);

  // Node a comes back and joins again.
  start_node("a");
  EXPECT_TRUE(eventually([&] { return nodes_joined({"a", "b"}); }, 60s));
}

TEST_F(NodeSystemTest, ADaemonRestartedUnderRunningNodesIsRejoinedAndResumes) {
  start_nodes_daemon();
  start_node("a");
  start_node("b");
  ASSERT_TRUE(eventually([&] { return nodes_joined({"a", "b"}); }, 60s));
  auto submitted = run({"console", "--state", state_.string(), "submit", config_}, 1min);
  ASSERT_EQ(submitted.exit_code, 0) << submitted.output;
  auto db = open(state_ / "archive.db");
  auto evaluated = [&] {
    int n = 0;
    for (const auto& c : must(db->candidates(1)))
      for (const auto& v : must(db->verdicts(c.id))) n += v.stage == "evaluate";
    return n;
  };
  ASSERT_TRUE(eventually([&] { return evaluated() >= 2; }, 2min));
  ASSERT_LT(evaluated(), 10) << "the experiment finished before the daemon could be killed";
  ::kill(daemon_->pid(), SIGKILL);
  daemon_->wait();
  daemon_.reset();

  start_nodes_daemon();
  EXPECT_TRUE(eventually(
      [&] {
        return nodes_joined({"a", "b"});
      },
      60s))
      << "the nodes did not rejoin the restarted daemon";
  wait_finished(*db, 1);
  expect_complete(*db, 1, 10);
  for (const auto& [id, list] : devices(*db, 1))
    EXPECT_EQ(list.size(), 1u) << "candidate " << id << " evaluated " << list.size() << " times";
  bool resumed = false;
  for (const auto& e : must(db->history(1))) resumed = resumed || e.kind == "resumed";
  EXPECT_TRUE(resumed);
}

}  // namespace
}  // namespace kforge::test
