#include "generator/graph.hpp"

#include <limits>

namespace kforge::generator {
namespace {

/// The value with the exporter's non-finite numbers ({"float": "inf" | "-inf" | "nan"}: JSON has
/// none; a masked score's float('-inf')) turned back into numbers.
json::Value with_non_finite(const json::Value& v) {
  if (v.is_array()) {
    json::Value out{json::Array{}};
    for (const auto& x : v.as_array()) out.push(with_non_finite(x));
    return out;
  }
  if (!v.is_object()) return v;
  const auto& o = v.as_object();
  if (o.size() == 1 && o[0].first == "float") {
    const std::string text = o[0].second.as_string();
    if (text == "inf") return json::Value(std::numeric_limits<double>::infinity());
    if (text == "-inf") return json::Value(-std::numeric_limits<double>::infinity());
    if (text == "nan") return json::Value(std::numeric_limits<double>::quiet_NaN());
  }
  json::Object out;
  for (const auto& [key, x] : o) out.emplace_back(key, with_non_finite(x));
  return json::Value(std::move(out));
}

}  // namespace

Result<Graph> graph_of_document(const json::Value& doc) {
  if (doc.contains("error"))
    return Result<Graph>::failure("the export could not trace the function: " +
                                  doc["error"].as_string());
  Graph g;
  for (const auto& n : doc["nodes"].as_array()) {
    GraphNode node;
    node.id = static_cast<int>(n["id"].as_int(-1));
    node.op = n["op"].as_string();
    node.args = with_non_finite(n["args"]);
    node.kwargs = with_non_finite(n["kwargs"]);
    node.meta = n["meta"];
    node.arg = static_cast<int>(n["arg"].as_int(-1));
    node.element = static_cast<int>(n["element"].as_int(-1));
    node.name = n["name"].as_string();
    node.value = with_non_finite(n["value"]);
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
