// The experiment's events (messages/events.hpp, messages/event_details.hpp): one name per kind,
// one struct per kind whose every field survives the trip through the archive's JSON, readers
// that keep what an earlier or later kforge wrote and refuse a field of the wrong type, and the
// events table of docs/design.md (the dashboard's schema) naming every kind and field.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>

#include "messages/event_details.hpp"
#include "tests/test_support.hpp"

namespace kforge::events {
namespace {

TEST(Events, EveryKindHasOneNameThatGivesItBack) {
  for (int i = 0; i < static_cast<int>(Kind::unknown); ++i) {
    const auto kind = static_cast<Kind>(i);
    EXPECT_EQ(kind_named(name(kind)), kind) << name(kind);
  }
  EXPECT_EQ(kind_named("not_a_kind"), Kind::unknown);
  EXPECT_TRUE(ends_target(Kind::target_abandoned));
  EXPECT_TRUE(finishes_candidate(Kind::compile_failed));
  EXPECT_FALSE(finishes_candidate(Kind::llm_verified));
}

/// Gives every field of an event a value of its own (the n-th field: n, "text n", ...), so that a
/// field written under one name and read under another does not come back the same.
struct Fill {
  int n = 0;
  void operator()(const char*, int64_t& v) { v = ++n; }
  void operator()(const char*, double& v) { v = ++n + 0.5; }
  void operator()(const char*, bool& v) { v = (++n % 2) == 1; }
  void operator()(const char*, std::string& v) { v = "text " + std::to_string(++n); }
  void operator()(const char*, std::vector<std::string>& v) {
    v = {"a " + std::to_string(++n), "b"};
  }
  void operator()(const char*, json::Value& v) { v.set("advice", ++n); }
  template <class T>
  void operator()(const char* key, std::optional<T>& v) {
    T x{};
    (*this)(key, x);
    v = x;
  }
};

/// The keys of an event's JSON, in order.
template <class E>
std::vector<std::string> keys() {
  std::vector<std::string> out;
  E e;
  E::each(e, [&](const char* key, auto&) { out.push_back(key); });
  return out;
}

template <size_t... I>
void check_every_kind(std::index_sequence<I...>) {
  auto one = [](auto alternative) {
    using E = typename decltype(alternative)::type;
    E e;
    Fill fill;
    E::each(e, fill);
    const Event event(e);
    const std::string name(events::name(E::kind));
    EXPECT_EQ(kind_of(event), E::kind);
    EXPECT_EQ(name_of(event), name);
    const json::Value written = to_json(event);
    EXPECT_EQ(written.as_object().size(), keys<E>().size()) << name << ": " << written.dump();
    auto back = read_text(name, written.dump());
    ASSERT_TRUE(back) << name << ": " << back.error;
    EXPECT_EQ(back->index(), event.index()) << name;
    EXPECT_EQ(to_json(*back).dump(), written.dump()) << name;
  };
  (one(std::type_identity<std::variant_alternative_t<I, Event>>{}), ...);
}

TEST(Events, EveryFieldOfEveryKindComesBackFromTheArchivesJson) {
  check_every_kind(std::make_index_sequence<static_cast<size_t>(Kind::unknown)>{});
}

TEST(Events, TheJsonIsWhatTheDashboardAndEarlierArchivesRead) {
  auto e = about<Evaluated>({3, 7, "softmax/forward/cpu"});
  e.verdict = "correct";
  e.strategy = "warp_reduce";
  e.speedup = 1.5;
  e.seconds = 2.25;
  EXPECT_EQ(to_json(e).dump(),
            R"({"sequence":3,"candidate":7,"target":"softmax/forward/cpu","verdict":"correct",)"
            R"("strategy":"warp_reduce","speedup":1.5,"seconds":2.25})");
  const Event ended = of_kind(Kind::target_abandoned, TargetEnd{"t/forward/cpu", "why"});
  EXPECT_EQ(name_of(ended), "target_abandoned");
  EXPECT_EQ(to_json(ended).dump(), R"({"target":"t/forward/cpu","reason":"why"})");
  EXPECT_EQ(target_of(ended), "t/forward/cpu");
  EXPECT_EQ(as<TargetEnd>(ended)->reason, "why");
  EXPECT_EQ(as<Subject>(ended), nullptr);
  EXPECT_EQ(target_of(Event(ExperimentStarted{2})), "");
  EXPECT_THROW(of_kind(Kind::proposed, TargetEnd{}), std::logic_error);
}

TEST(Events, AFieldOfTheWrongTypeIsAnErrorAndAMissingOneKeepsItsDefault) {
  auto wrong = read_text("evaluated", R"({"candidate":"seven","verdict":"correct"})");
  ASSERT_FALSE(wrong);
  EXPECT_NE(wrong.error.find("`candidate` has the wrong type"), std::string::npos) << wrong.error;
  EXPECT_FALSE(read_text("evaluated", "[1, 2]"));
  EXPECT_FALSE(read_text("evaluated", "{not json"));
  // An earlier kforge wrote no `strategy`: the rest is read.
  auto old = read_text("evaluated", R"({"candidate":7,"target":"t","verdict":"incorrect"})");
  ASSERT_TRUE(old) << old.error;
  const auto& e = std::get<Evaluated>(*old);
  EXPECT_EQ(e.candidate, 7);
  EXPECT_EQ(e.verdict, "incorrect");
  EXPECT_EQ(e.strategy, "");
  EXPECT_FALSE(e.speedup);
  // A later kforge's kind is kept whole.
  auto later = read_text("kernel_signed", R"({"by":"someone"})");
  ASSERT_TRUE(later) << later.error;
  EXPECT_EQ(name_of(*later), "kernel_signed");
  EXPECT_EQ(to_json(*later).dump(), R"({"by":"someone"})");
}

/// docs/design.md's events table: the row that names `kind` in backquotes.
std::string documented_row(const std::string& design, const std::string& kind) {
  std::istringstream lines(design);
  for (std::string line; std::getline(lines, line);)
    if (line.rfind("| ", 0) == 0 && line.find("`" + kind + "`") != std::string::npos) return line;
  return "";
}

template <size_t... I>
void check_documented(const std::string& design, std::index_sequence<I...>) {
  auto one = [&](auto alternative) {
    using E = typename decltype(alternative)::type;
    const std::string name(events::name(E::kind));
    const std::string row = documented_row(design, name);
    ASSERT_FALSE(row.empty()) << name << " is not in docs/design.md's events table";
    for (const auto& key : keys<E>()) {
      if (key == "sequence" || key == "candidate" || key == "target") continue;
      EXPECT_TRUE(std::regex_search(row, std::regex("\\b" + key + "\\b")))
          << name << "'s field `" << key << "` is not in its row: " << row;
    }
  };
  (one(std::type_identity<std::variant_alternative_t<I, Event>>{}), ...);
}

// The dashboard reads the events' JSON as docs/design.md lists it: every kind and every field
// is there (sequence, candidate and target are said once for all).
TEST(Events, TheDesignDocumentListsEveryKindAndField) {
  std::ifstream in(test::source_dir() + "/docs/design.md");
  std::stringstream text;
  text << in.rdbuf();
  ASSERT_FALSE(text.str().empty());
  check_documented(text.str(), std::make_index_sequence<static_cast<size_t>(Kind::unknown)>{});
}

}  // namespace
}  // namespace kforge::events
