// The book of proposals being made, without actors: what is sent next (retries that are due
// first, then new sequences within the in-flight limit and the pipeline depth), and what is
// forgotten when a target ends or proposing stops.
#include <gtest/gtest.h>

#include "search/proposal_book.hpp"

namespace kforge::search {
namespace {

Planner two_targets(int candidates_per_target) {
  auto parsed = parse_experiment_spec(
      R"({"seed": 5, "tasks": ["/t/a", "/t/b"], "backends": ["cpu"],
          "budget": {"candidates_per_target": )" +
      std::to_string(candidates_per_target) + R"(}, "search": {"pipeline_depth": 2}})");
  EXPECT_TRUE(parsed.ok()) << parsed.error_text();
  return Planner(parsed.spec, {"a", "b"});
}

/// Proposal n of `book` became a candidate of target t, still being judged.
void became_candidate(ProposalBook& book, Planner& planner, int64_t n) {
  Member m;
  m.sequence = n;
  m.candidate_id = n + 100;
  m.target = book.at(n).target;
  m.key = "k" + std::to_string(n);
  planner.population().add(m);
  book.erase(n);
}

TEST(ProposalBook, NewSequencesGoToTheTargetWithFewestProposalsUpToTheInFlightLimit) {
  auto planner = two_targets(3);
  ProposalBook book;
  ASSERT_EQ(book.next(planner, 2, 2), 0);
  book.sent(0);
  ASSERT_EQ(book.next(planner, 2, 2), 1);
  EXPECT_EQ(book.at(0).target, 0u);
  EXPECT_EQ(book.at(1).target, 1u);  // a already has one asked for
  book.sent(1);
  EXPECT_EQ(book.next(planner, 2, 2), std::nullopt);  // two at the proposers
  EXPECT_EQ(book.next_sequence(), 2);
}

TEST(ProposalBook, ADueRetryGoesFirstAndABackingOffOneWaits) {
  auto planner = two_targets(3);
  ProposalBook book;
  book.sent(*book.next(planner, 4, 2));
  book.sent(*book.next(planner, 4, 2));
  book.came_back(1);
  book.retry(1, /*backing_off=*/true);
  // Sequence 2 would see proposal 0, which is not a candidate yet: nothing is sent.
  EXPECT_EQ(book.next(planner, 4, 2), std::nullopt);
  book.due(1);
  EXPECT_EQ(book.next(planner, 4, 2), 1);
  EXPECT_EQ(book.at(1).attempts, 1);
  book.sent(1);
  book.due(7);  // a tick for a proposal that is gone changes nothing
  became_candidate(book, planner, 0);
  // 0 is a candidate but not finished: sequence 2 may see it, so it still waits.
  EXPECT_EQ(book.next(planner, 4, 2), std::nullopt);
  planner.population().finish(0, true, 1.5);
  EXPECT_EQ(book.next(planner, 4, 2), 2);
}

TEST(ProposalBook, AReplannedProposalKeepsItsSequenceAndLosesItsPlan) {
  auto planner = two_targets(3);
  ProposalBook book;
  const int64_t n = *book.next(planner, 1, 2);
  book.at(n).plan = planner.plan(n, book.at(n).target);
  book.sent(n);
  book.came_back(n);
  book.replan(n);
  EXPECT_FALSE(book.at(n).plan.has_value());
  EXPECT_EQ(book.next(planner, 1, 2), n);
}

TEST(ProposalBook, WhatIsNotAtAProposerIsDroppedPerTargetOrAltogether) {
  auto planner = two_targets(3);
  ProposalBook book;
  book.sent(*book.next(planner, 9, 9));    // 0, target a
  ASSERT_EQ(book.next(planner, 9, 9), 1);  // target b, waiting
  ASSERT_EQ(book.next(planner, 9, 9), 1);  // still the first to send
  book.drop_waiting(0);
  EXPECT_EQ(book.next(planner, 9, 9), 1);  // b's is kept
  book.drop_waiting();
  EXPECT_FALSE(book.empty());  // 0 is at its proposer
  EXPECT_EQ(book.oldest(), 0);
  EXPECT_EQ(book.next(planner, 1, 9), std::nullopt);
}

TEST(ProposalBook, NoSequenceIsLeftOnceEveryTargetHasItsCandidates) {
  auto planner = two_targets(1);
  ProposalBook book;
  EXPECT_FALSE(book.no_more_sequences(planner));
  book.sent(*book.next(planner, 9, 9));
  EXPECT_FALSE(book.no_more_sequences(planner));  // b has none yet
  book.sent(*book.next(planner, 9, 9));
  EXPECT_TRUE(book.no_more_sequences(planner));  // both pending count
  became_candidate(book, planner, 0);
  EXPECT_TRUE(book.no_more_sequences(planner));
  planner.end(1, "abandoned");
  book.erase(1);
  EXPECT_TRUE(book.no_more_sequences(planner));
  EXPECT_EQ(book.next(planner, 9, 9), std::nullopt);
}

}  // namespace
}  // namespace kforge::search
