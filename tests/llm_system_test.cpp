// kforge run with LLMs, end to end on the CPU backend: the proposer and the verifier are models
// behind the loopback fake provider (over TLS, in the OpenAI and Anthropic wire formats), which
// opens with a storm of 429s and a stream cut short. Nothing is lost; the experiment replays
// offline to the same candidates; `kforge report` shows the verifier against the hardware and the
// cost per correct kernel; an offline run that needs a reply it does not have fails clearly.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>
#include <vector>

#include "archive/archive.hpp"
#include "evaluation/process.hpp"
#include "tests/llm/fake_provider.hpp"
#include "tests/test_support.hpp"

namespace kforge::test {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

std::string file_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string kernel_reply(const std::string& name, const std::string& source) {
  return "Name: " + name + "\nRationale: a scripted kernel for the end-to-end test.\n\n```cpp\n" +
         source + "```\n";
}

/// The fake models: the proposer answers by the prompt's mode, the verifier by a marker.
std::string scripted_reply(const ProviderRequest& r, const std::string& good) {
  if (r.system.find("You review GPU kernels") != std::string::npos) {
    if (r.user.find("kforge-test: flawed") != std::string::npos)
      return R"({"verdict": "reject", "reasons": ["the reduction looks unsafe"]})";
    return "```json\n{\"verdict\": \"accept\", \"reasons\": []}\n```";
  }
  if (r.user.find("Translate this PyTorch reference") != std::string::npos)
    return kernel_reply("f32_cpu_rows", good);
  // Each kernel differs from the others in its code (a constant of its own), not only in a
  // comment: the novelty filter rejects a kernel that repeats one its proposal could see.
  static std::atomic<int> variant{0};
  const std::string own =
      "static const int kforge_test_variant_" + std::to_string(variant++) + " = 1;\n";
  if (r.user.find("failed at the") != std::string::npos)
    return kernel_reply("f32_cpu_rows_fixed", good + own);
  // Optimise: a broken kernel (a fix follows), a correct one the verifier distrusts, the first
  // kernel again only re-spaced and re-commented (the novelty filter's), a plain one.
  static std::atomic<int> optimised{0};
  switch (optimised++ % 4) {
    case 0:
      return kernel_reply("f32_cpu_rows_broken", good + "this does not compile;\n");
    case 1:
      return kernel_reply("f32_cpu_rows_flagged", good + own + "// kforge-test: flawed\n");
    case 2:
      return kernel_reply("f32_cpu_rows_respaced", "// the same again\n\n" + good + "\n");
    default:
      return kernel_reply("f32_cpu_rows_v", good + own);
  }
}

/// The proposer of the experiments here: "fake-gpt", an OpenAI-format model of the fake provider.
std::string llm_proposer(const FakeProvider& fake, const std::string& more = "") {
  return R"({"kind": "llm", "name": "fake-gpt", "provider": "openai", "base_url": ")" +
         fake.base_url("openai") +
         R"(", "model": "gpt-test", "api_key_env": "KFORGE_FAKE_KEY", "ca_file": ")" +
         fake.ca_file() + R"(", "input_per_mtok": 2, "output_per_mtok": 8)" + more + "}";
}

class LlmSystemTest : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = fresh_test_dir("llm_system_test");
  }
  void TearDown() override { fs::remove_all(dir_); }

  /// `advice`: the proposer also advises on every correct kernel's profile.
  std::string write_config(const FakeProvider& fake, int seed, double money_usd = 5,
                           bool advice = false) {
    auto path = (dir_ / ("llm-" + std::to_string(seed) + ".json")).string();
    std::ofstream(path) << R"({"name": "llm-system-test", "seed": )" << seed << R"(,
      "tasks": [")" << source_dir()
                        << R"(/tasks/softmax"], "backends": ["cpu"],
      "config_set": "single",
      "proposers": [)" << llm_proposer(fake, R"(, "max_concurrency": 2)")
                        << R"(],
      "verifiers": {"llm": [{"name": "fake-claude", "provider": "anthropic",
                     "base_url": ")"
                        << fake.base_url("anthropic") << R"(", "model": "claude-test",
                     "api_key_env": "KFORGE_FAKE_KEY", "ca_file": ")"
                        << fake.ca_file() << R"(",
                     "input_per_mtok": 3, "output_per_mtok": 15}],
                    "checks": ["memory_safety", "numerics"], "audit_fraction": 1.0},
      "budget": {"candidates_per_target": 8, "money_usd": )"
                        << money_usd << R"(},
      "evaluation": {"seeds": 1, "timing_seconds": 0.05},
      "search": {"pipeline_depth": 2, "proposals_in_flight": 2, "fix_probability": 1.0)"
                        << (advice ? R"(, "profile_advice": {"model": "fake-gpt"})" : "") << "}}";
    return path;
  }

  /// The LLM alone, no verifier, every proposal optimises; strategies are written every 3
  /// candidates of the target, and the LLM advises on every correct kernel's profile.
  std::string write_meta_config(const FakeProvider& fake, int seed) {
    auto path = (dir_ / ("meta-" + std::to_string(seed) + ".json")).string();
    std::ofstream(path) << R"({"name": "meta-generation-test", "seed": )" << seed << R"(,
      "tasks": [")" << source_dir()
                        << R"(/tasks/softmax"], "backends": ["cpu"], "config_set": "single",
      "proposers": [)" << llm_proposer(fake)
                        << R"(],
      "budget": {"candidates_per_target": 9},
      "evaluation": {"seeds": 1, "timing_seconds": 0.05},
      "search": {"pipeline_depth": 2, "fix_probability": 0,
                 "meta_generation": {"every": 3, "count": 2},
                 "profile_advice": {"model": "fake-gpt", "count": 2}}})";
    return path;
  }

  evaluation::RunResult kforge(std::vector<std::string> args) {
    evaluation::SpawnOptions o;
    o.argv = {KFORGE_CLI_PATH};
    o.argv.insert(o.argv.end(), args.begin(), args.end());
    o.set_env = {{"KFORGE_CACHE", cache_dir()}, {"KFORGE_FAKE_KEY", "sk-fake-test"}};
    o.isolate_network = false;
    return evaluation::run(o, 10min);
  }

  std::unique_ptr<archive::Archive> open() {
    auto a = archive::Archive::open((dir_ / "archive.db").string());
    EXPECT_TRUE(a) << a.error;
    return a ? std::move(*a) : nullptr;
  }

  /// What a replay must reproduce: every candidate's proposal and every stage's verdict.
  static std::vector<std::string> proposals(archive::Archive& a, int64_t experiment) {
    std::vector<std::string> out;
    for (const auto& c : test::must(a.candidates(experiment))) {
      std::string line =
          std::to_string(c.sequence) + " " + c.proposer + " " + c.strategy + " " + c.source_hash;
      for (const auto& v : test::must(a.verdicts(c.id))) line += " | " + v.stage + ":" + v.verdict;
      out.push_back(line);
    }
    return out;
  }

  fs::path dir_;
};

TEST_F(LlmSystemTest, AnLlmExperimentSurvivesAStormAndReplaysOffline) {
  const std::string good = file_text(source_dir() + "/tasks/softmax/kernels/forward_cpu.cpp");
  ASSERT_FALSE(good.empty());
  const std::string db = (dir_ / "archive.db").string();
  std::string config;
  size_t served = 0;
  {
    FakeProvider fake(true);
    fake.require_key("sk-fake-test");
    for (int i = 0; i < 4; ++i) fake.push(ProviderStep::rate_limited(1));  // a 429 storm
    fake.push(ProviderStep::truncated_stream());
    std::atomic<int> proposing{0}, most{0};
    fake.set_responder([&](const ProviderRequest& r) {
      if (r.system.find("You review GPU kernels") != std::string::npos)
        return scripted_reply(r, good);
      // Proposals take a while, as real ones do: two in flight overlap here.
      int now = ++proposing;
      for (int m = most; now > m && !most.compare_exchange_weak(m, now);) {
      }
      std::this_thread::sleep_for(300ms);
      --proposing;
      return scripted_reply(r, good);
    });
    config = write_config(fake, 11);
    auto first = kforge({"run", config, "--archive", db});
    ASSERT_EQ(first.exit_code, 0) << first.output;
    served = fake.request_count();
    EXPECT_EQ(most, 2);  // search.proposals_in_flight
    EXPECT_NE(first.output.find("fake-gpt"), std::string::npos) << first.output;
  }
  auto a = open();
  ASSERT_TRUE(a);
  auto candidates = test::must(a->candidates(1));
  ASSERT_EQ(candidates.size(), 8u);
  // Nothing lost: every candidate has one final verdict; every call is in the ledger, and every
  // reply that came back is in the cache.
  int correct = 0, fixes = 0, compile_failures = 0, repeated = 0;
  for (const auto& c : candidates) {
    int finals = 0;
    for (const auto& v : test::must(a->verdicts(c.id))) {
      finals += v.stage == "evaluate" || v.verdict == "rejected";
      correct += v.stage == "evaluate" && v.verdict == "correct";
      compile_failures += v.stage == "compile" && v.verdict == "rejected";
      repeated += v.kind == "repeated_kernel";
    }
    EXPECT_EQ(finals, 1) << "candidate " << c.id;
    fixes += c.decision.find("\"mode\":\"fix\"") != std::string::npos;
  }
  EXPECT_GE(correct, 3);
  EXPECT_GE(compile_failures, 1);
  EXPECT_GE(fixes, 1);     // a failed compile was repaired by a fix proposal
  EXPECT_GE(repeated, 1);  // the re-spaced first kernel was not compiled again
  auto calls = test::must(a->llm_calls(1));
  int64_t retries = 0;
  for (const auto& row : calls) {
    const auto& c = row.call;
    retries += c.attempts - 1;
    if (c.ok) {
      EXPECT_TRUE(test::must(a->llm_reply(c.key))) << "reply " << c.key << " not cached";
      EXPECT_GT(c.cost_usd, 0);
    }
  }
  // The four 429s and the cut stream were retried inside the calls they hit.
  EXPECT_EQ(retries, 5);
  EXPECT_EQ(static_cast<size_t>(retries) + calls.size(), served);
  EXPECT_FALSE(test::must(a->llm_verdicts(1)).empty());

  // Offline, the same configuration replays the first run's decisions from the cache alone.
  auto second = kforge({"run", config, "--archive", db, "--offline"});
  ASSERT_EQ(second.exit_code, 0) << second.output;
  EXPECT_NE(second.output.find("replaying the 8 recorded decisions of experiment 1"),
            std::string::npos)
      << second.output;
  a = open();
  EXPECT_EQ(proposals(*a, 2), proposals(*a, 1));
  for (const auto& row : test::must(a->llm_calls(2)))
    EXPECT_TRUE(row.call.cached) << row.call.role << " " << row.call.error;
  double replay_cost = 0;
  for (const auto& u : test::must(a->llm_usage(2))) replay_cost += u.cost_usd;
  EXPECT_EQ(replay_cost, 0);  // a replay costs nothing

  auto report = kforge({"report", "1", "--archive", db});
  ASSERT_EQ(report.exit_code, 0) << report.output;
  for (const char* expected : {"fake-gpt", "fake-claude", "cost per correct kernel $", "precision",
                               "all verifiers together", "optimisation strategy", "of bound"})
    EXPECT_NE(report.output.find(expected), std::string::npos) << expected << "\n" << report.output;
  auto json_report = kforge({"report", "1", "--archive", db, "--json"});
  auto doc = json::parse(json_report.output);
  ASSERT_TRUE(doc.value) << json_report.output;
  const auto& together = (*doc.value)["verifiers"]["together"];
  // The flagged kernel is correct: the verifier's reject is a false positive (run as an audit).
  EXPECT_GE(together["false_positive"].as_int(), 1) << json_report.output;
  EXPECT_GT((*doc.value)["cost_per_correct_usd"].as_number(), 0);
  // Each strategy the LLM was asked to follow, with its record: together they account for every
  // optimise proposal; the translations, asked for none, are listed by what the proposer says it
  // followed (source "proposer"), so that the list is never empty where proposals ran.
  const auto& strategies = (*doc.value)["strategies"].as_array();
  ASSERT_FALSE(strategies.empty()) << json_report.output;
  int64_t tried = 0, optimised = 0, own = 0;
  for (const auto& s : strategies) {
    EXPECT_EQ(s["target"].as_string(), "softmax/forward/cpu") << s.dump();  // per target
    EXPECT_GE(s["tried"].as_int(), 1) << s.dump();
    EXPECT_LE(s["correct"].as_int(), s["tried"].as_int()) << s.dump();
    (s["source"].as_string() == "proposer" ? own : tried) += s["tried"].as_int();
  }
  for (const auto& c : candidates)
    optimised += c.decision.find("\"mode\":\"optimise\"") != std::string::npos;
  EXPECT_EQ(tried, optimised);
  EXPECT_GE(own, 1) << json_report.output;

  // Another seed needs replies nobody recorded: offline, that fails clearly, calling no one.
  auto other = write_config(FakeProvider(true), 12);
  auto miss = kforge({"run", other, "--archive", db, "--offline"});
  EXPECT_EQ(miss.exit_code, 2) << miss.output;
  EXPECT_NE(miss.output.find("offline: no cached reply"), std::string::npos) << miss.output;
}

TEST_F(LlmSystemTest, MetaGenerationShowsTheSearchAndItsStrategiesReachTheProposals) {
  const std::string good = file_text(source_dir() + "/tasks/softmax/kernels/forward_cpu.cpp");
  const std::string db = (dir_ / "archive.db").string();
  std::mutex seen;
  std::vector<std::string> meta_prompts, optimise_prompts, advice_prompts;
  std::string config;
  {
    FakeProvider fake(true);
    fake.require_key("sk-fake-test");
    std::atomic<int> round{0}, variant{0};
    fake.set_responder([&](const ProviderRequest& r) {
      std::lock_guard<std::mutex> lock(seen);
      if (r.system.find("directs a search") != std::string::npos) {
        meta_prompts.push_back(r.user);
        const auto k = std::to_string(++round);
        return "Here they are:\n- keep each row in registers (round " + k +
               ")\n* unroll the column loop by four (round " + k + ")\n";
      }
      if (r.system.find("performance engineer") != std::string::npos) {
        advice_prompts.push_back(r.user);
        return std::string("- keep each row in registers\n- vectorise the loads\n");
      }
      if (r.user.find("Translate this PyTorch reference") != std::string::npos)
        return kernel_reply("f32_cpu_rows", good);
      optimise_prompts.push_back(r.user);
      return kernel_reply("f32_cpu_rows_v", good + "static const int kforge_test_variant_" +
                                                std::to_string(variant++) + " = 1;\n");
    });
    config = write_meta_config(fake, 21);
    auto run = kforge({"run", config, "--archive", db});
    ASSERT_EQ(run.exit_code, 0) << run.output;
  }
  // The prompt shows the best kernels with their times per config and profiles, and every
  // strategy the search can ask for with its record.
  ASSERT_GE(meta_prompts.size(), 2u);
  const auto& first = meta_prompts.front();
  for (const char* expected :
       {"least to most fast", "Times:\n- ", "ms (eager ", "Profile: largest config",
        "PYBIND11_MODULE", "[seed]: tried 1, correct 1"})
    EXPECT_NE(first.find(expected), std::string::npos) << expected << "\n" << first;
  // Every correct kernel's profile was read by the LLM (its times, the whole profile with the
  // kernel trace, the source), and what it recommends is in the profiles the rounds show.
  ASSERT_FALSE(advice_prompts.empty());
  for (const char* expected : {"Its time per config:\n- ", "Its profile (JSON)", "\"trace\"",
                               "PYBIND11_MODULE", "at most 2 recommendations"})
    EXPECT_NE(advice_prompts.front().find(expected), std::string::npos) << expected << "\n"
                                                                        << advice_prompts.front();
  EXPECT_NE(first.find("Recommendations (fake-gpt):\n- keep each row in registers"),
            std::string::npos)
      << first;
  // The second round sees the first round's strategies among those the search has.
  EXPECT_NE(meta_prompts[1].find("keep each row in registers (round 1) [fake-gpt]: tried"),
            std::string::npos)
      << meta_prompts[1];

  auto a = open();
  ASSERT_TRUE(a);
  auto written = test::must(a->strategies(1));
  ASSERT_EQ(written.size(), 2 * meta_prompts.size());
  EXPECT_EQ(written[0].text, "keep each row in registers (round 1)");
  EXPECT_EQ(written[1].text, "unroll the column loop by four (round 1)");
  for (const auto& w : written) {
    EXPECT_EQ(w.source, "fake-gpt");
    EXPECT_EQ(w.serves, "llm");
  }
  // The proposals that came after asked for them: the prompt names the strategy, the decision
  // records it.
  int asked = 0;
  for (const auto& p : optimise_prompts)
    asked += p.find("Strategy for this attempt: keep each row in registers (round 1)") !=
             std::string::npos;
  EXPECT_GE(asked, 1);
  int recorded = 0;
  for (const auto& c : test::must(a->candidates(1)))
    recorded += c.decision.find("(round 1)") != std::string::npos;
  EXPECT_GE(recorded, 2);
  // The calls are in the ledger as meta-generation's and the profiles' advice.
  int meta_calls = 0, advice_calls = 0;
  for (const auto& row : test::must(a->llm_calls(1))) {
    meta_calls += row.call.role == "meta";
    advice_calls += row.call.role == "profile";
  }
  EXPECT_EQ(static_cast<size_t>(meta_calls), meta_prompts.size());
  EXPECT_EQ(static_cast<size_t>(advice_calls), advice_prompts.size());
  // The advice is kept with the profile, the later proposals' prompts show the parent's, and
  // `kforge show` prints it.
  int64_t advised = 0;
  for (const auto& c : test::must(a->candidates(1)))
    if (auto profile = test::must(a->profile(c.id)); profile && !advised) {
      auto doc = json::parse(*profile);
      ASSERT_TRUE(doc.value) << *profile;
      const auto& advice = (*doc.value)["advice"];
      EXPECT_EQ(advice["model"].as_string(), "fake-gpt") << *profile;
      EXPECT_EQ(advice["recommendations"].as_array().size(), 2u) << *profile;
      advised = c.id;
    }
  ASSERT_NE(advised, 0);
  int shown_advice = 0;
  for (const auto& p : optimise_prompts)
    shown_advice += p.find("Recommendations (fake-gpt):") != std::string::npos;
  EXPECT_GE(shown_advice, 1);
  auto shown = kforge({"show", std::to_string(advised), "--archive", db});
  EXPECT_NE(shown.output.find("recommendations (fake-gpt):\n  - keep each row in registers"),
            std::string::npos)
      << shown.output;

  // Offline, the run replays to the same candidates, and keeps where its strategies came from.
  auto replay = kforge({"run", config, "--archive", db, "--offline"});
  ASSERT_EQ(replay.exit_code, 0) << replay.output;
  a = open();
  EXPECT_EQ(proposals(*a, 2), proposals(*a, 1));
  auto replayed = test::must(a->strategies(2));
  ASSERT_EQ(replayed.size(), written.size());
  for (size_t i = 0; i < written.size(); ++i) {
    EXPECT_EQ(replayed[i].text, written[i].text);
    EXPECT_EQ(replayed[i].source, written[i].source);
  }
  auto report = kforge({"report", "2", "--archive", db});
  ASSERT_EQ(report.exit_code, 0) << report.output;
  // Its strategies table names the LLM that wrote each.
  std::istringstream lines(report.output);
  std::string line;
  bool listed = false;
  while (std::getline(lines, line))
    listed |= line.find("fake-gpt") != std::string::npos &&
              line.find("keep each row in registers (round 1)") != std::string::npos;
  EXPECT_TRUE(listed) << report.output;
}

// search.translate_with_builtin on a task no template covers (the issue's `x * sigmoid(x) +
// residual`): the generator writes the first kernel, and the LLM's first prompt optimises it (the
// generated source is its parent) instead of translating the PyTorch code. The ensemble all but
// never picks the built-in proposer by weight: without the setting the LLM would translate.
TEST_F(LlmSystemTest, TheGeneratedKernelIsTheLlmsStartingPoint) {
  const fs::path task = dir_ / "swish_residual";
  fs::create_directories(task);
  std::ofstream(task / "func_forward.py")
      << "import torch\nimport torch.nn as nn\n\n\n"
         "def forward_fn(x: torch.Tensor, residual: torch.Tensor) -> torch.Tensor:\n"
         "    return x * torch.sigmoid(x) + residual\n\n\n"
         "class Model(nn.Module):\n    def __init__(self):\n        super().__init__()\n\n"
         "    def forward(self, x, residual, fn=forward_fn):\n        return fn(x, residual)\n\n\n"
         "def get_inputs(rows: int = 64, cols: int = 300):\n"
         "    return [torch.randn(rows, cols), torch.randn(rows, cols)]\n\n\n"
         "input_names = [\"x\", \"residual\"]\n";
  std::ofstream(task / "config_forward.json")
      << R"({"single_input_configs": [{}], "single_init_configs": [{}], )"
      << R"("single_shared_configs": [{}]})";
  FakeProvider fake(true);
  fake.require_key("sk-fake-test");
  std::mutex mutex;
  std::vector<std::string> prompts;
  fake.set_responder([&](const ProviderRequest& r) {
    std::lock_guard<std::mutex> lock(mutex);
    prompts.push_back(r.user);
    // As a model would: the parent's code from the prompt, changed a little (a constant of its
    // own, so that the novelty filter takes it).
    const auto marker = r.user.find("kforge's kernel generator");
    if (marker == std::string::npos) return kernel_reply("no_parent", "int not_a_kernel = 1;\n");
    const auto open = r.user.find('\n', r.user.rfind("```", marker)) + 1;
    const auto close = r.user.find("```", marker);
    return kernel_reply("swish_from_generated", r.user.substr(open, close - open) +
                                                    "static const int kforge_llm_edit_" +
                                                    std::to_string(prompts.size()) + " = 1;\n");
  });
  auto path = (dir_ / "start.json").string();
  std::ofstream(path) << R"({"name": "start-from-generated", "seed": 4,
      "tasks": [")" << task.string()
                      << R"("], "backends": ["cpu"], "config_set": "single",
      "proposers": [)" << llm_proposer(fake, R"(, "weight": 1)")
                      << R"(, {"kind": "builtin", "weight": 0.0001}],
      "ensemble": {"policy": "fixed"},
      "budget": {"candidates_per_target": 4},
      "evaluation": {"seeds": 1, "timing_seconds": 0.05},
      "search": {"pipeline_depth": 1, "fix_probability": 0, "translate_with_builtin": true}})";
  auto run = kforge({"run", path, "--archive", (dir_ / "archive.db").string()});
  ASSERT_EQ(run.exit_code, 0) << run.output;
  auto a = open();
  const auto candidates = test::must(a->candidates(1));
  ASSERT_FALSE(candidates.empty());
  EXPECT_EQ(candidates.front().proposer, "builtin") << candidates.front().strategy;
  EXPECT_NE(candidates.front().source.find("kforge's kernel generator"), std::string::npos);
  bool llm_proposed = false;
  for (const auto& c : candidates)
    if (c.proposer == "fake-gpt") {
      llm_proposed = true;
      EXPECT_NE(c.parent_id, 0) << "an LLM kernel of this experiment has a parent";
    }
  EXPECT_TRUE(llm_proposed) << run.output;
  std::lock_guard<std::mutex> lock(mutex);
  ASSERT_FALSE(prompts.empty());
  for (const auto& prompt : prompts) {
    EXPECT_EQ(prompt.find("Translate this PyTorch reference"), std::string::npos) << prompt;
    EXPECT_NE(prompt.find("kforge's kernel generator"), std::string::npos) << prompt;
  }
}

TEST_F(LlmSystemTest, TheMoneyBudgetStopsProposing) {
  const std::string good = file_text(source_dir() + "/tasks/softmax/kernels/forward_cpu.cpp");
  FakeProvider fake(true);
  fake.set_responder([&](const ProviderRequest& r) { return scripted_reply(r, good); });
  // One proposal costs more than this: nothing new is proposed after the first ones come back
  // (the two already in flight finish).
  auto config = write_config(fake, 13, 0.001, true);
  auto run = kforge({"run", config, "--archive", (dir_ / "archive.db").string()});
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_NE(run.output.find("budget spent: money_usd"), std::string::npos) << run.output;
  auto a = open();
  EXPECT_LE(test::must(a->candidates(1)).size(), 2u);  // of a budget of 8
  double spent = 0;
  for (const auto& u : test::must(a->llm_usage(1))) spent += u.cost_usd;
  EXPECT_GE(spent, 0.001);
  // Profiles that come after the money is spent get no advice: no proposal would read it.
  for (const auto& row : test::must(a->llm_calls(1))) EXPECT_NE(row.call.role, "profile");
}

// The issue's ensemble in small: one model whose every call the service refuses (gpt-5 without
// max_completion_tokens once, here a model the service does not know: 404 model_not_found,
// OpenAI's documented body) and one that works. The refused model is set aside for the target
// after two tries, the log says why, and the target gets its candidates from the other.
TEST_F(LlmSystemTest, AModelThatFailsEveryCallIsSetAsideAndTheOthersFinishTheTarget) {
  const std::string good = file_text(source_dir() + "/tasks/softmax/kernels/forward_cpu.cpp");
  FakeProvider fake(true), refusing(true);
  fake.set_responder([&](const ProviderRequest& r) { return scripted_reply(r, good); });
  for (int i = 0; i < 20; ++i) {
    ProviderStep no_model;
    no_model.action = ProviderStep::Action::status;
    no_model.status = 404;
    no_model.raw_body =
        R"({"error": {"message": "The model `gpt-9` does not exist or you do not have access to it.", "type": "invalid_request_error", "param": null, "code": "model_not_found"}})";
    refusing.push(no_model);
  }
  auto path = (dir_ / "ensemble.json").string();
  std::ofstream(path) << R"({"name": "ensemble-test", "seed": 5,
      "tasks": [")" << source_dir()
                      << R"(/tasks/softmax"], "backends": ["cpu"], "config_set": "single",
      "proposers": [{"kind": "llm", "name": "gpt-9", "provider": "openai", "base_url": ")"
                      << refusing.base_url("openai")
                      << R"(", "model": "gpt-9", "api_key_env": "KFORGE_FAKE_KEY", "ca_file": ")"
                      << refusing.ca_file()
                      << R"(", "input_per_mtok": 2, "output_per_mtok": 8}, )" << llm_proposer(fake)
                      << R"(],
      "budget": {"candidates_per_target": 3},
      "evaluation": {"seeds": 1, "timing_seconds": 0.05},
      "search": {"pipeline_depth": 2, "proposals_in_flight": 2, "fix_probability": 0}})";
  auto run = kforge({"run", path, "--archive", (dir_ / "archive.db").string()});
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_NE(run.output.find("gpt-9 is set aside for"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("model_not_found"), std::string::npos) << run.output;
  EXPECT_EQ(run.output.find("abandoned"), std::string::npos) << run.output;
  auto a = open();
  const auto candidates = test::must(a->candidates(1));
  EXPECT_EQ(candidates.size(), 3u);
  for (const auto& c : candidates) EXPECT_EQ(c.proposer, "fake-gpt");
  EXPECT_LE(refusing.request_count(), 3u) << "two tries, and at most one more in flight";
  // The report says which model was set aside, for which target and why.
  auto report = kforge({"report", "1", "--archive", (dir_ / "archive.db").string()});
  ASSERT_EQ(report.exit_code, 0) << report.output;
  EXPECT_NE(report.output.find("gpt-9 was set aside for softmax/forward/cpu: bad_request: gpt-9 "
                               "failed 2 times in a row"),
            std::string::npos)
      << report.output;
  EXPECT_NE(report.output.find("model_not_found"), std::string::npos) << report.output;
}

// The issue's ensemble as the services would answer it: gpt-5 with no reasoning_effort and o3
// (OpenAI reasoning models: max_completion_tokens, no sampling settings, or a 400), Gemini 2.5
// Flash whose first call meets the free tier's per-minute quota (429 RESOURCE_EXHAUSTED with
// "check your plan and billing details" and RetryInfo 2s), and a Claude model with a temperature.
// Prices come from the bundled table. Every model proposes, none is set aside or switched off,
// the Gemini call waits what RetryInfo says and succeeds, and each model's money is its tokens at
// its listed price.
TEST_F(LlmSystemTest, AFourModelEnsembleWorksAgainstTheServicesAsDocumented) {
  const std::string good = file_text(source_dir() + "/tasks/softmax/kernels/forward_cpu.cpp");
  FakeProvider gpt5(true), o3(true), gemini(true), claude(true);
  for (auto* f : {&gpt5, &o3, &gemini, &claude}) {
    f->require_key("sk-fake-test");
    f->set_responder([&](const ProviderRequest& r) { return scripted_reply(r, good); });
  }
  gemini.push(ProviderStep::gemini_quota(false, "2s"));
  auto model = [](const FakeProvider& f, const std::string& name, const std::string& provider,
                  const std::string& more) {
    return R"({"kind": "llm", "name": ")" + name + R"(", "provider": ")" + provider +
           R"(", "base_url": ")" + f.base_url(provider) + R"(", "model": ")" + name +
           R"(", "api_key_env": "KFORGE_FAKE_KEY", "ca_file": ")" + f.ca_file() + "\"" + more +
           "}";
  };
  auto path = (dir_ / "four.json").string();
  std::ofstream(path) << R"({"name": "four-models", "seed": 3,
      "tasks": [")" << source_dir()
                      << R"(/tasks/softmax"], "backends": ["cpu"], "config_set": "single",
      "proposers": [)"
                      << model(gpt5, "gpt-5", "openai", "") << ", "
                      << model(o3, "o3", "openai", R"(, "reasoning_effort": "high")") << ", "
                      << model(gemini, "gemini-2.5-flash", "gemini", "") << ", "
                      << model(claude, "claude-sonnet-4-5", "anthropic",
                               R"(, "temperature": 0.7)")
                      << R"(],
      "budget": {"candidates_per_target": 8},
      "evaluation": {"seeds": 1, "timing_seconds": 0.05},
      "search": {"pipeline_depth": 2, "proposals_in_flight": 2, "fix_probability": 0}})";
  const auto db = (dir_ / "archive.db").string();
  auto run = kforge({"run", path, "--archive", db});
  ASSERT_EQ(run.exit_code, 0) << run.output;
  for (const char* setback : {"stops proposing", "is set aside for", "abandoned", "cannot write"})
    EXPECT_EQ(run.output.find(setback), std::string::npos) << setback << "\n" << run.output;
  auto a = open();
  const auto candidates = test::must(a->candidates(1));
  EXPECT_EQ(candidates.size(), 8u);
  std::map<std::string, int> by_proposer;
  for (const auto& c : candidates) ++by_proposer[c.proposer];
  for (const char* name : {"gpt-5", "o3", "gemini-2.5-flash", "claude-sonnet-4-5"})
    EXPECT_GE(by_proposer[name], 1) << name << " never proposed";
  // Gemini's first request met the quota; the call waited and its second attempt succeeded.
  bool waited = false;
  for (const auto& row : test::must(a->llm_calls(1)))
    if (row.call.model_name == "gemini-2.5-flash" && row.call.attempts == 2 && row.call.ok)
      waited = row.call.seconds >= 2.0;
  EXPECT_TRUE(waited) << "no Gemini call waited its RetryInfo";
  // Money: each model's tokens at the bundled table's price (gpt-5 $1.25/$10, o3 $2/$8, Gemini
  // 2.5 Flash $0.30/$2.50, Claude Sonnet 4.5 $3/$15 per million).
  const std::map<std::string, std::pair<double, double>> price = {
      {"gpt-5", {1.25, 10}}, {"o3", {2, 8}}, {"gemini-2.5-flash", {0.3, 2.5}},
      {"claude-sonnet-4-5", {3, 15}}};
  for (const auto& u : test::must(a->llm_usage(1))) {
    ASSERT_TRUE(price.count(u.model_name)) << u.model_name;
    const auto [in, out] = price.at(u.model_name);
    EXPECT_GT(u.cost_usd, 0) << u.model_name;
    EXPECT_NEAR(u.cost_usd, (u.input_tokens * in + u.output_tokens * out) / 1e6, 1e-9)
        << u.model_name;
  }
}

// The confirmation of a backward best, on a task in robust-kbench's shape (LayerNorm whose
// backward takes grad_output, the forward's arguments and normalized_shape, and returns dx,
// dweight, dbias): the LLM proposes backward kernels, the best two are timed again once the search
// is over, with the target's direction in the request, and the report says confirmed.
TEST_F(LlmSystemTest, ABackwardBestIsConfirmedOnARobustKbenchTask) {
  const std::string task = source_dir() + "/tests/tasks/rkb_layernorm";
  const std::string backward = file_text(task + "/kernels/backward_cpu.cpp");
  FakeProvider fake(true);
  fake.set_responder([&](const ProviderRequest& r) {
    // A constant of its own per kernel: the novelty filter takes no kernel twice.
    static std::atomic<int> variant{0};
    EXPECT_NE(r.user.find("backward"), std::string::npos) << r.user.substr(0, 2000);
    return kernel_reply(
        "layernorm_backward_rows",
        backward + "static const int kforge_test_variant_" + std::to_string(variant++) + " = 1;\n");
  });
  const auto config = (dir_ / "backward.json").string();
  std::ofstream(config) << R"({"name": "backward-confirmation", "seed": 3, "tasks": [")" << task
                        << R"("], "directions": ["backward"], "backends": ["cpu"],
      "config_set": "single",
      "proposers": [)" << llm_proposer(fake)
                        << R"(],
      "budget": {"candidates_per_target": 3},
      "evaluation": {"seeds": 1, "timing_seconds": 0.05},
      "search": {"pipeline_depth": 2, "fix_probability": 0}})";
  auto run = kforge({"run", config, "--archive", (dir_ / "archive.db").string()});
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_NE(run.output.find("confirmed"), std::string::npos) << run.output;

  auto a = open();
  ASSERT_TRUE(a);
  const auto confirmations = test::must(a->confirmations(1));
  ASSERT_EQ(confirmations.size(), 2u) << run.output;
  for (const auto& c : confirmations) {
    EXPECT_TRUE(c.correct) << c.reason;
    EXPECT_GT(c.speedup, 0);
    EXPECT_LE(c.speedup_low, c.speedup);
    EXPECT_GE(c.speedup_high, c.speedup);
    // Per config: the backward's times, both sides, from the confirmation's own timing.
    auto configs = json::parse(c.configs_json);
    ASSERT_TRUE(configs.value) << c.configs_json;
    ASSERT_FALSE(configs.value->as_array().empty()) << c.configs_json;
    EXPECT_GT((*configs.value)[0]["kernel_ms"].as_number(), 0) << c.configs_json;
  }
  auto report = kforge({"report", "1", "--archive", (dir_ / "archive.db").string(), "--json"});
  ASSERT_EQ(report.exit_code, 0) << report.output;
  auto doc = json::parse(report.output);
  ASSERT_TRUE(doc.value) << report.output;
  const json::Value* target = nullptr;
  for (const auto& t : (*doc.value)["targets"].as_array())
    if (t["target"].as_string() == "rkb_layernorm/backward/cpu") target = &t;
  ASSERT_TRUE(target) << report.output;
  EXPECT_TRUE((*target)["best_confirmed"].as_bool()) << target->dump();
  EXPECT_GT((*target)["best_speedup_p90"].as_number(), 0) << target->dump();
  EXPECT_EQ((*target)["results_timed"].as_string(), "confirmation") << target->dump();
}

}  // namespace
}  // namespace kforge::test
