// A recurrent cell's gates as products of their own (generator/gate_products.hpp): on graphs shaped
// as the export writes an LSTM step's (addmm(b_hh, h, t(W_hh)) plus the step's input gates, then
// unsafe_split along 1 into the gates), each gate becomes its own product of W_hh's rows of that
// gate; what the pass cannot cut whole is left as it was.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/json.hpp"
#include "generator/gate_products.hpp"
#include "generator/graph.hpp"
#include "tests/generator/graph_text.hpp"

namespace kforge::generator {
namespace {

using namespace graph_text;

std::string node(int id, const std::string& op, const std::string& args, const std::string& meta) {
  return R"({"id": )" + std::to_string(id) + R"(, "op": ")" + op + R"(", "args": )" + args +
         R"(, "kwargs": {}, "meta": )" + meta + "}";
}

/// One LSTM-like step of batch `rows`, hidden 2 (gates of 8 columns): h (node 0, [rows, 3]), W_hh
/// (1, [8, 3]), b_hh (2, [8]), the input gates xg (3, [rows, 8]); addmm(b_hh, h, t(W_hh)) (5), its
/// sum with xg (6, add_), split into `pieces` along 1 (7) and the pieces read (8 ...) by the
/// output; with `product_read_again` the output reads the product itself too; with
/// `into_read_again` the sum is xg.add_(product), xg changed in place, and the output reads xg.
Graph step(int rows, int pieces, bool product_read_again = false, bool into_read_again = false) {
  const std::string r = std::to_string(rows);
  const int width = 8 / pieces;
  std::string split_meta = "[";
  for (int i = 0; i < pieces; ++i)
    split_meta += (i ? ", " : "") + tensor("[" + r + ", " + std::to_string(width) + "]", "[8, 1]");
  split_meta += "]";
  std::string nodes =
      R"({"id": 0, "op": "input", "arg": 0, "name": "h", "meta": )" +
      tensor("[" + r + ", 3]", "[3, 1]") + R"(},
    {"id": 1, "op": "input", "arg": 1, "name": "w_hh", "meta": )" +
      tensor("[8, 3]", "[3, 1]") + R"(},
    {"id": 2, "op": "input", "arg": 2, "name": "b_hh", "meta": )" +
      tensor("[8]", "[1]") + R"(},
    {"id": 3, "op": "input", "arg": 3, "name": "xg", "meta": )" +
      tensor("[" + r + ", 8]", "[8, 1]") + "},\n" +
      node(4, "aten.t.default", R"([{"node": 1}])", tensor("[3, 8]", "[1, 3]")) + ",\n" +
      node(5, "aten.addmm.default", R"([{"node": 2}, {"node": 0}, {"node": 4}])",
           tensor("[" + r + ", 8]", "[8, 1]")) +
      ",\n" +
      node(6, "aten.add_.Tensor",
           into_read_again ? R"([{"node": 3}, {"node": 5}])" : R"([{"node": 5}, {"node": 3}])",
           tensor("[" + r + ", 8]", "[8, 1]")) +
      ",\n" +
      node(7, "aten.unsafe_split.Tensor", R"([{"node": 6}, )" + std::to_string(width) + ", 1]",
           split_meta);
  std::string outputs = product_read_again ? R"({"node": 5})"
                        : into_read_again  ? R"({"node": 3})"
                                           : "";
  for (int i = 0; i < pieces; ++i) {
    nodes += ",\n" + node(8 + i, "getitem", R"([{"node": 7}, )" + std::to_string(i) + "]",
                          tensor("[" + r + ", " + std::to_string(width) + "]", "[8, 1]"));
    outputs +=
        std::string(outputs.empty() ? "" : ", ") + R"({"node": )" + std::to_string(8 + i) + "}";
  }
  nodes += R"(,
    {"id": )" +
           std::to_string(8 + pieces) + R"(, "op": "output", "args": [[)" + outputs + "]]}";
  return graph_of_nodes(nodes);
}

const GraphNode& at(const Graph& g, const json::Value& v) {
  return g.nodes.at(static_cast<size_t>(ref(v)));
}

TEST(GateProducts, EachGateIsAProductOfItsOwnRows) {
  Graph g = step(10, 4);
  EXPECT_EQ(split_gate_products(g), 1u);
  for (size_t i = 0; i < g.nodes.size(); ++i) EXPECT_EQ(g.nodes[i].id, static_cast<int>(i));
  for (const auto& n : g.nodes) {
    EXPECT_NE(n.op, "aten.unsafe_split.Tensor");
    EXPECT_NE(n.op, "aten.add_.Tensor");
  }
  const auto& outputs = g.nodes.back().args[0].as_array();
  ASSERT_EQ(outputs.size(), 4u);
  for (int gate = 0; gate < 4; ++gate) {
    // the gate: its product plus its columns of xg
    const auto& sum = at(g, outputs[static_cast<size_t>(gate)]);
    EXPECT_EQ(sum.op, "aten.add.Tensor");
    EXPECT_EQ(sum.meta["shape"].dump(), "[10,2]");
    const auto& product = at(g, sum.args[0]);
    ASSERT_EQ(product.op, "aten.addmm.default");
    EXPECT_EQ(product.meta["shape"].dump(), "[10,2]");
    EXPECT_EQ(ref(product.args[1]), 0);  // h as it was
    const auto& bias = at(g, product.args[0]);
    EXPECT_EQ(bias.op, "aten.slice.Tensor");
    EXPECT_EQ(bias.args.dump(), R"([{"node":2},0,)" + std::to_string(2 * gate) + "," +
                                    std::to_string(2 * gate + 2) + "]");
    // t of W_hh's rows of the gate
    const auto& t = at(g, product.args[2]);
    EXPECT_EQ(t.op, "aten.t.default");
    EXPECT_EQ(t.meta["shape"].dump(), "[3,2]");
    EXPECT_EQ(t.meta["stride"].dump(), "[1,3]");
    const auto& rows = at(g, t.args[0]);
    EXPECT_EQ(rows.op, "aten.slice.Tensor");
    EXPECT_EQ(rows.args.dump(), R"([{"node":1},0,)" + std::to_string(2 * gate) + "," +
                                    std::to_string(2 * gate + 2) + "]");
    EXPECT_EQ(rows.meta["shape"].dump(), "[2,3]");
    // xg's columns, its strides kept
    const auto& columns = at(g, sum.args[1]);
    EXPECT_EQ(columns.op, "aten.slice.Tensor");
    EXPECT_EQ(columns.args.dump(), R"([{"node":3},1,)" + std::to_string(2 * gate) + "," +
                                       std::to_string(2 * gate + 2) + "]");
    EXPECT_EQ(columns.meta["stride"].dump(), "[8,1]");
  }
}

void expect_unchanged(const Graph& before, size_t cut_count, Graph g) {
  EXPECT_EQ(split_gate_products(g), cut_count);
  ASSERT_EQ(g.nodes.size(), before.nodes.size());
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    EXPECT_EQ(g.nodes[i].op, before.nodes[i].op);
    EXPECT_EQ(g.nodes[i].args.dump(), before.nodes[i].args.dump());
  }
}

// Left whole: 16 rows or more (the tiled GEMM's product), a product read elsewhere too (its
// columns are needed whole), more gates than one kernel's products (schedule.cpp's four), a sum
// into a tensor in place (add_) that is read again (dropping the add_ would lose the change).
TEST(GateProducts, WhatCannotBeCutWholeIsLeftAsItWas) {
  for (const Graph& g : {step(16, 4), step(10, 4, true), step(10, 8), step(10, 4, false, true)})
    expect_unchanged(g, 0, g);
}

}  // namespace
}  // namespace kforge::generator
