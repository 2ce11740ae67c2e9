// Graphs written as the export writes them, for the graph rewrites' tests (step_products_test,
// gate_products_test).
#pragma once

#include <string>

#include <gtest/gtest.h>

#include "common/json.hpp"
#include "generator/graph.hpp"

namespace kforge::generator::graph_text {

/// A float32 tensor's meta.
inline std::string tensor(const std::string& shape, const std::string& stride) {
  return R"({"shape": )" + shape + R"(, "dtype": "float32", "stride": )" + stride + "}";
}

/// The graph of `nodes`, the text of its nodes' objects separated by commas.
inline Graph graph_of_nodes(const std::string& nodes) {
  auto doc = json::parse("{\"nodes\": [" + nodes + "]}");
  EXPECT_TRUE(doc) << doc.error;
  auto g = graph_of_document(*doc.value);
  EXPECT_TRUE(g) << g.error;
  return *g;
}

/// The node a reference names ({"node": id}), or -1.
inline int ref(const json::Value& v) {
  return static_cast<int>(v["node"].as_int(-1));
}

}  // namespace kforge::generator::graph_text
