// An RNN's input products batched (generator/step_products.hpp): on graphs shaped as the export
// writes an LSTM layer's (x unbound along its steps, each step's addmm(b_ih, x_t, t(W_ih))), the T
// products become one over the sequence, each step reading its piece; what is not a whole family
// of one unbind, one weight and one bias is left as it was.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/json.hpp"
#include "generator/graph.hpp"
#include "generator/step_products.hpp"
#include "tests/generator/graph_text.hpp"

namespace kforge::generator {
namespace {

using namespace graph_text;

std::string meta(const std::string& shape, const std::string& stride) {
  return R"("meta": )" + tensor(shape, stride);
}

/// An LSTM-like layer of three steps, batch 2, inputs of 4, gates of 5: x (node 0, [3, 2, 4]),
/// W_ih (1), b_ih (2), h0 (3, [1, 2, 5]), W_hh (4, [5, 5]), b_hh (5); `steps` of the three steps'
/// input products read x's pieces (at `pieces`), the first step's recurrent product reads h0's.
Graph layer(const std::vector<int>& pieces) {
  std::string nodes = R"({"id": 0, "op": "input", "arg": 0, "name": "x", )" +
                      meta("[3, 2, 4]", "[8, 4, 1]") + R"(},
    {"id": 1, "op": "input", "arg": 1, "name": "w_ih", )" +
                      meta("[5, 4]", "[4, 1]") + R"(},
    {"id": 2, "op": "input", "arg": 2, "name": "b_ih", )" +
                      meta("[5]", "[1]") + R"(},
    {"id": 3, "op": "input", "arg": 3, "name": "h0", )" +
                      meta("[1, 2, 5]", "[10, 5, 1]") + R"(},
    {"id": 4, "op": "input", "arg": 4, "name": "w_hh", )" +
                      meta("[5, 5]", "[5, 1]") + R"(},
    {"id": 5, "op": "input", "arg": 5, "name": "b_hh", )" +
                      meta("[5]", "[1]") + R"(},
    {"id": 6, "op": "aten.unbind.int", "args": [{"node": 0}], "kwargs": {}, "meta": [)" +
                      tensor("[2, 4]", "[4, 1]") + ", " + tensor("[2, 4]", "[4, 1]") + ", " +
                      tensor("[2, 4]", "[4, 1]") + R"(]},
    {"id": 7, "op": "aten.unbind.int", "args": [{"node": 3}], "kwargs": {}, "meta": [)" +
                      tensor("[2, 5]", "[5, 1]") + R"(]},
    {"id": 8, "op": "getitem", "args": [{"node": 7}, 0], "kwargs": {}, )" +
                      meta("[2, 5]", "[5, 1]") + "}";
  int id = 9;
  std::string products;
  for (int piece : pieces) {
    const int get = id++, t = id++, mm = id++;
    nodes +=
        R"(,
    {"id": )" +
        std::to_string(get) + R"(, "op": "getitem", "args": [{"node": 6}, )" +
        std::to_string(piece) + R"(], "kwargs": {}, )" + meta("[2, 4]", "[4, 1]") + R"(},
    {"id": )" +
        std::to_string(t) + R"(, "op": "aten.t.default", "args": [{"node": 1}], "kwargs": {}, )" +
        meta("[4, 5]", "[1, 4]") + R"(},
    {"id": )" +
        std::to_string(mm) + R"(, "op": "aten.addmm.default", "args": [{"node": 2}, {"node": )" +
        std::to_string(get) + R"(}, {"node": )" + std::to_string(t) + R"(}], "kwargs": {}, )" +
        meta("[2, 5]", "[5, 1]") + "}";
    products +=
        std::string(products.empty() ? "" : ", ") + R"({"node": )" + std::to_string(mm) + "}";
  }
  const int t = id++, recurrent = id++, out = id++;
  nodes += R"(,
    {"id": )" +
           std::to_string(t) +
           R"(, "op": "aten.t.default", "args": [{"node": 4}], "kwargs": {}, )" +
           meta("[5, 5]", "[1, 5]") + R"(},
    {"id": )" +
           std::to_string(recurrent) +
           R"(, "op": "aten.addmm.default", "args": [{"node": 5}, {"node": 8}, {"node": )" +
           std::to_string(t) + R"(}], "kwargs": {}, )" + meta("[2, 5]", "[5, 1]") + R"(},
    {"id": )" +
           std::to_string(out) + R"(, "op": "output", "args": [[)" + products + R"(, {"node": )" +
           std::to_string(recurrent) + "}]]}";
  return graph_of_nodes(nodes);
}

TEST(StepProducts, AnUnboundSequencesProductsOfOneWeightBecomeOneProduct) {
  const Graph before = layer({0, 1, 2});
  Graph g = before;
  EXPECT_EQ(batch_step_products(g), 1u);
  ASSERT_EQ(g.nodes.size(), before.nodes.size() + 5);
  for (size_t i = 0; i < g.nodes.size(); ++i) EXPECT_EQ(g.nodes[i].id, static_cast<int>(i));
  // the new nodes, before the first step's product (node 11, now 16)
  const auto& reshape = g.nodes[11];
  EXPECT_EQ(reshape.op, "aten.reshape.default");
  EXPECT_EQ(ref(reshape.args[0]), 0);
  EXPECT_EQ(reshape.args[1].dump(), "[6,4]");
  EXPECT_EQ(g.nodes[12].op, "aten.t.default");
  EXPECT_EQ(ref(g.nodes[12].args[0]), 1);
  const auto& product = g.nodes[13];
  EXPECT_EQ(product.op, "aten.addmm.default");
  EXPECT_EQ(ref(product.args[0]), 2);
  EXPECT_EQ(ref(product.args[1]), 11);
  EXPECT_EQ(ref(product.args[2]), 12);
  EXPECT_EQ(product.meta["shape"].dump(), "[6,5]");
  EXPECT_EQ(g.nodes[14].op, "aten.view.default");
  EXPECT_EQ(g.nodes[14].args[1].dump(), "[3,2,5]");
  EXPECT_EQ(g.nodes[15].op, "aten.unbind.int");
  EXPECT_EQ(g.nodes[15].meta.as_array().size(), 3u);
  // each step's product its piece, in the output's order; the recurrent product as it was
  const auto& outputs = g.nodes.back().args[0].as_array();
  ASSERT_EQ(outputs.size(), 4u);
  for (int step = 0; step < 3; ++step) {
    const auto& piece = g.nodes[static_cast<size_t>(ref(outputs[static_cast<size_t>(step)]))];
    EXPECT_EQ(piece.op, "getitem");
    EXPECT_EQ(ref(piece.args[0]), 15);
    EXPECT_EQ(piece.args[1].as_int(), step);
    EXPECT_EQ(piece.meta["shape"].dump(), "[2,5]");
  }
  const auto& recurrent = g.nodes[static_cast<size_t>(ref(outputs[3]))];
  EXPECT_EQ(recurrent.op, "aten.addmm.default");
  EXPECT_EQ(ref(recurrent.args[0]), 5);
  EXPECT_EQ(g.nodes[static_cast<size_t>(ref(recurrent.args[1]))].op, "getitem");
  EXPECT_EQ(ref(g.nodes[static_cast<size_t>(ref(recurrent.args[2]))].args[0]), 4);
}

// Steps read in reverse (a bidirectional layer's backward direction): batched all the same, each
// product the piece of its own step.
TEST(StepProducts, StepsReadInAnyOrderTakeTheirOwnPieces) {
  Graph g = layer({2, 1, 0});
  EXPECT_EQ(batch_step_products(g), 1u);
  const auto& outputs = g.nodes.back().args[0].as_array();
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(g.nodes[static_cast<size_t>(ref(outputs[static_cast<size_t>(i)]))].args[1].as_int(),
              2 - i);
}

// A step read by two products of the family (the same product twice): both its piece.
TEST(StepProducts, AStepReadTwiceIsOnePieceForBoth) {
  Graph g = layer({0, 1, 2, 1});
  EXPECT_EQ(batch_step_products(g), 1u);
  const auto& outputs = g.nodes.back().args[0].as_array();
  for (size_t i = 0; i < 4; ++i) {
    const auto& piece = g.nodes[static_cast<size_t>(ref(outputs[i]))];
    EXPECT_EQ(piece.op, "getitem");
    EXPECT_EQ(piece.args[1].as_int(), i == 3 ? 1 : static_cast<int64_t>(i));
  }
}

// A step missing: not a whole family, left as it was.
TEST(StepProducts, NoWholeFamilyLeavesTheGraphAsItWas) {
  for (const auto& pieces : std::vector<std::vector<int>>{{0, 1}, {0, 1, 1}, {0}}) {
    const Graph before = layer(pieces);
    Graph g = before;
    EXPECT_EQ(batch_step_products(g), 0u);
    ASSERT_EQ(g.nodes.size(), before.nodes.size());
    for (size_t i = 0; i < g.nodes.size(); ++i) {
      EXPECT_EQ(g.nodes[i].op, before.nodes[i].op);
      EXPECT_EQ(g.nodes[i].args.dump(), before.nodes[i].args.dump());
    }
  }
}

/// A batch-first recurrence as a hand-written one exports (`xt @ w` for xt in x.unbind(1)): x (node
/// 0, [2, 3, 4]: batch 2, 3 steps), w (1, [4, 5]), and three steps' mm(getitem(unbind(S, 1), i),
/// w); S is x itself or, with `stacked`, torch.stack of three [2, 4] tensors along 1 (a layer's
/// outputs, here pieces of x unbound along 1); with `by_name` the unbind's dimension is a keyword.
Graph batch_first(bool stacked, bool by_name = false) {
  std::string nodes = R"({"id": 0, "op": "input", "arg": 0, "name": "x", )" +
                      meta("[2, 3, 4]", "[12, 4, 1]") + R"(},
    {"id": 1, "op": "input", "arg": 1, "name": "w", )" +
                      meta("[4, 5]", "[5, 1]") + R"(},
    {"id": 2, "op": "aten.unbind.int", )" +
                      (by_name ? R"("args": [{"node": 0}], "kwargs": {"dim": 1})"
                               : R"("args": [{"node": 0}, 1], "kwargs": {})") +
                      R"(, "meta": [)" + tensor("[2, 4]", "[12, 1]") + ", " +
                      tensor("[2, 4]", "[12, 1]") + ", " + tensor("[2, 4]", "[12, 1]") + "]}";
  int id = 3, sequence = 0;
  if (stacked) {
    std::string parts;
    for (int i = 0; i < 3; ++i) {
      nodes += R"(,
    {"id": )" + std::to_string(id) +
               R"(, "op": "getitem", "args": [{"node": 2}, )" + std::to_string(i) +
               R"(], "kwargs": {}, )" + meta("[2, 4]", "[12, 1]") + "}";
      parts += std::string(parts.empty() ? "" : ", ") + R"({"node": )" + std::to_string(id++) + "}";
    }
    sequence = id++;
    nodes += R"(,
    {"id": )" +
             std::to_string(sequence) + R"(, "op": "aten.stack.default", "args": [[)" + parts +
             R"(], 1], "kwargs": {}, )" + meta("[2, 3, 4]", "[12, 4, 1]") + R"(},
    {"id": )" +
             std::to_string(id) + R"(, "op": "aten.unbind.int", "args": [{"node": )" +
             std::to_string(sequence) + R"(}, 1], "kwargs": {}, "meta": [)" +
             tensor("[2, 4]", "[12, 1]") + ", " + tensor("[2, 4]", "[12, 1]") + ", " +
             tensor("[2, 4]", "[12, 1]") + "]}";
    ++id;
  }
  const int unbind = stacked ? id - 1 : 2;
  std::string products;
  for (int i = 0; i < 3; ++i) {
    const int get = id++, mm = id++;
    nodes +=
        R"(,
    {"id": )" +
        std::to_string(get) + R"(, "op": "getitem", "args": [{"node": )" + std::to_string(unbind) +
        "}, " + std::to_string(i) + R"(], "kwargs": {}, )" + meta("[2, 4]", "[12, 1]") + R"(},
    {"id": )" +
        std::to_string(mm) + R"(, "op": "aten.mm.default", "args": [{"node": )" +
        std::to_string(get) + R"(}, {"node": 1}], "kwargs": {}, )" + meta("[2, 5]", "[5, 1]") + "}";
    products +=
        std::string(products.empty() ? "" : ", ") + R"({"node": )" + std::to_string(mm) + "}";
  }
  nodes += R"(,
    {"id": )" +
           std::to_string(id) + R"(, "op": "output", "args": [[)" + products + "]]}";
  return graph_of_nodes(nodes);
}

/// A hand-written LSTM-like recurrence whose gates' weights are one parameter (`xt @ w[g]` for xt
/// in x.unbind(0)): x (node 0, [3, 2, 4]), w (1, [2, 4, 5]: two gates), and at each of the three
/// steps, for each gate, select(w, 0, g) taken afresh and mm(x_t, that select); w is also changed
/// after the steps: with `changed` "in place" by `add_` through a view of it, with "out" as the
/// `out` argument of an op.
Graph selected_weights(const std::string& changed = "") {
  std::string nodes = R"({"id": 0, "op": "input", "arg": 0, "name": "x", )" +
                      meta("[3, 2, 4]", "[8, 4, 1]") + R"(},
    {"id": 1, "op": "input", "arg": 1, "name": "w", )" +
                      meta("[2, 4, 5]", "[20, 5, 1]") + R"(},
    {"id": 2, "op": "aten.unbind.int", "args": [{"node": 0}], "kwargs": {}, "meta": [)" +
                      tensor("[2, 4]", "[4, 1]") + ", " + tensor("[2, 4]", "[4, 1]") + ", " +
                      tensor("[2, 4]", "[4, 1]") + "]}";
  int id = 3;
  std::string products;
  for (int step = 0; step < 3; ++step) {
    const int get = id++;
    nodes += R"(,
    {"id": )" +
             std::to_string(get) + R"(, "op": "getitem", "args": [{"node": 2}, )" +
             std::to_string(step) + R"(], "kwargs": {}, )" + meta("[2, 4]", "[4, 1]") + "}";
    for (int gate = 0; gate < 2; ++gate) {
      const int select = id++, mm = id++;
      nodes += R"(,
    {"id": )" + std::to_string(select) +
               R"(, "op": "aten.select.int", "args": [{"node": 1}, 0, )" + std::to_string(gate) +
               R"(], "kwargs": {}, )" + meta("[4, 5]", "[5, 1]") + R"(},
    {"id": )" + std::to_string(mm) +
               R"(, "op": "aten.mm.default", "args": [{"node": )" + std::to_string(get) +
               R"(}, {"node": )" + std::to_string(select) + R"(}], "kwargs": {}, )" +
               meta("[2, 5]", "[5, 1]") + "}";
      products +=
          std::string(products.empty() ? "" : ", ") + R"({"node": )" + std::to_string(mm) + "}";
    }
  }
  if (changed == "in place") {
    const int view = id++, add = id++;
    nodes += R"(,
    {"id": )" +
             std::to_string(view) +
             R"(, "op": "aten.select.int", "args": [{"node": 1}, 0, 1], "kwargs": {}, )" +
             meta("[4, 5]", "[5, 1]") + R"(},
    {"id": )" +
             std::to_string(add) + R"(, "op": "aten.add_.Tensor", "args": [{"node": )" +
             std::to_string(view) + R"(}, 1.0], "kwargs": {}, )" + meta("[4, 5]", "[5, 1]") + "}";
  } else if (changed == "out") {
    nodes +=
        R"(,
    {"id": )" +
        std::to_string(id++) +
        R"(, "op": "aten.mul.out", "args": [{"node": 1}, 2.0], "kwargs": {"out": {"node": 1}}, )" +
        meta("[2, 4, 5]", "[20, 5, 1]") + "}";
  }
  nodes += R"(,
    {"id": )" +
           std::to_string(id) + R"(, "op": "output", "args": [[)" + products + "]]}";
  return graph_of_nodes(nodes);
}

/// The node of `g` whose op is `op`, the last one, or null.
const GraphNode* last_of(const Graph& g, const std::string& op) {
  for (size_t i = g.nodes.size(); i-- > 0;)
    if (g.nodes[i].op == op) return &g.nodes[i];
  return nullptr;
}

/// What batching batch_first(false) makes: one mm of x's [6, 4] rows by w, viewed as [2, 3, 5]
/// and unbound along 1, each step's piece rows 15 apart.
void expect_one_batch_first_product(const Graph& g) {
  const auto* product = last_of(g, "aten.mm.default");
  ASSERT_NE(product, nullptr);
  EXPECT_EQ(product->args.as_array().size(), 2u);
  EXPECT_EQ(product->meta["shape"].dump(), "[6,5]");
  const auto& rows = g.nodes[static_cast<size_t>(ref(product->args[0]))];
  EXPECT_EQ(rows.op, "aten.reshape.default");
  EXPECT_EQ(ref(rows.args[0]), 0);
  EXPECT_EQ(ref(product->args[1]), 1);
  const auto* unbind = last_of(g, "aten.unbind.int");
  ASSERT_NE(unbind, nullptr);
  EXPECT_EQ(unbind->args[1].as_int(), 1);
  EXPECT_EQ(unbind->meta[0]["stride"].dump(), "[15,1]");
  const auto& outputs = g.nodes.back().args[0].as_array();
  for (size_t i = 0; i < 3; ++i) {
    const auto& piece = g.nodes[static_cast<size_t>(ref(outputs[i]))];
    EXPECT_EQ(ref(piece.args[0]), unbind->id);
    EXPECT_EQ(piece.args[1].as_int(), static_cast<int64_t>(i));
    EXPECT_EQ(piece.meta["stride"].dump(), "[15,1]");
  }
}

// Steps unbound along dimension 1 of a batch-first input, each multiplied by w with mm (no bias,
// the weight not transposed): one product of the [6, 4] rows, viewed as [2, 3, 5] and unbound
// along 1, each step's piece rows 15 apart; the unbind's dimension given by position or by name.
TEST(StepProducts, ABatchFirstInputsStepsMultipliedWithMmBecomeOneProduct) {
  for (const bool by_name : {false, true}) {
    SCOPED_TRACE(by_name ? "unbind(x, dim=1)" : "unbind(x, 1)");
    Graph g = batch_first(false, by_name);
    EXPECT_EQ(batch_step_products(g), 1u);
    expect_one_batch_first_product(g);
  }
}

// The steps of a stack along 1 (a batch-first layer's outputs that the next layer unbinds): the
// parts stacked along 0 instead, so that the rows are [steps * batch] and each piece contiguous.
TEST(StepProducts, AStackAlongOneIsRestackedAlongZero) {
  Graph g = batch_first(true);
  EXPECT_EQ(batch_step_products(g), 1u);
  const auto* stack = last_of(g, "aten.stack.default");
  ASSERT_NE(stack, nullptr);
  EXPECT_EQ(stack->args.as_array().size(), 1u);  // along 0
  EXPECT_EQ(stack->meta["shape"].dump(), "[3,2,4]");
  EXPECT_EQ(stack->args[0].as_array().size(), 3u);
  const auto* unbind = last_of(g, "aten.unbind.int");
  ASSERT_NE(unbind, nullptr);
  EXPECT_EQ(unbind->args.as_array().size(), 1u);
  EXPECT_EQ(unbind->meta[0]["stride"].dump(), "[5,1]");
  const auto* product = last_of(g, "aten.mm.default");
  ASSERT_NE(product, nullptr);
  EXPECT_EQ(ref(g.nodes[static_cast<size_t>(ref(product->args[0]))].args[0]), stack->id);
}

// A gate's weight selected afresh at each step (`xt @ w[g]`): the selects of one gate are one
// weight, so each gate's three products are one, which reads the gate's first select; where w is
// changed in place (through a view of it, or as an op's `out`), a select need not be the same
// weight at each step and nothing is batched.
TEST(StepProducts, AGatesWeightSelectedAtEachStepIsOneWeight) {
  Graph g = selected_weights();
  EXPECT_EQ(batch_step_products(g), 2u);
  std::vector<int> gates;
  for (const auto& n : g.nodes) {
    if (n.op != "aten.mm.default") continue;
    EXPECT_EQ(n.meta["shape"].dump(), "[6,5]");
    const auto& select = g.nodes[static_cast<size_t>(ref(n.args[1]))];
    EXPECT_EQ(select.op, "aten.select.int");
    EXPECT_EQ(ref(select.args[0]), 1);
    gates.push_back(static_cast<int>(select.args[2].as_int()));
  }
  EXPECT_EQ(gates, (std::vector<int>{0, 1}));
  for (const auto& out : g.nodes.back().args[0].as_array())
    EXPECT_EQ(g.nodes[static_cast<size_t>(ref(out))].op, "getitem");

  for (const std::string how : {"in place", "out"}) {
    Graph changed = selected_weights(how);
    const size_t nodes = changed.nodes.size();
    EXPECT_EQ(batch_step_products(changed), 0u) << how;
    EXPECT_EQ(changed.nodes.size(), nodes) << how;
  }
}

}  // namespace
}  // namespace kforge::generator
