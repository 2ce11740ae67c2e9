// proposers/builtin: the embedded templates parse and render, op families are recognised from what a
// task's reference calls, and proposals follow the seed, never repeat, and mutate their parent.
#include <gtest/gtest.h>

#include <set>

#include "proposers/builtin/builtin_proposer.hpp"
#include "proposers/builtin/builtin_strategies.hpp"
#include "proposers/builtin/kernel_template.hpp"
#include "proposers/builtin/param_rule.hpp"
#include "proposers/builtin/task_family.hpp"
#include "search/population.hpp"
#include "search/strategies.hpp"

namespace kforge::builtin {
namespace {

json::Value tensor(const char* name, const char* kind, const char* dtype, std::vector<int> shape) {
  json::Value a, s;
  s.array();
  for (int d : shape) s.push(d);
  a.set("name", name).set("kind", kind).set("dtype", dtype).set("shape", s);
  return a;
}

json::Value scalar(const char* name, const char* type, json::Value value) {
  json::Value a;
  a.set("name", name).set("kind", "scalar").set("type", type).set("value", value);
  return a;
}

/// A direction document as the exporter writes it, with one config.
json::Value direction(std::vector<const char*> ops, std::vector<json::Value> args,
                      std::vector<int> output_shape) {
  json::Value config, reference, op_list, arg_list, outputs, out, shape;
  op_list.array();
  for (auto o : ops) op_list.push(o);
  reference.set("ops", op_list);
  arg_list.array();
  for (auto& a : args) arg_list.push(a);
  shape.array();
  for (int d : output_shape) shape.push(d);
  out.set("dtype", "float32").set("shape", shape);
  outputs.array();
  outputs.push(out);
  config.set("reference", reference).set("args", arg_list).set("outputs", outputs);
  json::Value doc, configs;
  configs.array();
  configs.push(config);
  doc.set("configs", configs);
  return doc;
}

json::Value softmax_task() {
  return direction({"aten::softmax"},
                   {tensor("x", "input", "float32", {4, 8}), scalar("dim", "int", -1)}, {4, 8});
}

TEST(KernelTemplates, EveryEmbeddedTemplateParsesWithValidDefaults) {
  std::set<std::string> names, families;
  const auto& all = builtin_templates();
  ASSERT_GE(all.size(), 10u) << "a template failed to parse";
  for (const auto& t : all) {
    EXPECT_TRUE(names.insert(t.name()).second) << t.name();
    families.insert(t.family() + "/" + t.backend());
    EXPECT_TRUE(t.valid(t.defaults())) << t.name();
    EXPECT_GE(t.params().size(), 2u) << t.name();
    // The name says what it is (CUTLASS style), never fast/optimized/v2.
    EXPECT_EQ(t.name().find("fast"), std::string::npos);
    EXPECT_NE(t.name().find(t.backend() == "cuda" ? "cuda" : "cpu"), std::string::npos) << t.name();
  }
  for (const char* f : {"softmax", "layernorm", "rmsnorm", "linear", "cross_entropy"})
    for (const char* b : {"cpu", "cuda"})
      EXPECT_TRUE(families.count(std::string(f) + "/" + b)) << f << " on " << b;
}

/// Why a template's text is refused ("" when it parses).
std::string refusal(const std::string& file, const std::string& text) {
  auto t = KernelTemplate::parse(file, text);
  return t ? std::string() : t.error;
}

TEST(KernelTemplates, RenderSetsTheConstantsAndNothingElse) {
  auto t = KernelTemplate::parse(
      "t.cpp",
      "// kforge:template demo_f32_cpu\n// kforge:family demo\n"
      "// kforge:backend cpu\nconstexpr int kA = 2;  // kforge:param a 1 2 4\n"
      "constexpr int64_t kB = -1;  // kforge:param b -1 3\nint body() { return kA; }\n");
  ASSERT_TRUE(t) << t.error;
  EXPECT_EQ(t->space_size(), 6u);
  auto v = t->defaults();
  EXPECT_EQ(v["a"], 2);
  EXPECT_EQ(v["b"], -1);
  v["a"] = 4;
  v["b"] = 3;
  auto out = t->render(v);
  EXPECT_NE(out.find("constexpr int kA = 4;  // kforge:param a 1 2 4"), std::string::npos) << out;
  EXPECT_NE(out.find("constexpr int64_t kB = 3;"), std::string::npos);
  EXPECT_NE(out.find("int body() { return kA; }"), std::string::npos);
  EXPECT_EQ(out.rfind("// Built-in proposer: demo_f32_cpu{a=4,b=3}", 0), 0u);
  v["a"] = 3;
  EXPECT_FALSE(t->valid(v));  // not an allowed value
}

TEST(KernelTemplates, TraitsSetMacrosAndKeepOrDropMarkedLines) {
  auto t = KernelTemplate::parse(
      "t.cpp",
      "// kforge:template demo_f32_cpu\n// kforge:family demo\n// kforge:backend cpu\n"
      "#define KFORGE_RELU 1  // kforge:trait relu 0 1\n"
      "constexpr int kA = 2;  // kforge:param a 1 2\n"
      "int f(int x,\n"
      "      int shape,  // kforge:if relu\n"
      "      int eps) { return x; }\n");
  ASSERT_TRUE(t) << t.error;
  EXPECT_TRUE(t->supports({{"relu", 0}}));
  EXPECT_FALSE(t->supports({{"relu", 2}}));
  EXPECT_FALSE(t->supports({{"gelu", 1}}));
  auto off = t->render(t->defaults(), {{"relu", 0}});
  EXPECT_NE(off.find("#define KFORGE_RELU 0  // kforge:trait relu 0 1"), std::string::npos) << off;
  EXPECT_EQ(off.find("int shape"), std::string::npos) << off;
  EXPECT_NE(off.find("demo_f32_cpu{a=2} (relu=0)"), std::string::npos) << off;
  auto on = t->render(t->defaults());  // the default keeps the line, without its marker
  EXPECT_NE(on.find("      int shape,\n"), std::string::npos) << on;
  EXPECT_EQ(on.find("kforge:if"), std::string::npos) << on;
}

TEST(KernelTemplates, MalformedTemplatesAreRefusedWithTheLine) {
  auto error = refusal("t.cu", "constexpr int kA = 5;  // kforge:param a 1 2\n");
  EXPECT_NE(error.find("t.cu:1: the default 5 of `a`"), std::string::npos) << error;
  error = refusal("t.cu", "int a;  // kforge:param a 1 2\n");
  EXPECT_NE(error.find("t.cu:1: a kforge:param line must read"), std::string::npos) << error;
  error = refusal("t.cu", "// no header\n");
  EXPECT_NE(error.find("kforge:template"), std::string::npos) << error;
  error = refusal("t.cu",
                  "// kforge:template d_f32_cpu\n// kforge:family d\n// "
                  "kforge:backend cpu\nint x;  // kforge:if relu\n");
  EXPECT_NE(error.find("t.cu:4: kforge:if names `relu`"), std::string::npos) << error;
}

/// Every combination of a template's parameters, in order.
std::vector<ParamValues> every_combination(const KernelTemplate& t) {
  std::vector<ParamValues> all(1);
  for (const auto& p : t.params()) {
    std::vector<ParamValues> more;
    for (const auto& v : all)
      for (int64_t x : p.values) {
        more.push_back(v);
        more.back()[p.name] = x;
      }
    all = std::move(more);
  }
  return all;
}

TEST(KernelTemplates, TheRulesBesideTheParametersAcceptExactlyWhatTheKernelsCanRun) {
  // The rules as the kernels' own static_asserts and resource limits state them, written out.
  auto gemm = [](ParamValues p) {
    const int64_t bm = p["bm"], bn = p["bn"], bk = p["bk"], tm = p["tm"], tn = p["tn"];
    if (bm % tm || bn % tn) return false;
    const int64_t threads = (bm / tm) * (bn / tn);
    if (threads < 32 || threads > 1024) return false;
    if ((bm * bk) % threads || (bn * bk) % threads) return false;
    if (tm * tn > 64) return false;
    return (bk * (bm + 1) + bk * (bn + 1)) * 4 <= 48 * 1024;
  };
  auto rows = [](ParamValues p) { return p["block_threads"] * p["block_elems"] <= 16384; };
  int checked = 0, refused = 0;
  for (const auto& t : builtin_templates()) {
    if (t.backend() != "cuda") continue;
    for (const auto& v : every_combination(t)) {
      bool expected = true;
      if (t.family() == "linear") expected = gemm(v);
      if (t.family() == "softmax" || t.family() == "layernorm" || t.family() == "rmsnorm")
        expected = rows(v);
      ASSERT_EQ(t.valid(v), expected) << t.key(v);
      ++checked;
      refused += !expected;
    }
  }
  EXPECT_GT(checked, 1000);
  EXPECT_GT(refused, 100);  // the rules do refuse combinations
}

TEST(KernelTemplates, ARenamedTemplateAnswersToItsEarlierName) {
  for (const auto& t : builtin_templates())
    if (t.name() == "softmax_f32_cuda_rows") {
      EXPECT_EQ(t.names(),
                (std::vector<std::string>{"softmax_f32_cuda_rows", "softmax_f32_sm90_rows"}));
      BuiltinRequest r;
      r.backend = "cuda";
      r.direction = "forward";
      r.direction_doc = softmax_task();
      r.mode = search::ProposalMode::optimise;
      r.has_parent = true;
      r.parent_strategy = "softmax_f32_sm90_rows";  // as an archive from before the rename says
      r.parent_params = KernelTemplate::to_json(t.defaults()).dump();
      auto p = propose_builtin(r);
      ASSERT_TRUE(p.ok) << p.error;
      EXPECT_TRUE(p.from_parent);
      EXPECT_EQ(p.strategy, "softmax_f32_cuda_rows");
      // What was tried under the old name is not proposed again under the new one.
      r.mode = search::ProposalMode::translate;
      r.tried = {search::proposal_key("softmax_f32_sm90_rows", r.parent_params)};
      auto next = propose_builtin(r);
      ASSERT_TRUE(next.ok) << next.error;
      EXPECT_EQ(next.strategy, "softmax_f32_cuda_rows");
      EXPECT_NE(next.params, r.parent_params);
      return;
    }
  FAIL() << "no softmax_f32_cuda_rows";
}

TEST(KernelTemplates, ARuleThatDoesNotReadOrThatTheDefaultsBreakIsRefused) {
  const std::string head =
      "// kforge:template d_f32_cpu\n// kforge:family d\n// kforge:backend cpu\n"
      "constexpr int kA = 4;  // kforge:param a 2 4 8\n"
      "constexpr int kB = 2;  // kforge:param b 1 2\n";
  EXPECT_EQ(refusal("t.cpp", head + "// kforge:require a * b <= 8\n"), "");
  auto error = refusal("t.cpp", head + "// kforge:require a * b < 8\n");
  EXPECT_NE(error.find("t.cpp:6: the defaults break the rule `a * b < 8`"), std::string::npos)
      << error;
  error = refusal("t.cpp", head + "// kforge:require a * c <= 8\n");
  EXPECT_NE(error.find("`c` is no parameter"), std::string::npos) << error;
  error = refusal("t.cpp", head + "// kforge:require (a <= 8\n");
  EXPECT_NE(error.find("without its `)`"), std::string::npos) << error;
}

TEST(ParamRule, ReadsIntegerExpressionsWithCsPrecedence) {
  const std::map<std::string, int64_t> v = {{"a", 6}, {"b", 4}, {"zero", 0}};
  auto holds = [&](const std::string& rule) {
    auto r = rule_holds(rule, v);
    EXPECT_TRUE(r) << rule << ": " << r.error;
    return r && *r;
  };
  EXPECT_TRUE(holds("a + b * 2 == 14"));
  EXPECT_TRUE(holds("(a + b) * 2 == 20"));
  EXPECT_TRUE(holds("a % b == 2 && a / b == 1"));
  EXPECT_TRUE(holds("a < b || b <= 4"));
  EXPECT_FALSE(holds("a < b || b > 4"));
  EXPECT_TRUE(holds("a >= 6 && a != 5 && 10 - a - b == 0"));
  EXPECT_FALSE(holds("a / zero == 0"));  // undefined: the combination is refused
  EXPECT_FALSE(holds("a % zero == 0 || 0"));
  EXPECT_TRUE(holds("a % zero == 0 || 1"));
  EXPECT_FALSE(rule_holds("a +", v));
  EXPECT_FALSE(rule_holds("a b", v));
  EXPECT_FALSE(rule_holds("", v));
}

TEST(TaskFamily, RecognisesTheBundledFamiliesFromOpsAndArguments) {
  EXPECT_EQ(recognise_family(softmax_task(), "forward").family, "softmax");
  auto layernorm =
      direction({"aten::layer_norm"},
                {tensor("x", "input", "float32", {4, 8}), tensor("w", "parameter", "float32", {8}),
                 tensor("b", "parameter", "float32", {8}),
                 [] {
                   json::Value a, v;
                   v.array();
                   v.push(8);
                   a.set("kind", "int_list").set("value", v);
                   return a;
                 }(),
                 scalar("eps", "float", 1e-5)},
                {4, 8});
  EXPECT_EQ(recognise_family(layernorm, "forward").family, "layernorm");
  EXPECT_EQ(recognise_family(layernorm, "forward").traits.at("shape_arg"), 1);
  auto linear = direction(
      {"aten::linear", "aten::relu"},
      {tensor("x", "input", "float32", {4, 8}), tensor("w", "parameter", "float32", {3, 8}),
       tensor("b", "parameter", "float32", {3})},
      {4, 3});
  EXPECT_EQ(recognise_family(linear, "forward").family, "linear");
  EXPECT_EQ(recognise_family(linear, "forward").traits.at("relu"), 1);
  auto ce = direction(
      {"aten::cross_entropy_loss", "aten::size"},
      {tensor("logits", "input", "float32", {4, 8}), tensor("t", "input", "int64", {4})}, {});
  EXPECT_EQ(recognise_family(ce, "forward").family, "cross_entropy");
}

// The forward tasks of robust-kbench as their exports read: layernorm over three trailing
// dimensions with eps only (the shape derived inside forward_fn), LLaMA's RMSNorm, a plain linear.
TEST(TaskFamily, RecognisesRobustKbenchShapes) {
  auto layernorm = direction(
      {"aten::size", "aten::Int", "aten::layer_norm"},
      {tensor("x", "input", "float32", {16, 64, 256, 256}),
       tensor("weight", "parameter", "float32", {64, 256, 256}),
       tensor("bias", "parameter", "float32", {64, 256, 256}), scalar("eps", "float", 1e-5)},
      {16, 64, 256, 256});
  auto f = recognise_family(layernorm, "forward");
  EXPECT_EQ(f.family, "layernorm") << f.why_not;
  EXPECT_EQ(f.traits.at("shape_arg"), 0);
  auto rms = direction({"aten::to", "aten::pow", "aten::mean", "aten::add", "aten::rsqrt",
                        "aten::mul", "aten::type_as"},
                       {tensor("x", "input", "float32", {16, 1024, 4096}),
                        tensor("w", "parameter", "float32", {4096}), scalar("eps", "float", 1e-8)},
                       {16, 1024, 4096});
  EXPECT_EQ(recognise_family(rms, "forward").family, "rmsnorm");
  auto linear = direction({"aten::linear"},
                          {tensor("x", "input", "float32", {64, 128}),
                           tensor("weights", "parameter", "float32", {10, 128}),
                           tensor("biases", "parameter", "float32", {10})},
                          {64, 10});
  EXPECT_EQ(recognise_family(linear, "forward").family, "linear");
  EXPECT_EQ(recognise_family(linear, "forward").traits.at("relu"), 0);
  // A softmax with a mean is no RMSNorm.
  auto other = direction({"aten::mean", "aten::rsqrt", "aten::softmax"},
                         {tensor("x", "input", "float32", {4, 8}),
                          tensor("w", "parameter", "float32", {8}), scalar("eps", "float", 1e-8)},
                         {4, 8});
  EXPECT_TRUE(recognise_family(other, "forward").family.empty());
}

TEST(TaskFamily, SaysWhyWhenNothingFits) {
  auto gelu = direction({"aten::gelu"}, {tensor("x", "input", "float32", {4, 8})}, {4, 8});
  auto r = recognise_family(gelu, "forward");
  EXPECT_TRUE(r.family.empty());
  EXPECT_NE(r.why_not.find("aten::gelu"), std::string::npos) << r.why_not;
  EXPECT_FALSE(recognise_family(softmax_task(), "backward").why_not.empty());
  auto dim0 = direction({"aten::softmax"},
                        {tensor("x", "input", "float32", {4, 8}), scalar("dim", "int", 0)}, {4, 8});
  EXPECT_TRUE(recognise_family(dim0, "forward").family.empty());
  EXPECT_TRUE(
      recognise_family(direction({}, {tensor("x", "input", "float32", {4, 8})}, {4, 8}), "forward")
          .why_not.find("export again") != std::string::npos);
}

BuiltinRequest request(const std::string& backend, uint64_t seed) {
  BuiltinRequest r;
  r.backend = backend;
  r.direction = "forward";
  r.direction_doc = softmax_task();
  r.seed = seed;
  return r;
}

TEST(BuiltinProposer, TranslatesWithTheDefaultsFirst) {
  auto p = propose_builtin(request("cuda", 1));
  ASSERT_TRUE(p.ok) << p.error;
  EXPECT_EQ(p.strategy, "softmax_f32_cuda_rows");
  EXPECT_EQ(p.rationale, "the template's defaults");
  EXPECT_NE(p.source.find("PYBIND11_MODULE"), std::string::npos);
}

TEST(BuiltinProposer, SameSeedSameProposalAndNeverARepeat) {
  auto r = request("cpu", 5);
  std::set<std::string> keys;
  for (int i = 0; i < 10; ++i) {
    r.seed = 1000 + i;
    auto a = propose_builtin(r), b = propose_builtin(r);
    ASSERT_TRUE(a.ok) << a.error;
    EXPECT_EQ(a.source, b.source);
    auto key = search::proposal_key(a.strategy, a.params);
    EXPECT_TRUE(keys.insert(key).second) << key;
    r.tried.insert(key);
  }
}

TEST(BuiltinProposer, MutatesOneOrTwoParametersOfTheParent) {
  auto r = request("cuda", 3);
  auto first = propose_builtin(r);
  r.tried.insert(search::proposal_key(first.strategy, first.params));
  r.mode = search::ProposalMode::optimise;
  r.has_parent = true;
  r.parent_strategy = first.strategy;
  r.parent_params = first.params;
  auto parent = json::parse(first.params).value->as_object();
  for (uint64_t seed = 0; seed < 20; ++seed) {
    r.seed = seed;
    auto child = propose_builtin(r);
    ASSERT_TRUE(child.ok);
    EXPECT_TRUE(child.from_parent) << child.rationale;
    auto values = json::parse(child.params).value->as_object();
    int changed = 0;
    for (size_t i = 0; i < values.size(); ++i)
      changed += values[i].second.as_int() != parent[i].second.as_int();
    EXPECT_GE(changed, 1);
    EXPECT_LE(changed, 2);
  }
}

TEST(BuiltinProposer, ExhaustsASpaceAndSaysSo) {
  auto r = request("cpu", 0);
  size_t space = 0;
  for (const auto& t : builtin_templates())
    if (t.family() == "softmax" && t.backend() == "cpu") space += t.space_size();
  for (size_t i = 0; i < space; ++i) {
    r.seed = i;
    auto p = propose_builtin(r);
    ASSERT_TRUE(p.ok) << i << ": " << p.error;
    r.tried.insert(search::proposal_key(p.strategy, p.params));
  }
  auto last = propose_builtin(r);
  EXPECT_FALSE(last.ok);
  EXPECT_TRUE(last.exhausted);
}

TEST(BuiltinProposer, UnknownTaskIsAnErrorThatSaysWhy) {
  auto r = request("cuda", 1);
  r.direction_doc = direction({"aten::gelu"}, {tensor("x", "input", "float32", {4, 8})}, {4, 8});
  auto p = propose_builtin(r);
  EXPECT_FALSE(p.ok);
  EXPECT_FALSE(p.exhausted);
  EXPECT_NE(p.error.find("aten::gelu"), std::string::npos);
}

std::string params(const std::map<std::string, int64_t>& v) {
  return KernelTemplate::to_json(v).dump();
}

TEST(BuiltinStrategies, ContinueWhatMadeTheFastestFasterThenEveryOtherMove) {
  BuiltinMetaRequest r;
  r.backend = "cpu";
  r.direction = "forward";
  r.direction_doc = softmax_task();
  r.count = 10;
  // The fastest has more rows per chunk and the online pass than a slower one.
  r.best = {
      {"softmax_f32_cpu_rows",
       params({{"rows_per_chunk", 4}, {"online", 0}, {"double_sum", 1}, {"exp_poly", 1}}), 1.5},
      {"softmax_f32_cpu_rows",
       params({{"rows_per_chunk", 8}, {"online", 1}, {"double_sum", 1}, {"exp_poly", 1}}), 2.0}};
  auto s = builtin_strategies(r);
  ASSERT_TRUE(s.error.empty()) << s.error;
  ASSERT_GE(s.strategies.size(), 3u);
  // rows_per_chunk went up and helped: up again (online is at its top, so it cannot).
  EXPECT_EQ(s.strategies[0], "raise rows_per_chunk");
  std::set<std::string> all(s.strategies.begin(), s.strategies.end());
  EXPECT_EQ(all.size(), s.strategies.size());
  for (const char* move : {"lower rows_per_chunk", "lower online", "lower double_sum"})
    EXPECT_TRUE(all.count(move)) << move;
  EXPECT_FALSE(all.count("raise online"));  // no larger value
  // What the target has already is not written again; at most `count`.
  r.known = {"raise rows_per_chunk", "lower online"};
  r.count = 2;
  auto again = builtin_strategies(r);
  ASSERT_EQ(again.strategies.size(), 2u);
  for (const auto& t : again.strategies) EXPECT_FALSE(t == r.known[0] || t == r.known[1]) << t;
  // A task no template implements says why.
  r.direction_doc = direction({"aten::gelu"}, {tensor("x", "input", "float32", {4, 8})}, {4, 8});
  EXPECT_FALSE(builtin_strategies(r).error.empty());
}

TEST(BuiltinStrategies, AProposalFollowsItsStrategysMoveFromTheParent) {
  auto r = request("cpu", 0);
  r.mode = search::ProposalMode::optimise;
  r.has_parent = true;
  r.parent_strategy = "softmax_f32_cpu_rows";
  r.parent_params =
      params({{"rows_per_chunk", 4}, {"online", 0}, {"double_sum", 1}, {"exp_poly", 1}});
  r.strategy = "raise rows_per_chunk";
  for (uint64_t seed = 0; seed < 5; ++seed) {
    r.seed = seed;
    auto p = propose_builtin(r);
    ASSERT_TRUE(p.ok) << p.error;
    EXPECT_TRUE(p.from_parent);
    EXPECT_EQ(p.params,
              params({{"rows_per_chunk", 8}, {"online", 0}, {"double_sum", 1}, {"exp_poly", 1}}));
    EXPECT_EQ(p.rationale, "strategy \"raise rows_per_chunk\": rows_per_chunk 4 -> 8");
  }
  // That move tried: one more parameter moves with it.
  r.tried = {search::proposal_key(
      "softmax_f32_cpu_rows",
      params({{"rows_per_chunk", 8}, {"online", 0}, {"double_sum", 1}, {"exp_poly", 1}}))};
  auto p = propose_builtin(r);
  ASSERT_TRUE(p.ok) << p.error;
  EXPECT_EQ((*json::parse(p.params).value)["rows_per_chunk"].as_int(), 8);
  EXPECT_NE(p.rationale.find(", "), std::string::npos) << p.rationale;
  // A move the parent cannot make (no larger value) is the usual mutation instead.
  r.tried.clear();
  r.strategy = "raise exp_poly";
  auto mutated = propose_builtin(r);
  ASSERT_TRUE(mutated.ok);
  EXPECT_EQ(mutated.rationale.find("strategy"), std::string::npos) << mutated.rationale;
  EXPECT_FALSE(parse_strategy_move(search::builtin_seed_strategy()));
}

}  // namespace
}  // namespace kforge::builtin
