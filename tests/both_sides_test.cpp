// A recording of both sides of a config (evaluation/worker/both_sides.hpp), with stand-in
// recorders: what a record says when one side, both or neither could be recorded.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "evaluation/worker/both_sides.hpp"

namespace kforge::worker {
namespace {

const std::vector<std::string> kCandidateFirst = {"candidate", "reference"};

json::Value config_zero() {
  json::Value doc;
  return doc.set("config", 0);
}

/// A recorder whose sides fail with the errors given (none for a side that records), and which
/// notes the sides it was asked for.
struct StandIn {
  std::map<std::string, std::string> errors;
  std::vector<std::string> asked;
  std::string operator()(const std::string& who, json::Value& doc) {
    asked.push_back(who);
    if (errors.count(who)) return errors[who];
    json::Value side;
    doc.set(who, side.set("kernels", 3));
    return {};
  }
};

TEST(BothSides, ASideThatFailsApartKeepsItsErrorAndTheOtherIsStillRecorded) {
  StandIn recorder{{{"candidate", "the first profiled call took 90 s"}}, {}};
  auto doc = record_sides(config_zero(), kCandidateFirst, true, std::ref(recorder));
  EXPECT_EQ(recorder.asked, kCandidateFirst);
  EXPECT_EQ(doc["config"].as_int(), 0);
  EXPECT_EQ(doc["candidate"]["error"].as_string(), "the first profiled call took 90 s");
  EXPECT_FALSE(doc["candidate"].contains("kernels"));
  EXPECT_EQ(doc["reference"]["kernels"].as_int(), 3);
  EXPECT_FALSE(doc.contains("error"));
}

TEST(BothSides, BothSidesFailingApartIsOneErrorNamingEachSide) {
  StandIn recorder{{{"candidate", "too slow profiled"}, {"reference", "counters busy"}}, {}};
  auto doc = record_sides(config_zero(), kCandidateFirst, true, std::ref(recorder));
  EXPECT_EQ(doc["error"].as_string(), "the kernel's: too slow profiled; eager's: counters busy");
  EXPECT_FALSE(doc.contains("candidate"));
  EXPECT_FALSE(doc.contains("reference"));
  EXPECT_FALSE(doc.contains("config"));
}

TEST(BothSides, BothFailingWithTheSameErrorIsThatErrorOnce) {
  const std::string cpu = "hardware counters are read on CUDA devices only";
  StandIn recorder{{{"candidate", cpu}, {"reference", cpu}}, {}};
  auto doc = record_sides(config_zero(), kCandidateFirst, true, std::ref(recorder));
  EXPECT_EQ(doc["error"].as_string(), cpu);
}

TEST(BothSides, NotApartTheFirstFailureEndsTheRecordBeforeTheOtherSide) {
  StandIn recorder{{{"reference", "tracing failed"}}, {}};
  auto doc = record_sides(config_zero(), {"reference", "candidate"}, false, std::ref(recorder));
  EXPECT_EQ(recorder.asked, std::vector<std::string>{"reference"});
  EXPECT_EQ(doc["error"].as_string(), "tracing failed");
  EXPECT_FALSE(doc.contains("candidate"));
}

TEST(BothSides, NeitherFailingRecordsBothBesideTheConfig) {
  StandIn recorder;
  auto doc = record_sides(config_zero(), kCandidateFirst, true, std::ref(recorder));
  EXPECT_EQ(doc["config"].as_int(), 0);
  EXPECT_EQ(doc["candidate"]["kernels"].as_int(), 3);
  EXPECT_EQ(doc["reference"]["kernels"].as_int(), 3);
  EXPECT_FALSE(doc.contains("error"));
}

}  // namespace
}  // namespace kforge::worker
