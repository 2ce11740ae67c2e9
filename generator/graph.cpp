#include "generator/graph.hpp"

namespace kforge::generator {

Result<Graph> graph_of_document(const json::Value& doc) {
  if (doc.contains("error"))
    return Result<Graph>::failure("the export could not trace the function: " +
                                  doc["error"].as_string());
  Graph g;
  for (const auto& n : doc["nodes"].as_array()) {
    GraphNode node;
    node.id = static_cast<int>(n["id"].as_int(-1));
    node.op = n["op"].as_string();
    node.args = n["args"];
    node.kwargs = n["kwargs"];
    node.meta = n["meta"];
    node.arg = static_cast<int>(n["arg"].as_int(-1));
    node.element = static_cast<int>(n["element"].as_int(-1));
    node.name = n["name"].as_string();
    node.value = n["value"];
    if (node.id != static_cast<int>(g.nodes.size()))
      return Result<Graph>::failure("graph node " + std::to_string(g.nodes.size()) + " has id " +
                                    std::to_string(node.id));
    g.nodes.push_back(std::move(node));
  }
  if (g.nodes.empty() || g.nodes.back().op != "output")
    return Result<Graph>::failure("the graph does not end with its output node");
  return {std::move(g), ""};
}

Result<Graph> read_graph(const std::string& path) {
  auto doc = json::parse_file(path);
  if (!doc.value) return Result<Graph>::failure(path + ": " + doc.error);
  auto g = graph_of_document(*doc.value);
  if (!g) g.error = path + ": " + g.error;
  return g;
}

}  // namespace kforge::generator
