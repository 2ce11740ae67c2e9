// The parts of the node protocol that need no network: the token comparison, where a node's
// evaluator goes, and a task folder's files on their way to a node and written back there.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "actors/evaluator_pool.hpp"
#include "actors/node_evaluator.hpp"
#include "actors/node_registry.hpp"
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
  EXPECT_EQ(place_evaluator(cpu, pools, names).first, "cpu");
  device_info h100{true, "cuda", "NVIDIA H100 80GB HBM3", "sm_90", "", ""};
  EXPECT_EQ(place_evaluator(h100, pools, names).first, "cuda:0");
  device_info h200{true, "cuda", "NVIDIA H200", "sm_90", "", ""};
  auto [key, why] = place_evaluator(h200, pools, names);
  EXPECT_EQ(key, "");
  EXPECT_NE(why.find("no GPU named NVIDIA H200"), std::string::npos) << why;
  EXPECT_NE(why.find("cuda:0 NVIDIA H100"), std::string::npos) << why;
  device_info broken{false, "cuda", "", "", "", "no driver"};
  EXPECT_NE(place_evaluator(broken, pools, names).second.find("no driver"), std::string::npos);
  pools.erase("cpu");
  EXPECT_NE(place_evaluator(cpu, pools, names).second.find("takes no CPU evaluators"),
            std::string::npos);
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
  EXPECT_FALSE(fs::exists(dir / "node" / "escape.py"));
  EXPECT_FALSE(write_task_files((dir / "node").string(), "..", *files));
  EXPECT_FALSE(read_task_files(task.string(), 10)) << "more than the limit";
  EXPECT_FALSE(read_task_files((dir / "missing").string()));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace kforge
