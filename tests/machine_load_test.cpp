// When kforge warns that the machine is too busy for times to be trusted (evaluation/machine_load).
#include <gtest/gtest.h>

#include "evaluation/machine_load.hpp"

namespace kforge::evaluation {
namespace {

TEST(MachineLoad, WarnsWhenTheLoadAverageExceedsThreeQuartersOfTheCores) {
  EXPECT_FALSE(load_warning("0.50 0.40 0.30 1/200 1234", 2));
  EXPECT_FALSE(load_warning("1.50 0.40 0.30 1/200 1234", 2));
  auto busy = load_warning("3.21 2.00 1.00 5/300 999", 2);
  ASSERT_TRUE(busy);
  EXPECT_NE(busy->find("load average 3.2 on 2 cores"), std::string::npos) << *busy;
  EXPECT_FALSE(load_warning("", 2));
  EXPECT_FALSE(load_warning("garbage", 2));
  EXPECT_FALSE(load_warning("9.0 1 1", 0));
}

}  // namespace
}  // namespace kforge::evaluation
