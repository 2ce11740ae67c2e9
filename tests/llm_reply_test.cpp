// What kforge reads from an LLM's reply (a kernel with its name and rationale, a verifier's
// verdict, meta-generation's strategies, each refused with a reason when cut or garbled) and the
// prompts it writes (every mode fills every placeholder; meta-generation and profile advice show
// the kernels, their times and profiles).
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "llm/prompts.hpp"
#include "llm/reply_parser.hpp"
#include "common/json.hpp"
#include "llm/client.hpp"
#include "tests/llm/fake_provider.hpp"
#include "tests/llm/llm_test_support.hpp"
#include "tests/test_support.hpp"

namespace kforge::test {
namespace {


const char* kGoodReply = R"(Here is my kernel.

**Name:** f32 SM90 warp-rows!
Rationale: one warp per row, max and sum in registers.

```cpp
#include <torch/extension.h>
torch::Tensor forward(torch::Tensor x) { return x; }
PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("forward", &forward); }
```
)";

TEST(ReplyParsing, KernelRepliesGiveSourceNameAndRationale) {
  llm::ChatReply r;
  r.text = kGoodReply;
  auto k = llm::parse_kernel_reply(r, "forward");
  ASSERT_TRUE(k.ok) << k.reason;
  EXPECT_EQ(k.name, "f32_sm90_warp_rows");
  EXPECT_EQ(k.rationale, "one warp per row, max and sum in registers.");
  EXPECT_EQ(k.source.find("```"), std::string::npos);
  EXPECT_NE(k.source.find("m.def(\"forward\""), std::string::npos);
  EXPECT_FALSE(llm::parse_kernel_reply(r, "backward").ok);
}

TEST(ReplyParsing, TruncatedAndGarbledRepliesAreRejectedWithAReason) {
  llm::ChatReply r;
  auto reason = [&](const std::string& text, bool truncated = false) {
    r.text = text;
    r.truncated = truncated;
    auto k = llm::parse_kernel_reply(r, "forward");
    EXPECT_FALSE(k.ok);
    return k.reason;
  };
  EXPECT_EQ(reason(""), "the reply is empty");
  EXPECT_EQ(reason("I cannot help with that."), "the reply has no code block");
  EXPECT_NE(reason("```cpp\nint main() {}\n```").find("PYBIND11_MODULE"), std::string::npos);
  std::string cut = std::string(kGoodReply).substr(0, std::string(kGoodReply).size() - 5);
  EXPECT_NE(reason(cut).find("not closed"), std::string::npos);
  EXPECT_NE(reason(cut, true).find("token limit"), std::string::npos);
  // A reasoning model that thought until the limit sends no text at all, and is told so.
  r.usage.output_tokens = 32768;
  EXPECT_EQ(reason("", true),
            "the model spent its whole output limit (32768 tokens, reasoning included) before "
            "writing anything: raise max_tokens");
  EXPECT_NE(llm::parse_verifier_reply(r).reason.find("raise max_tokens"), std::string::npos);
  // Nothing crashes it.
  std::mt19937 rng(3);
  for (int i = 0; i < 2000; ++i) {
    std::string junk;
    for (int j = 0; j < 80; ++j) junk += "`{}\n:\"PYBIND11_MODULE x"[rng() % 24];
    r.text = junk;
    llm::parse_kernel_reply(r, "forward");
    llm::parse_verifier_reply(r);
  }
}

TEST(ReplyParsing, VerifierVerdicts) {
  llm::ChatReply r;
  r.text = "```json\n{\"verdict\": \"reject\", \"reasons\": [\"reads x[i+1] past the end\"]}\n```";
  auto v = llm::parse_verifier_reply(r);
  ASSERT_TRUE(v.decided);
  EXPECT_FALSE(v.accept);
  ASSERT_EQ(v.reasons.size(), 1u);
  r.text = "Looks fine. {\"verdict\":\"accept\",\"reasons\":\"nothing found\"}";
  v = llm::parse_verifier_reply(r);
  EXPECT_TRUE(v.decided && v.accept);
  r.text = "VERDICT: reject";
  v = llm::parse_verifier_reply(r);
  EXPECT_TRUE(v.decided && !v.accept);
  r.text = "{\"verdict\": \"maybe\"}";
  v = llm::parse_verifier_reply(r);
  EXPECT_FALSE(v.decided);
  EXPECT_FALSE(v.reason.empty());
}

TEST(ReplyParsing, MetaGenerationStrategies) {
  llm::ChatReply r;
  r.text =
      "Three directions:\n- **Fuse the max and sum passes**\n* keep rows in registers\n"
      "2. use float4 loads\n3) fuse the max and sum passes\n-not a list item\n- \n"
      "  10. tile the columns\n";
  auto s = llm::parse_strategies_reply(r, 10);
  ASSERT_TRUE(s.ok) << s.reason;
  EXPECT_EQ(s.strategies,
            (std::vector<std::string>{"Fuse the max and sum passes", "keep rows in registers",
                                      "use float4 loads", "fuse the max and sum passes",
                                      "tile the columns"}));
  EXPECT_EQ(llm::parse_strategies_reply(r, 2).strategies.size(), 2u);  // at most `count`
  // A reply cut at the token limit loses its last line, which may be cut.
  r.text = "- keep rows in registers\n- use float4 lo";
  r.truncated = true;
  s = llm::parse_strategies_reply(r, 4);
  EXPECT_EQ(s.strategies, std::vector<std::string>{"keep rows in registers"});
  r.text = "I would rather write a kernel.";
  r.truncated = false;
  s = llm::parse_strategies_reply(r, 4);
  EXPECT_FALSE(s.ok);
  EXPECT_NE(s.reason.find("no strategy"), std::string::npos);
  r.text = "- " + std::string(500, 'x');  // not a strategy but an essay
  EXPECT_FALSE(llm::parse_strategies_reply(r, 4).ok);
}

TEST(Prompts, MetaGenerationShowsTheKernelsTheirTimesProfilesAndRecords) {
  llm::MetaInputs in;
  in.task = {"softmax", "forward", "cuda", "def forward_fn(x): ...", "- `x`", "- c1\n"};
  in.count = 3;
  in.best = {{.sequence = 3,
              .speedup = 0.5,
              .strategy = "slow",
              .source = "SLOW_SOURCE",
              .times = "- c1: 2 ms (eager 1 ms, 0.5x)\n"},
             {.sequence = 7,
              .speedup = 1.25,
              .strategy = "fast",
              .source = "FAST_SOURCE",
              .asked = "fuse passes",
              .times = "- c1: 0.8 ms (eager 1 ms)\n",
              .profile = "12 registers; largest config 900 GB/s"}};
  in.records = {{"fuse passes", "seed", 2, 2, 1, 2.5}, {"tile it", "m1", 0, 0, 0, 0}};
  auto m = llm::meta_messages(in);
  ASSERT_TRUE(m) << m.error;
  const auto& user = (*m)[1].content;
  EXPECT_EQ(user.find("{{"), std::string::npos);
  EXPECT_LT(user.find("SLOW_SOURCE"), user.find("FAST_SOURCE"));
  for (const char* expected :
       {"Write 3 new optimisation strategies", "def forward_fn", "- c1: 0.8 ms",
        "Asked to try: fuse passes", "Profile: 12 registers", "Profile: (not profiled)",
        "- fuse passes [seed]: tried 2, correct 2, faster 1, best gain 2.5x",
        "- tile it [m1]: tried 0, correct 0, faster 0, best gain none"})
    EXPECT_NE(user.find(expected), std::string::npos) << expected << "\n" << user;
  EXPECT_NE((*m)[0].content.find("\"- \""), std::string::npos);
}

TEST(Prompts, ProfileAdviceShowsTheKernelItsTimesAndItsProfile) {
  llm::AdviceInputs in;
  in.task = {"softmax", "forward", "cuda", "def forward_fn(x): ...", "- `x`", "- c1\n"};
  in.source = "KERNEL_SOURCE";
  in.speedup = 1.5;
  in.times = "- c1: 0.8 ms (eager 1.2 ms, 1.5x)\n";
  in.profile = R"({"trace": {"candidate": {"launches": 1}}})";
  in.count = 3;
  auto m = llm::advice_messages(in);
  ASSERT_TRUE(m) << m.error;
  const auto& user = (*m)[1].content;
  EXPECT_EQ(user.find("{{"), std::string::npos);
  for (const char* expected : {"KERNEL_SOURCE", "1.5x", "- c1: 0.8 ms", "\"launches\": 1",
                               "def forward_fn", "at most 3 recommendations"})
    EXPECT_NE(user.find(expected), std::string::npos) << expected << "\n" << user;
  EXPECT_NE((*m)[0].content.find("cuda kernel"), std::string::npos) << (*m)[0].content;
}

TEST(Prompts, EveryModeFillsEveryPlaceholder) {
  auto unfilled = llm::render_prompt("a {{b}} c", {});
  EXPECT_FALSE(unfilled);
  EXPECT_NE(unfilled.error.find("{{b}}"), std::string::npos);
  EXPECT_EQ(*llm::render_prompt("a {{b}} c", {{"b", "B"}}), "a B c");
  llm::ProposalInputs in;
  in.task = {"softmax", "forward", "cuda", "def forward_fn(x): ...", "- `x`: input tensor",
             "- c1\n"};
  in.parent_source = "PARENT_SOURCE";
  in.parent_speedup = 1.25;
  in.parent_profile = "12 registers";
  in.context = {{.sequence = 3, .speedup = 0.5, .strategy = "slow", .source = "SLOW_SOURCE"},
                {.sequence = 7, .speedup = 1.25, .strategy = "fast", .source = "FAST_SOURCE"}};
  in.strategy = "vectorise loads";
  in.failed_source = "BROKEN";
  in.failure_stage = "compile";
  in.failure_log = "error: expected ';'";
  for (auto mode : {search::ProposalMode::translate, search::ProposalMode::optimise,
                    search::ProposalMode::fix}) {
    in.mode = mode;
    auto m = llm::proposal_messages(in);
    ASSERT_TRUE(m) << to_string(mode) << ": " << m.error;
    ASSERT_EQ(m->size(), 2u);
    EXPECT_NE((*m)[0].content.find("PYBIND11_MODULE"), std::string::npos);
    EXPECT_NE((*m)[1].content.find("def forward_fn"), std::string::npos);
    EXPECT_EQ((*m)[1].content.find("{{"), std::string::npos);
  }
  in.mode = search::ProposalMode::optimise;
  auto m = *llm::proposal_messages(in);
  auto slow = m[1].content.find("SLOW_SOURCE"), fast = m[1].content.find("FAST_SOURCE");
  EXPECT_LT(slow, fast);  // least to most fast
  EXPECT_NE(m[1].content.find("vectorise loads"), std::string::npos);
  EXPECT_NE(m[1].content.find("12 registers"), std::string::npos);
  in.mode = search::ProposalMode::fix;
  m = *llm::proposal_messages(in);
  EXPECT_NE(m[1].content.find("expected ';'"), std::string::npos);
  for (const auto& check : llm::verifier_checks()) {
    auto v = llm::verifier_messages(check, in.task, "CANDIDATE");
    ASSERT_TRUE(v) << v.error;
    EXPECT_NE((*v)[1].content.find("CANDIDATE"), std::string::npos);
    EXPECT_NE((*v)[0].content.find("verdict"), std::string::npos);
  }
  EXPECT_FALSE(llm::verifier_messages("style", in.task, "x"));
}

}  // namespace
}  // namespace kforge::test
