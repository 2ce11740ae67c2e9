// The exporter on tasks that use what the robust-kbench format allows: buffers, None arguments,
// scalars and integer tuples reaching backward_fn, integer inputs, several init methods, the
// single/multi switches, and the degenerate-task filters.
#include <gtest/gtest.h>

#include <cmath>

#include "tests/test_support.hpp"

namespace kforge::test {
namespace {

const json::Value& arg_named(const json::Value& config, const std::string& name) {
  for (const auto& a : config["args"].as_array())
    if (a["name"].as_string() == name) return a;
  static json::Value none;
  return none;
}

TEST(Exporter, BuffersNoneScalarsAndInitMethods) {
  const auto& t = exported(source_dir() + "/tests/tasks/batchnorm_buffers");
  const auto& configs = t.doc["directions"]["forward"]["configs"];
  ASSERT_EQ(configs.as_array().size(), 4u);  // 1 single + 2x2 multi, the single one shared
  const auto& c = configs[0];
  EXPECT_EQ(arg_named(c, "running_mean")["kind"].as_string(), "buffer");
  EXPECT_EQ(arg_named(c, "running_var")["dist"]["value"].as_number(), 1.0);
  EXPECT_EQ(arg_named(c, "skip")["kind"].as_string(), "none");
  EXPECT_EQ(arg_named(c, "training")["type"].as_string(), "bool");
  EXPECT_EQ(arg_named(c, "x")["dist"]["family"].as_string(), "uniform");
  EXPECT_NEAR(arg_named(c, "x")["dist"]["low"].as_number(), -2.0, 1e-6);
  bool saw_uniform_weight = false;
  for (const auto& cfg : configs.as_array())
    saw_uniform_weight |= arg_named(cfg, "weight")["dist"]["family"].as_string() == "uniform";
  EXPECT_TRUE(saw_uniform_weight) << "the second init method draws weights from uniform(0.5, 1.5)";
}

TEST(Exporter, BackwardFnReceivesScalarsAndIntegerTuples) {
  const auto& t = exported(source_dir() + "/tests/tasks/layernorm_backward");
  const auto& c = t.doc["directions"]["backward"]["configs"][0];
  EXPECT_EQ(arg_named(c, "grad_output")["kind"].as_string(), "grad_output");
  EXPECT_EQ(arg_named(c, "x")["kind"].as_string(), "forward_arg");
  EXPECT_EQ(arg_named(c, "normalized_shape")["kind"].as_string(), "int_list");
  EXPECT_EQ(arg_named(c, "normalized_shape")["value"][0].as_int(), 32);
  EXPECT_EQ(arg_named(c, "eps")["type"].as_string(), "float");
  EXPECT_EQ(c["outputs"].as_array().size(), 3u);
}

TEST(Exporter, IntegerInputsAndBundledBackward) {
  const auto& t = exported("cross_entropy");
  const auto& f = t.doc["directions"]["forward"]["configs"][0];
  EXPECT_EQ(arg_named(f, "targets")["dtype"].as_string(), "int64");
  EXPECT_EQ(arg_named(f, "targets")["dist"]["family"].as_string(), "randint");
  EXPECT_EQ(arg_named(f, "targets")["dist"]["high"].as_int(), 1000);
  const auto& b = t.doc["directions"]["backward"]["configs"][0];
  EXPECT_EQ(arg_named(b, "logits")["kind"].as_string(), "forward_arg");
}

TEST(Exporter, LinearInitialisationIsFoundFromTheTaskCode) {
  const auto& t = exported("linear_relu");
  const auto& c = t.doc["directions"]["forward"]["configs"][0];  // in_features 300
  const auto& w = arg_named(c, "weight")["dist"];
  EXPECT_EQ(w["family"].as_string(), "uniform");
  EXPECT_NEAR(w["high"].as_number(), 1.0 / std::sqrt(300.0), 1e-6);  // kaiming_uniform_(a=sqrt(5))
}

TEST(Exporter, DegenerateTaskIsFlagged) {
  const auto& t = exported(source_dir() + "/tests/tasks/degenerate");
  std::string all;
  for (const auto& w : t.doc["directions"]["forward"]["configs"][0]["warnings"].as_array())
    all += w.as_string() + "\n";
  EXPECT_NE(all.find("near constant"), std::string::npos) << all;
  EXPECT_NE(all.find("`unused` has no effect"), std::string::npos) << all;
}

TEST(Exporter, ClearErrorForAFolderThatIsNotATask) {
  gpu::ExportOptions o;
  o.cache_dir = cache_dir();
  auto r = gpu::export_task(source_dir() + "/tests", o);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("func_forward.py"), std::string::npos) << r.error;
}

}  // namespace
}  // namespace kforge::test
