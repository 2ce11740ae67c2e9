#include "generator/step_products.hpp"

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "generator/lowering.hpp"

namespace kforge::generator {
namespace {

/// The node `v` refers to ({"node": id}), or -1.
int reference(const json::Value& v) {
  return v.is_object() && v["node"].is_integer() ? static_cast<int>(v["node"].as_int()) : -1;
}

json::Value node_ref(int id) {
  return json::Value(json::Object{{"node", json::Value(int64_t{id})}});
}

json::Value int_list(const std::vector<int64_t>& xs) {
  json::Array a;
  for (int64_t x : xs) a.emplace_back(x);
  return json::Value(std::move(a));
}

/// A contiguous tensor's meta (its shape, dtype and row-major strides).
json::Value contiguous_meta(const std::vector<int64_t>& shape, const std::string& dtype) {
  std::vector<int64_t> strides(shape.size());
  int64_t stride = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    strides[d] = stride;
    stride *= shape[d];
  }
  return json::Value(json::Object{
      {"shape", int_list(shape)}, {"dtype", json::Value(dtype)}, {"stride", int_list(strides)}});
}

std::vector<int64_t> shape_of(const json::Value& meta) {
  std::vector<int64_t> shape;
  for (const auto& x : meta["shape"].as_array()) shape.push_back(x.as_int());
  return shape;
}

/// `v` with each reference to node i made one to node `to[i]`.
json::Value renumbered(const json::Value& v, const std::vector<int>& to) {
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

/// The products of one family: the steps of one unbind, with one weight and one bias.
struct Family {
  int unbind = -1, sequence = -1, weight = -1, bias = -1;
  std::vector<int> products;  ///< by step, -1 where none was found
  bool repeated = false;      ///< a step read by two products
  int first() const {
    int f = -1;
    for (int p : products)
      if (p >= 0 && (f < 0 || p < f)) f = p;
    return f;
  }
  bool whole() const {
    if (repeated || products.size() < 2) return false;
    for (int p : products)
      if (p < 0) return false;
    return true;
  }
};

/// The families of `g`'s step products, keyed by unbind, weight and bias.
std::map<std::tuple<int, int, int>, Family> families_of(const Graph& g) {
  std::map<std::tuple<int, int, int>, Family> out;
  const auto node = [&](int id) -> const GraphNode* {
    return id >= 0 && static_cast<size_t>(id) < g.nodes.size() ? &g.nodes[static_cast<size_t>(id)]
                                                               : nullptr;
  };
  for (const auto& n : g.nodes) {
    if (n.op != "aten.addmm.default" || n.args.as_array().size() != 3 ||
        !n.kwargs.as_object().empty())
      continue;
    const GraphNode* bias = node(reference(n.args[0]));
    const GraphNode* piece = node(reference(n.args[1]));
    const GraphNode* t = node(reference(n.args[2]));
    if (!bias || !piece || !t || piece->op != "getitem" || base_name(t->op) != "t") continue;
    if (shape_of(bias->meta).size() != 1 || !piece->args[1].is_integer()) continue;
    const GraphNode* unbind = node(reference(piece->args[0]));
    if (!unbind || unbind->op != "aten.unbind.int" || !unbind->meta.is_array()) continue;
    const auto& ua = unbind->args.as_array();
    if (ua.size() > 2 || (ua.size() == 2 && ua[1].as_int(-1) != 0)) continue;
    const GraphNode* sequence = node(reference(unbind->args[0]));
    const int weight = reference(t->args[0]);
    if (!sequence || sequence->meta.is_array() || shape_of(sequence->meta).size() != 3 ||
        weight < 0)
      continue;
    Family& f = out[{unbind->id, weight, bias->id}];
    f.unbind = unbind->id;
    f.sequence = sequence->id;
    f.weight = weight;
    f.bias = bias->id;
    f.products.resize(unbind->meta.as_array().size(), -1);
    const int64_t step = piece->args[1].as_int();
    if (step < 0 || static_cast<size_t>(step) >= f.products.size()) continue;
    int& slot = f.products[static_cast<size_t>(step)];
    f.repeated = f.repeated || slot >= 0;
    slot = n.id;
  }
  return out;
}

}  // namespace

size_t batch_step_products(Graph& g) {
  std::map<int, const Family*> at;                // the family whose new nodes come before node id
  std::map<int, std::pair<int, size_t>> step_of;  // a batched product: (its family's first, step)
  const auto found = families_of(g);
  for (const auto& [key, f] : found) {
    if (!f.whole()) continue;
    const int first = f.first();
    at[first] = &f;
    for (size_t i = 0; i < f.products.size(); ++i) step_of[f.products[i]] = {first, i};
  }
  if (at.empty()) return 0;
  Graph out;
  std::vector<int> to(g.nodes.size(), -1);
  std::map<int, int> unbound;  // a family's first product -> the new unbind's id
  const auto add = [&](std::string op, json::Value args, json::Value meta) {
    GraphNode m;
    m.id = static_cast<int>(out.nodes.size());
    m.op = std::move(op);
    m.args = std::move(args);
    m.kwargs = json::Value(json::Object{});
    m.meta = std::move(meta);
    out.nodes.push_back(std::move(m));
    return out.nodes.back().id;
  };
  for (const auto& n : g.nodes) {
    if (const auto f = at.find(n.id); f != at.end()) {
      const Family& family = *f->second;
      const GraphNode& s = g.nodes[static_cast<size_t>(family.sequence)];
      const auto shape = shape_of(s.meta);  // [T, B, K]
      const int64_t steps = shape[0], batch = shape[1], k = shape[2];
      const auto n_out = shape_of(g.nodes[static_cast<size_t>(family.bias)].meta)[0];
      const std::string dtype = n.meta["dtype"].as_string();
      const int rows = add("aten.reshape.default",
                           json::Value(json::Array{node_ref(to[static_cast<size_t>(s.id)]),
                                                   int_list({steps * batch, k})}),
                           contiguous_meta({steps * batch, k}, s.meta["dtype"].as_string()));
      const auto& w = g.nodes[static_cast<size_t>(family.weight)];
      json::Value t_meta = json::Value(json::Object{{"shape", int_list({k, n_out})},
                                                    {"dtype", json::Value(w.meta["dtype"])},
                                                    {"stride", int_list({1, k})}});
      const int t = add("aten.t.default",
                        json::Value(json::Array{node_ref(to[static_cast<size_t>(w.id)])}), t_meta);
      const int product =
          add("aten.addmm.default",
              json::Value(json::Array{node_ref(to[static_cast<size_t>(family.bias)]),
                                      node_ref(rows), node_ref(t)}),
              contiguous_meta({steps * batch, n_out}, dtype));
      const int viewed =
          add("aten.view.default",
              json::Value(json::Array{node_ref(product), int_list({steps, batch, n_out})}),
              contiguous_meta({steps, batch, n_out}, dtype));
      json::Array pieces;
      for (int64_t i = 0; i < steps; ++i) pieces.push_back(contiguous_meta({batch, n_out}, dtype));
      unbound[n.id] = add("aten.unbind.int", json::Value(json::Array{node_ref(viewed)}),
                          json::Value(std::move(pieces)));
    }
    if (const auto p = step_of.find(n.id); p != step_of.end()) {
      // the step's product: its piece of the batched one
      to[static_cast<size_t>(n.id)] =
          add("getitem",
              json::Value(json::Array{node_ref(unbound.at(p->second.first)),
                                      json::Value(static_cast<int64_t>(p->second.second))}),
              n.meta);
      continue;
    }
    GraphNode m = n;
    m.id = static_cast<int>(out.nodes.size());
    m.args = renumbered(n.args, to);
    m.kwargs = renumbered(n.kwargs, to);
    to[static_cast<size_t>(n.id)] = m.id;
    out.nodes.push_back(std::move(m));
  }
  g = std::move(out);
  return at.size();
}

}  // namespace kforge::generator
