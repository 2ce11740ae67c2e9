// The common library's values: JSON (exact integers, copies that change alone, a key given twice
// refused), numbers as users type them, and the geometric mean of speedups.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>

#include "common/json.hpp"
#include "common/numbers.hpp"
#include "common/statistics.hpp"

namespace kforge::test {
namespace {

TEST(Json, AKeyGivenTwiceInAnObjectIsRefusedWithItsPath) {
  auto top = json::parse(R"({"seed": 1, "name": "x", "seed": 2})");
  EXPECT_FALSE(top.value);
  EXPECT_EQ(top.error, "the key \"seed\" appears twice in the top-level object");
  auto nested = json::parse(R"({"tasks": [{"a": 1}, {"b": {"c": 1, "c": 2}}]})");
  EXPECT_FALSE(nested.value);
  EXPECT_EQ(nested.error, "the key \"c\" appears twice in tasks[1].b");
  EXPECT_TRUE(json::parse(R"({"a": {"k": 1}, "b": {"k": 2}})").value);  // same key, two objects
}

TEST(Json, RoundTripKeepsOrderTypesAndEscapes) {
  auto parsed = json::parse(R"({"b":1,"a":[true,null,"x\"y\n"],"c":{"d":2.5}})");
  ASSERT_TRUE(parsed.value) << parsed.error;
  EXPECT_EQ(parsed.value->dump(), R"({"b":1,"a":[true,null,"x\"y\n"],"c":{"d":2.5}})");
  EXPECT_EQ((*parsed.value)["c"]["d"].as_number(), 2.5);
  EXPECT_TRUE((*parsed.value)["missing"]["deeper"].is_null());
  EXPECT_FALSE(json::parse("{nope").value);
}

// Seeds and ids are 64-bit integers: parsed, built and printed exactly (the review saw a seed come
// out as 1.3483273760790274e+19 when every number was a double).
TEST(Json, IntegersStayExact) {
  const std::string text =
      R"({"seed":13483273760790274049,"max":18446744073709551615,"id":9223372036854775807,)"
      R"("negative":-9223372036854775808,"ratio":1.5,"zero":0})";
  auto parsed = json::parse(text);
  ASSERT_TRUE(parsed.value) << parsed.error;
  const auto& doc = *parsed.value;
  EXPECT_EQ(doc.dump(), text);
  EXPECT_EQ(doc["seed"].as_uint(), 13483273760790274049ull);
  EXPECT_EQ(doc["max"].as_uint(), UINT64_MAX);
  EXPECT_EQ(doc["max"].as_int(-1), -1) << "too large for int64: the fallback, not a wrap";
  EXPECT_EQ(doc["id"].as_int(), INT64_MAX);
  EXPECT_EQ(doc["negative"].as_int(), INT64_MIN);
  EXPECT_EQ(doc["negative"].as_uint(7), 7u);
  EXPECT_TRUE(doc["seed"].is_integer() && doc["seed"].is_number());
  EXPECT_FALSE(doc["ratio"].is_integer());
  EXPECT_EQ(doc["ratio"].as_int(), 2);  // a double rounds
  json::Value built;
  built.set("seed", uint64_t{13483273760790274049ull}).set("n", int64_t{-3}).set("i", 7);
  EXPECT_EQ(built.dump(), R"({"seed":13483273760790274049,"n":-3,"i":7})");
}

// A copy is a value of its own. The worker client set the staged library's path in the request it
// was given, and the caller's request (a shallow copy) changed with it: evaluating the same
// request twice on one worker then tried to stage the staged copy and failed.
TEST(Json, ACopyChangesAloneAtEveryDepth) {
  auto parsed = json::parse(R"({"library":"a.so","configs":[0,1],"timing":{"reps":3}})");
  ASSERT_TRUE(parsed.value) << parsed.error;
  const json::Value original = *parsed.value;
  json::Value copy = original;
  copy.set("library", "staged.so");
  EXPECT_EQ(original["library"].as_string(), "a.so");
  json::Value nested = original;
  for (auto& [key, value] : nested.object()) {
    if (key == "configs") value.push(2);
    if (key == "timing") value.set("reps", 9);
  }
  EXPECT_EQ(original.dump(), R"({"library":"a.so","configs":[0,1],"timing":{"reps":3}})");
  EXPECT_EQ(nested.dump(), R"({"library":"a.so","configs":[0,1,2],"timing":{"reps":9}})");
  json::Value array = original["configs"];
  array.array().clear();
  EXPECT_EQ(original["configs"].as_array().size(), 2u);
}

// Numbers users and clients type: whole strings only, in range, or nothing.
// One geometric mean for the coordinator's, the archive's and the views' speedups: none without
// values, none when one value is not a positive finite number.
TEST(Statistics, TheGeometricMeanNeedsPositiveValues) {
  EXPECT_NEAR(geometric_mean({2.0, 8.0}).value(), 4.0, 1e-12);
  EXPECT_NEAR(geometric_mean({3.0}).value(), 3.0, 1e-12);
  EXPECT_FALSE(geometric_mean({}));
  EXPECT_FALSE(geometric_mean({2.0, 0.0}));
  EXPECT_FALSE(geometric_mean({2.0, -1.0}));
  EXPECT_FALSE(geometric_mean({2.0, std::nan("")}));
  EXPECT_FALSE(geometric_mean({2.0, HUGE_VAL}));
}

TEST(Numbers, IntegersAreWholeAndInRange) {
  EXPECT_EQ(parse_integer("42"), 42);
  EXPECT_EQ(parse_integer("-7", -10, 10), -7);
  EXPECT_EQ(parse_integer("9223372036854775807"), INT64_MAX);
  EXPECT_EQ(parse_integer("-9223372036854775808"), INT64_MIN);
  for (const char* bad : {"", "-", "+1", " 1", "1 ", "1x", "0x10", "1e3", "1.0", "abc",
                          "9223372036854775808", "99999999999999999999", "-9223372036854775809"})
    EXPECT_FALSE(parse_integer(bad)) << bad;
  EXPECT_FALSE(parse_integer("0", 1, 10));
  EXPECT_FALSE(parse_integer("11", 1, 10));
  EXPECT_EQ(integer_error("--seeds", "abc", 1, 100),
            "--seeds needs a whole number from 1 to 100, not 'abc'");
  // What a client sent is echoed short and printable.
  EXPECT_EQ(integer_error("id", std::string(50, '7') + "\n", 1, 2).size(),
            std::string("id needs a whole number from 1 to 2, not '").size() + 40 + 4);
}

TEST(Numbers, RealsAreFiniteWholeAndInRange) {
  EXPECT_EQ(parse_real("0.5"), 0.5);
  EXPECT_EQ(parse_real("1e-3"), 1e-3);
  EXPECT_EQ(parse_real("-2", -5, 5), -2);
  for (const char* bad : {"", "nan", "inf", "-inf", "1e309", "0.5s", " 1", "1,5", "x"})
    EXPECT_FALSE(parse_real(bad)) << bad;
  EXPECT_FALSE(parse_real("0", 0.001, 10));
  EXPECT_EQ(real_error("--max-seconds", "x", 0.001, 3600),
            "--max-seconds needs a number from 0.001 to 3600, not 'x'");
}

}  // namespace
}  // namespace kforge::test
