// Small helpers of the graph rewrites that run before the lowering (step_products.hpp,
// gate_products.hpp): references to nodes, metas of new nodes, renumbering.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "generator/graph.hpp"

namespace kforge::generator::graph_edit {

/// The node `v` refers to ({"node": id}), or -1.
inline int reference(const json::Value& v) {
  return v.is_object() && v["node"].is_integer() ? static_cast<int>(v["node"].as_int()) : -1;
}

inline json::Value node_ref(int id) {
  return json::Value(json::Object{{"node", json::Value(int64_t{id})}});
}

inline json::Value int_list(const std::vector<int64_t>& xs) {
  json::Array a;
  for (int64_t x : xs) a.emplace_back(x);
  return json::Value(std::move(a));
}

inline std::vector<int64_t> shape_of(const json::Value& meta) {
  std::vector<int64_t> shape;
  for (const auto& x : meta["shape"].as_array()) shape.push_back(x.as_int());
  return shape;
}

inline std::vector<int64_t> strides_of(const json::Value& meta) {
  std::vector<int64_t> strides;
  for (const auto& x : meta["stride"].as_array()) strides.push_back(x.as_int());
  return strides;
}

inline json::Value tensor_meta(const std::vector<int64_t>& shape,
                               const std::vector<int64_t>& strides, const std::string& dtype) {
  return json::Value(json::Object{
      {"shape", int_list(shape)}, {"dtype", json::Value(dtype)}, {"stride", int_list(strides)}});
}

/// A contiguous tensor's meta (its shape, dtype and row-major strides).
inline json::Value contiguous_meta(const std::vector<int64_t>& shape, const std::string& dtype) {
  std::vector<int64_t> strides(shape.size());
  int64_t stride = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    strides[d] = stride;
    stride *= shape[d];
  }
  return tensor_meta(shape, strides, dtype);
}

/// `v` with each reference to node i made one to node `to[i]`.
inline json::Value renumbered(const json::Value& v, const std::vector<int>& to) {
  if (v.is_array()) {
    json::Array a;
    for (const auto& x : v.as_array()) a.push_back(renumbered(x, to));
    return json::Value(std::move(a));
  }
  if (!v.is_object()) return v;
  json::Object o;
  for (const auto& [key, x] : v.as_object())
    o.emplace_back(key, key == "node" && x.is_integer()
                            ? json::Value(int64_t{to[static_cast<size_t>(x.as_int())]})
                            : renumbered(x, to));
  return json::Value(std::move(o));
}

/// A node of `op` appended to `out` with its id its place; returns the id.
inline int append(Graph& out, std::string op, json::Value args, json::Value meta) {
  GraphNode m;
  m.id = static_cast<int>(out.nodes.size());
  m.op = std::move(op);
  m.args = std::move(args);
  m.kwargs = json::Value(json::Object{});
  m.meta = std::move(meta);
  out.nodes.push_back(std::move(m));
  return out.nodes.back().id;
}

/// Node `n` copied to the end of `out`, its references renumbered by `to`; returns its new id.
inline int copy_renumbered(Graph& out, const GraphNode& n, const std::vector<int>& to) {
  GraphNode m = n;
  m.id = static_cast<int>(out.nodes.size());
  m.args = renumbered(n.args, to);
  m.kwargs = renumbered(n.kwargs, to);
  out.nodes.push_back(std::move(m));
  return out.nodes.back().id;
}

}  // namespace kforge::generator::graph_edit
