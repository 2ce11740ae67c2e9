#include "generator/step_products.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <numeric>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "generator/aliases.hpp"
#include "generator/graph_edit.hpp"
#include "generator/lowering.hpp"

namespace kforge::generator {
namespace {

using namespace graph_edit;

/// The parts of `s` where it is a stack along dimension 1 of nodes (`torch.stack(steps, 1)`, a
/// batch-first layer's outputs), else null.
const json::Value* stacked_steps(const Graph& g, const GraphNode& s) {
  if (base_name(s.op) != "stack" || !s.kwargs.as_object().empty()) return nullptr;
  const auto& a = s.args.as_array();
  if (a.size() != 2 || !a[0].is_array() || !a[1].is_integer() ||
      (a[1].as_int() != 1 && a[1].as_int() != -2))
    return nullptr;
  for (const auto& p : a[0].as_array()) {
    const int id = reference(p);
    if (id < 0 || static_cast<size_t>(id) >= g.nodes.size() ||
        g.nodes[static_cast<size_t>(id)].meta.is_array())
      return nullptr;
  }
  return &a[0];
}

/// For each node, the first node that is the same view: a select or slice of an input that no
/// node changes in place (through any view of it), of the same arguments, is the same weight
/// wherever it is taken (a hand-written RNN's `xt @ w[0]` selects w's gate afresh at each step);
/// every other node is itself.
std::vector<int> same_views(const Graph& g) {
  std::vector<int> same(g.nodes.size());
  std::iota(same.begin(), same.end(), 0);
  const auto valid = [&](int id) { return id >= 0 && static_cast<size_t>(id) < g.nodes.size(); };
  // the inputs changed in place (`add_`, `copy_`, an `out` written) through any view of them
  const Aliases aliases(g);
  std::set<int> changed;
  for (const auto& n : g.nodes)
    if (const int target = Aliases::changed_by(n); valid(target))
      changed.insert(aliases.memory(target));
  std::map<std::string, int> first;  // the view's op, its base and its other arguments
  std::set<int> taken;               // the first of each view of an unchanged input
  for (const auto& n : g.nodes) {
    if ((n.op != "aten.select.int" && n.op != "aten.slice.Tensor") || n.args.as_array().empty())
      continue;
    const int read = reference(n.args[0]);
    if (!valid(read) || read >= n.id) continue;
    const int base = same[static_cast<size_t>(read)];
    const bool input = g.nodes[static_cast<size_t>(base)].op == "input" && !changed.count(base);
    if (!input && !taken.count(base)) continue;
    json::Array rest(n.args.as_array().begin() + 1, n.args.as_array().end());
    const std::string key = n.op + " " + std::to_string(base) + " " +
                            json::Value(std::move(rest)).dump() + " " + n.kwargs.dump();
    const int f = first.emplace(key, n.id).first->second;
    same[static_cast<size_t>(n.id)] = f;
    taken.insert(f);
  }
  return same;
}

/// The products of one family: the steps of one unbind, with one weight and one bias (or none).
struct Family {
  int unbind = -1, sequence = -1, weight = -1, bias = -1;
  int64_t dim = 0;             ///< the dimension of the sequence unbound (0 or 1)
  bool transposed = false;     ///< the product reads t(weight)
  std::vector<int> products;   ///< by step, -1 where none was found
  std::map<int, size_t> step;  ///< each product's step
  int first() const { return step.empty() ? -1 : step.begin()->first; }
  bool whole() const {
    if (products.size() < 2) return false;
    for (int p : products)
      if (p < 0) return false;
    return true;
  }
};

/// The families of `g`'s step products, keyed by unbind, weight, whether the weight is transposed
/// and bias (-1 for mm).
std::map<std::tuple<int, int, bool, int>, Family> families_of(const Graph& g) {
  std::map<std::tuple<int, int, bool, int>, Family> out;
  if (std::none_of(g.nodes.begin(), g.nodes.end(),
                   [](const GraphNode& n) { return n.op == "aten.unbind.int"; }))
    return out;  // no sequence unbound into steps
  const auto same = same_views(g);
  const auto node = [&](int id) -> const GraphNode* {
    return id >= 0 && static_cast<size_t>(id) < g.nodes.size() ? &g.nodes[static_cast<size_t>(id)]
                                                               : nullptr;
  };
  for (const auto& n : g.nodes) {
    const bool biased = n.op == "aten.addmm.default";
    if ((!biased && n.op != "aten.mm.default") || n.args.as_array().size() != (biased ? 3u : 2u) ||
        !n.kwargs.as_object().empty())
      continue;
    const GraphNode* bias = biased ? node(reference(n.args[0])) : nullptr;
    const GraphNode* piece = node(reference(n.args[biased ? 1 : 0]));
    const GraphNode* right = node(reference(n.args[biased ? 2 : 1]));
    if ((biased && (!bias || bias->meta.is_array() || shape_of(bias->meta).size() != 1)) ||
        !piece || !right || right->meta.is_array() || piece->op != "getitem" ||
        !piece->args[1].is_integer())
      continue;
    // the weight, read as it is or through t()
    const bool transposed = base_name(right->op) == "t";
    const int read = transposed ? reference(right->args[0]) : right->id;
    if (read < 0 || static_cast<size_t>(read) >= g.nodes.size() ||
        shape_of(right->meta).size() != 2)
      continue;
    const int weight = same[static_cast<size_t>(read)];
    const GraphNode* unbind = node(reference(piece->args[0]));
    if (!unbind || unbind->op != "aten.unbind.int" || !unbind->meta.is_array()) continue;
    const GraphNode* sequence = node(reference(unbind->args[0]));
    if (!sequence || sequence->meta.is_array() || shape_of(sequence->meta).size() != 3) continue;
    // unbound along 0 or 1 (never the last), the dimension given by position or by name (0 where
    // neither gives it)
    const auto& ua = unbind->args.as_array();
    const json::Value& given = ua.size() >= 2 ? ua[1] : unbind->kwargs["dim"];
    if (ua.size() > 2 || (!given.is_null() && !given.is_integer())) continue;
    int64_t dim = given.is_null() ? 0 : given.as_int();
    if (dim < 0) dim += 3;
    if (dim != 0 && dim != 1) continue;
    Family& f = out[{unbind->id, weight, transposed, bias ? bias->id : -1}];
    f.unbind = unbind->id;
    f.sequence = sequence->id;
    f.weight = weight;
    f.transposed = transposed;
    f.bias = bias ? bias->id : -1;
    f.dim = dim;
    f.products.resize(unbind->meta.as_array().size(), -1);
    const int64_t step = piece->args[1].as_int();
    if (step < 0 || static_cast<size_t>(step) >= f.products.size()) continue;
    // a step read by two products of the family: the same product twice, both its piece
    f.products[static_cast<size_t>(step)] = n.id;
    f.step[n.id] = static_cast<size_t>(step);
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
    for (const auto& [product, step] : f.step) step_of[product] = {first, step};
  }
  if (at.empty()) return 0;
  Graph out;
  std::vector<int> to(g.nodes.size(), -1);
  std::map<int, int> unbound;  // a family's first product -> the new unbind's id
  const auto add = [&](std::string op, json::Value args, json::Value meta) {
    return append(out, std::move(op), std::move(args), std::move(meta));
  };
  const auto mapped = [&](int id) { return node_ref(to[static_cast<size_t>(id)]); };
  for (const auto& n : g.nodes) {
    if (const auto f = at.find(n.id); f != at.end()) {
      const Family& family = *f->second;
      const GraphNode& s = g.nodes[static_cast<size_t>(family.sequence)];
      auto shape = shape_of(s.meta);  // [T, B, K] (unbound along 0) or [B, T, K] (along 1)
      int64_t dim = family.dim;
      json::Value sequence = mapped(s.id);
      if (const auto parts = dim == 1 ? stacked_steps(g, s) : nullptr) {
        // the steps' outputs stacked along 1: stacked along 0 instead, so that each is computed
        // into its place (a stack is placed where its pieces' elements lie together)
        json::Array mapped_parts;
        for (const auto& p : parts->as_array()) mapped_parts.push_back(mapped(reference(p)));
        shape = {shape[1], shape[0], shape[2]};
        dim = 0;
        sequence =
            node_ref(add(s.op, json::Value(json::Array{json::Value(std::move(mapped_parts))}),
                         contiguous_meta(shape, s.meta["dtype"].as_string())));
      }
      const int64_t rows_of = shape[0] * shape[1], k = shape[2];
      const auto& w = g.nodes[static_cast<size_t>(family.weight)];
      const auto w_shape = shape_of(w.meta);
      const int64_t n_out = w_shape[family.transposed ? 0 : 1];
      const std::string dtype = n.meta["dtype"].as_string();
      const int rows =
          add("aten.reshape.default", json::Value(json::Array{sequence, int_list({rows_of, k})}),
              contiguous_meta({rows_of, k}, s.meta["dtype"].as_string()));
      json::Value right = mapped(w.id);
      if (family.transposed) {
        const auto& stride = w.meta["stride"].as_array();
        json::Value t_meta = json::Value(
            json::Object{{"shape", int_list({k, n_out})},
                         {"dtype", json::Value(w.meta["dtype"])},
                         {"stride", int_list({stride.at(1).as_int(), stride.at(0).as_int()})}});
        right = node_ref(add("aten.t.default", json::Value(json::Array{mapped(w.id)}), t_meta));
      }
      json::Array product_args;
      if (family.bias >= 0) product_args.push_back(mapped(family.bias));
      product_args.push_back(node_ref(rows));
      product_args.push_back(right);
      const int product =
          add(family.bias >= 0 ? "aten.addmm.default" : "aten.mm.default",
              json::Value(std::move(product_args)), contiguous_meta({rows_of, n_out}, dtype));
      const int viewed =
          add("aten.view.default",
              json::Value(json::Array{node_ref(product), int_list({shape[0], shape[1], n_out})}),
              contiguous_meta({shape[0], shape[1], n_out}, dtype));
      // each step's piece: [B, N], rows N apart (along 0) or T * N apart (along 1)
      const int64_t steps = shape[static_cast<size_t>(dim)];
      const int64_t other = shape[static_cast<size_t>(1 - dim)];
      const int64_t row_stride = dim == 0 ? n_out : shape[1] * n_out;
      json::Array pieces;
      for (int64_t i = 0; i < steps; ++i)
        pieces.push_back(json::Value(json::Object{{"shape", int_list({other, n_out})},
                                                  {"dtype", json::Value(dtype)},
                                                  {"stride", int_list({row_stride, 1})}}));
      json::Array unbind_args{node_ref(viewed)};
      if (dim != 0) unbind_args.emplace_back(dim);
      unbound[n.id] = add("aten.unbind.int", json::Value(std::move(unbind_args)),
                          json::Value(std::move(pieces)));
    }
    if (const auto p = step_of.find(n.id); p != step_of.end()) {
      // the step's product: its piece of the batched one
      const int u = unbound.at(p->second.first);
      to[static_cast<size_t>(n.id)] =
          add("getitem",
              json::Value(
                  json::Array{node_ref(u), json::Value(static_cast<int64_t>(p->second.second))}),
              out.nodes[static_cast<size_t>(u)].meta[p->second.second]);
      continue;
    }
    to[static_cast<size_t>(n.id)] = copy_renumbered(out, n, to);
  }
  g = std::move(out);
  return at.size();
}

}  // namespace kforge::generator
