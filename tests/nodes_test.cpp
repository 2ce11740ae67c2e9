// The parts of the node protocol that need no network: the token comparison, where a node's
// evaluator goes, and a task folder's files on their way to a node and written back there.
#include <gtest/gtest.h>

#include <caf/all.hpp>
#include <caf/io/middleman.hpp>

#include <filesystem>
#include <fstream>
#include <set>

#include "actors/evaluator_pool.hpp"
#include "actors/node_evaluator.hpp"
#include "actors/node_registry.hpp"
#include "messages/errors.hpp"
#include "messages/registration.hpp"
#include "tests/test_support.hpp"

namespace kforge {
namespace {

namespace fs = std::filesystem;

TEST(Nodes, OnlyTheExactTokenIsTheDaemons) {
  EXPECT_TRUE(same_token("0123abcd", "0123abcd"));
  EXPECT_FALSE(same_token("0123abce", "0123abcd"));
  EXPECT_FALSE(same_token("0123abc", "0123abcd"));
  EXPECT_FALSE(same_token("0123abcd0", "0123abcd"));
  EXPECT_FALSE(same_token("", ""));  // a daemon without a token admits nobody
}

TEST(Nodes, AnEvaluatorJoinsThePoolOfItsKindOrIsRefusedWithTheReason) {
  std::map<std::string, evaluator_pool_actor> pools{{"cpu", {}}, {"cuda:0", {}}};
  const std::map<std::string, std::string> names{{"cuda:0", "NVIDIA H100 80GB HBM3"}};
  device_info cpu{true, "cpu", "AMD EPYC", "", "", ""};
  EXPECT_EQ(place_evaluator(cpu, pools, names, {}).first, "cpu");
  device_info h100{true, "cuda", "NVIDIA H100 80GB HBM3", "sm_90", "", ""};
  EXPECT_EQ(place_evaluator(h100, pools, names, {}).first, "cuda:0");
  device_info h200{true, "cuda", "NVIDIA H200", "sm_90", "", ""};
  auto [key, why] = place_evaluator(h200, pools, names, {});
  EXPECT_EQ(key, "");
  EXPECT_NE(why.find("no GPU named NVIDIA H200"), std::string::npos) << why;
  EXPECT_NE(why.find("cuda:0 NVIDIA H100"), std::string::npos) << why;
  EXPECT_NE(why.find("--node-gpu-pools"), std::string::npos) << why;
  device_info broken{false, "cuda", "", "", "", "no driver"};
  EXPECT_NE(place_evaluator(broken, pools, {}, {}).second.find("no driver"), std::string::npos);
  auto no_cpu = pools;
  no_cpu.erase("cpu");
  EXPECT_NE(place_evaluator(cpu, no_cpu, names, {}).second.find("takes no CPU evaluators"),
            std::string::npos);
}

// Pools for nodes' GPUs (--node-gpu-pools): the first GPU of a kind takes a free one, later GPUs
// of that kind join it, and a GPU of the daemon's own kind joins the daemon's pool.
TEST(Nodes, APoolForNodesGpusTakesOneKindOfGpu) {
  std::map<std::string, evaluator_pool_actor> pools{{"cuda:0", {}}, {"cuda:1", {}}, {"cuda:2", {}}};
  std::map<std::string, std::string> names{{"cuda:0", "NVIDIA H100 80GB HBM3"}};
  const std::set<std::string> open{"cuda:1", "cuda:2"};
  device_info h200{true, "cuda", "NVIDIA H200", "sm_90", "", ""};
  device_info a100{true, "cuda", "NVIDIA A100-SXM4-80GB", "sm_80", "", ""};
  device_info h100{true, "cuda", "NVIDIA H100 80GB HBM3", "sm_90", "", ""};
  ASSERT_EQ(place_evaluator(h200, pools, names, open).first, "cuda:1");
  names["cuda:1"] = h200.name;  // as the registry records it
  EXPECT_EQ(place_evaluator(h200, pools, names, open).first, "cuda:1");
  EXPECT_EQ(place_evaluator(h100, pools, names, open).first, "cuda:0");
  ASSERT_EQ(place_evaluator(a100, pools, names, open).first, "cuda:2");
  names["cuda:2"] = a100.name;
  device_info l4{true, "cuda", "NVIDIA L4", "sm_89", "", ""};
  EXPECT_EQ(place_evaluator(l4, pools, names, open).first, "") << "every pool has its kind";
}

TEST(Nodes, ATaskFolderTravelsAsItsFilesAndIsWrittenBackByContent) {
  const auto dir = test::fresh_test_dir("nodes_test");
  const auto task = dir / "daemon" / "softmax";
  fs::create_directories(task / "configs");
  fs::create_directories(task / "__pycache__");
  std::ofstream(task / "func_forward.py") << "def forward_fn(x):\n    return x\n";
  std::ofstream(task / "configs" / "single.json") << "{}";
  std::ofstream(task / "__pycache__" / "func_forward.cpython-311.pyc") << "bytes";
  std::ofstream(task / ".hidden") << "secret";
  auto files = read_task_files(task.string());
  ASSERT_TRUE(files) << files.error;
  EXPECT_EQ(files->size(), 2u);
  EXPECT_EQ(files->count("configs/single.json"), 1u);
  auto written = write_task_files((dir / "node").string(), "softmax", *files);
  ASSERT_TRUE(written) << written.error;
  EXPECT_EQ(fs::path(*written).filename(), "softmax");
  EXPECT_EQ(*read_task_files(*written), *files);
  // The same files land in the same folder; other content in another.
  EXPECT_EQ(*write_task_files((dir / "node").string(), "softmax", *files), *written);
  auto changed = *files;
  changed["func_forward.py"] += "# changed\n";
  EXPECT_NE(*write_task_files((dir / "node").string(), "softmax", changed), *written);
  // A name that would climb out of the folder, or an absolute one, is refused.
  for (const char* bad : {"../escape.py", "configs/../../escape.py", "/etc/passwd"}) {
    auto refused = write_task_files((dir / "node").string(), "softmax", {{bad, "x"}});
    EXPECT_FALSE(refused) << bad;
  }
  EXPECT_FALSE(write_task_files((dir / "node").string(), "..", *files));
  EXPECT_FALSE(read_task_files(task.string(), 10)) << "more than the limit";
  EXPECT_FALSE(read_task_files((dir / "missing").string()));
  fs::remove_all(dir);
}

struct Registered : caf::actor_system_config {
  Registered() { register_message_types(*this); }
};

/// A stand-in node evaluator: answers with `answer` (its device name in the result), or quits
/// without answering when `vanish` (as a node killed mid-evaluation).
node_evaluator_actor::behavior_type stand_in(node_evaluator_actor::pointer self, std::string name,
                                             std::string failure, bool vanish) {
  return {[](status_atom) { return actor_status{}; }, [](device_atom) { return device_info{}; },
          [self, name, failure, vanish](evaluate_atom,
                                        node_eval_request& r) -> caf::result<eval_result> {
            if (vanish) {
              self->quit();
              return caf::delegated<eval_result>();
            }
            eval_result out;
            out.candidate_id = r.eval.candidate_id;
            out.device = name;
            out.report.verdict = failure.empty() ? EvalVerdict::correct : EvalVerdict::error;
            out.report.failure_kind = failure;
            out.report.failure_message = failure.empty() ? "" : name + " could not export";
            return out;
          }};
}

// The pool's own promises, without a network: a member that vanishes mid-evaluation and one that
// says it cannot evaluate both leave, their candidates go to the member that works, and every
// candidate gets one answer, from it.
TEST(Nodes, APoolGivesALostCandidateToAnotherMemberAndAnswersOnce) {
  Registered config;
  caf::actor_system system{config};
  const auto dir = test::fresh_test_dir("nodes_pool_test");
  std::ofstream(dir / "func_forward.py") << "def forward_fn(x):\n    return x\n";
  auto pool = system.spawn(evaluator_pool_impl, std::string("cpu"), evaluator_actor{});
  caf::scoped_actor self{system};
  const device_info cpu{true, "cpu", "test", "", "", ""};
  auto vanishing = system.spawn(stand_in, std::string("vanishing"), std::string(), true);
  auto broken = system.spawn(stand_in, std::string("broken"), std::string(kNodeFailureKind), false);
  self->send(pool, join_atom::value, vanishing, cpu, std::string("node v evaluator cpu"));
  self->send(pool, join_atom::value, broken, cpu, std::string("node b evaluator cpu"));
  std::vector<eval_result> answers;
  for (int64_t id = 1; id <= 3; ++id) {
    eval_request r;
    r.candidate_id = id;
    r.tgt.task = "t";
    r.tgt.task_dir = dir.string();
    self->send(pool, evaluate_atom::value, r);  // the answer comes back as a message
  }
  // Both bad members took a candidate and left; the working member joins later.
  auto working = system.spawn(stand_in, std::string("working"), std::string(), false);
  std::vector<actor_status> rows{actor_status{}, actor_status{}};
  for (int i = 0; i < 100 && !rows.empty(); ++i) {
    self->request(pool, std::chrono::seconds(5), nodes_atom::value)
        .receive([&](std::vector<actor_status>& x) { rows = std::move(x); }, [](caf::error&) {});
    if (!rows.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_TRUE(rows.empty()) << "the vanished and the broken member are gone";
  self->send(pool, join_atom::value, working, cpu, std::string("node w evaluator cpu"));
  for (int i = 0; i < 3; ++i)
    self->receive([&](eval_result& e) { answers.push_back(e); },
                  caf::after(std::chrono::seconds(30)) >> [] {});
  ASSERT_EQ(answers.size(), 3u);
  std::set<int64_t> ids;
  for (const auto& a : answers) {
    EXPECT_EQ(a.device, "working") << "candidate " << a.candidate_id;
    EXPECT_EQ(a.report.verdict, EvalVerdict::correct);
    ids.insert(a.candidate_id);
  }
  EXPECT_EQ(ids.size(), 3u) << "one answer each";
  actor_status pool_status;
  self->request(pool, std::chrono::seconds(5), status_atom::value)
      .receive([&](actor_status& s) { pool_status = s; }, [](caf::error&) {});
  EXPECT_NE(pool_status.last_error.find("left"), std::string::npos) << pool_status.last_error;
  for (auto& a : {working}) self->send_exit(a, caf::exit_reason::user_shutdown);
  self->send_exit(pool, caf::exit_reason::user_shutdown);
  fs::remove_all(dir);
}

struct Networked : caf::actor_system_config {
  Networked() {
    register_message_types(*this);
    load<caf::io::middleman>();
  }
};

// A peer that learned a pool's address (a node does: its requests come from the pool) and sends it
// work or a member directly, past the registry's token, is refused: a pool serves the daemon's own
// actors only.
TEST(Nodes, APoolTakesNoWorkFromAnotherProcess) {
  Networked daemon_config, peer_config;
  caf::actor_system daemon{daemon_config}, peer{peer_config};
  auto pool = daemon.spawn(evaluator_pool_impl, std::string("cpu"), evaluator_actor{});
  auto port = daemon.middleman().publish(pool, 0, "127.0.0.1");
  ASSERT_TRUE(port) << daemon.render(port.error());
  auto remote = peer.middleman().remote_actor<evaluator_pool_actor>("127.0.0.1", *port);
  ASSERT_TRUE(remote) << peer.render(remote.error());
  caf::scoped_actor self{peer};
  eval_request r;
  r.candidate_id = 1;
  r.worker.library = "/home/user/some.so";
  bool refused = false;
  self->request(*remote, std::chrono::seconds(10), evaluate_atom::value, r)
      .receive([](eval_result&) {},
               [&](caf::error& e) {
                 refused = e.category() == error_category &&
                           e.code() == static_cast<uint8_t>(error_code::not_authorized);
               });
  EXPECT_TRUE(refused);
  // Nor does a member it offers join: the pool still has none to name.
  auto fake = peer.spawn([]() -> node_evaluator_actor::behavior_type {
    return {[](status_atom) { return actor_status{}; }, [](device_atom) { return device_info{}; },
            [](evaluate_atom, node_eval_request&) { return eval_result{}; }};
  });
  self->send(*remote, join_atom::value, fake, device_info{true, "cpu", "fake", "", "", ""},
             std::string("node fake evaluator cpu"));
  std::vector<actor_status> rows{actor_status{}};
  for (int i = 0; i < 5; ++i)  // after the join would have been handled
    self->request(*remote, std::chrono::seconds(10), nodes_atom::value)
        .receive([&](std::vector<actor_status>& x) { rows = std::move(x); }, [](caf::error&) {});
  EXPECT_TRUE(rows.empty()) << rows.size();
  self->send_exit(fake, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(pool, caf::exit_reason::user_shutdown);
}

}  // namespace
}  // namespace kforge
