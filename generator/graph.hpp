// A direction's ATen graph for one config, as the exporter writes it
// (exporter/kforge_export/graph.py: nodes in execution order; arguments {"node": id}, numbers,
// lists; "meta" the shape, dtype and strides of each tensor a node makes).
#pragma once

#include <string>
#include <vector>

#include "common/json.hpp"
#include "common/result.hpp"

namespace kforge::generator {

struct GraphNode {
  int id = 0;
  std::string op;  ///< "input", "constant", "getitem", "output" or an ATen operator
  json::Value args, kwargs, meta;
  int arg = -1;      ///< input: which argument of the function
  int element = -1;  ///< input: which tensor of that argument, when it is a list of tensors
  std::string name;
  json::Value value;  ///< constant: its elements, row-major, where the export recorded them
};

struct Graph {
  std::vector<GraphNode> nodes;
};

/// Calls `f` with the id of every node an argument list refers to ({"node": id}, nested).
template <class F>
void each_reference(const GraphNode& n, F f) {
  std::vector<const json::Value*> stack{&n.args, &n.kwargs};
  while (!stack.empty()) {
    const json::Value* v = stack.back();
    stack.pop_back();
    if (v->is_array()) {
      for (const auto& x : v->as_array()) stack.push_back(&x);
    } else if (v->is_object() && (*v)["node"].is_integer()) {
      f(static_cast<int>((*v)["node"].as_int()));
    } else if (v->is_object()) {
      for (const auto& [k, x] : v->as_object()) stack.push_back(&x);
    }
  }
}

/// How many of `n`'s references (each_reference) are to node `id`.
inline int references_to(const GraphNode& n, int id) {
  int references = 0;
  each_reference(n, [&](int r) { references += r == id; });
  return references;
}

/// Reads `graph_<direction>_config<N>.json`, or says why it cannot.
Result<Graph> read_graph(const std::string& path);
Result<Graph> graph_of_document(const json::Value& doc);

}  // namespace kforge::generator
