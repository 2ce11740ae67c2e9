// Which nodes share memory, and where an in-place change would be read stale
// (generator/aliases.hpp), on graphs shaped as the export writes them: an op's `out`, the parts of
// unbind and split_with_sizes, slices that overlap or not, and a view whose elements it cannot
// tell apart (a transpose), which counts as all of its memory.
#include <string>

#include <gtest/gtest.h>

#include "generator/aliases.hpp"
#include "generator/graph.hpp"
#include "tests/generator/graph_text.hpp"

namespace kforge::generator {
namespace {

using namespace graph_text;

/// A node's text: `op` of `args` (JSON), a float32 tensor of `shape` (a tuple's: a list of them).
std::string node(int id, const std::string& op, const std::string& args, const std::string& shape,
                 const std::string& kwargs = "{}") {
  const std::string meta = shape.rfind("[[", 0) == 0 ? "" : tensor(shape, "[1]");
  std::string tuple;
  if (meta.empty()) {  // "[[3, 4], [3, 4]]": one tensor each
    for (size_t at = 1; (at = shape.find('[', at)) != std::string::npos; ++at)
      tuple += (tuple.empty() ? "" : ", ") +
               tensor(shape.substr(at, shape.find(']', at) - at + 1), "[1]");
  }
  return R"({"id": )" + std::to_string(id) + R"(, "op": ")" + op + R"(", "args": )" + args +
         R"(, "kwargs": )" + kwargs + R"(, "meta": )" + (meta.empty() ? "[" + tuple + "]" : meta) +
         "}";
}

std::string input(int id, const std::string& shape) {
  return R"({"id": )" + std::to_string(id) + R"(, "op": "input", "arg": )" + std::to_string(id) +
         R"(, "name": "x", "meta": )" + tensor(shape, "[1]") + "}";
}

/// The output node the export ends a graph with, returning node `of`.
std::string output(int id, int of) {
  return R"(, {"id": )" + std::to_string(id) + R"(, "op": "output", "args": [{"node": )" +
         std::to_string(of) + "}]}";
}

const GraphNode& at(const Graph& g, int id) {
  return g.nodes[static_cast<size_t>(id)];
}

TEST(Aliases, AnOpsOutIsWhatItChanges) {
  // c = x * 2; v = c[:, 0:3]; add(x, 1, out=c); then v, or the add's result, read
  for (const bool through_v : {true, false}) {
    const auto g = graph_of_nodes(
        input(0, "[4, 6]") + ", " + node(1, "aten.mul.Tensor", R"([{"node": 0}, 2])", "[4, 6]") +
        ", " + node(2, "aten.slice.Tensor", R"([{"node": 1}, 1, 0, 3])", "[4, 3]") + ", " +
        node(3, "aten.add.out", R"([{"node": 0}, 1])", "[4, 6]", R"({"out": {"node": 1}})") + ", " +
        node(4, "aten.mul.Tensor", through_v ? R"([{"node": 2}, 2])" : R"([{"node": 3}, 2])",
             through_v ? "[4, 3]" : "[4, 6]") +
        output(5, 4));
    EXPECT_EQ(Aliases::changed_by(at(g, 3)), 1);
    EXPECT_EQ(Aliases::changed_by(at(g, 4)), -1);
    EXPECT_EQ(Aliases(g).stale_read(at(g, 3)), through_v ? 4 : -1) << through_v;
  }
}

TEST(Aliases, UnbindsPartsAreApartAndTheWholeIsNot) {
  // y = x * 2; a, b = y.unbind(0); a.add_(1); then b, or y, read
  for (const bool whole : {false, true}) {
    const auto g = graph_of_nodes(
        input(0, "[2, 5]") + ", " + node(1, "aten.mul.Tensor", R"([{"node": 0}, 2])", "[2, 5]") +
        ", " + node(2, "aten.unbind.int", R"([{"node": 1}])", "[[5], [5]]") + ", " +
        node(3, "getitem", R"([{"node": 2}, 0])", "[5]") + ", " +
        node(4, "getitem", R"([{"node": 2}, 1])", "[5]") + ", " +
        node(5, "aten.add_.Tensor", R"([{"node": 3}, 1])", "[5]") + ", " +
        node(6, "aten.mul.Tensor", whole ? R"([{"node": 1}, 3])" : R"([{"node": 4}, 3])",
             whole ? "[2, 5]" : "[5]") +
        output(7, 6));
    EXPECT_EQ(Aliases::changed_by(at(g, 5)), 3);
    EXPECT_EQ(Aliases(g).stale_read(at(g, 5)), whole ? 6 : -1) << whole;
  }
}

TEST(Aliases, SplitsPartsAreTheirSizesApart) {
  // y = x * 2; a, b = y.split([3, 7], 1); s = y[:, begin:end]; b.mul_(2); then s read
  for (const auto& [begin, end, stale] : {std::tuple{0, 3, false}, std::tuple{2, 4, true}}) {
    const auto g = graph_of_nodes(
        input(0, "[2, 10]") + ", " + node(1, "aten.mul.Tensor", R"([{"node": 0}, 2])", "[2, 10]") +
        ", " +
        node(2, "aten.split_with_sizes.default", R"([{"node": 1}, [3, 7], 1])",
             "[[2, 3], [2, 7]]") +
        ", " + node(3, "getitem", R"([{"node": 2}, 0])", "[2, 3]") + ", " +
        node(4, "getitem", R"([{"node": 2}, 1])", "[2, 7]") + ", " +
        node(5, "aten.slice.Tensor",
             R"([{"node": 1}, 1, )" + std::to_string(begin) + ", " + std::to_string(end) + "]",
             "[2, " + std::to_string(end - begin) + "]") +
        ", " + node(6, "aten.mul_.Tensor", R"([{"node": 4}, 2])", "[2, 7]") + ", " +
        node(7, "aten.neg.default", R"([{"node": 5}])", "[2, 1]") + output(8, 7));
    EXPECT_EQ(Aliases(g).stale_read(at(g, 6)), stale ? 7 : -1) << begin << ":" << end;
  }
}

TEST(Aliases, AViewWhoseElementsItCannotTellIsAllOfItsMemory) {
  // y = x * 2; t = y.t(); s = y[0:1]; t.relu_(); then s read: the transpose's elements are not a
  // box it knows, so they may be s's
  const auto g = graph_of_nodes(
      input(0, "[3, 4]") + ", " + node(1, "aten.mul.Tensor", R"([{"node": 0}, 2])", "[3, 4]") +
      ", " + node(2, "aten.t.default", R"([{"node": 1}])", "[4, 3]") + ", " +
      node(3, "aten.slice.Tensor", R"([{"node": 1}, 0, 0, 1])", "[1, 4]") + ", " +
      node(4, "aten.relu_.default", R"([{"node": 2}])", "[4, 3]") + ", " +
      node(5, "aten.neg.default", R"([{"node": 3}])", "[1, 4]") + output(6, 5));
  EXPECT_EQ(Aliases(g).stale_read(at(g, 4)), 5);
  // and a node that is no in-place change reads nothing stale
  EXPECT_EQ(Aliases(g).stale_read(at(g, 5)), -1);
}

}  // namespace
}  // namespace kforge::generator
