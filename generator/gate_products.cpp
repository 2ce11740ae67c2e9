#include "generator/gate_products.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "generator/graph_edit.hpp"
#include "generator/lowering.hpp"

namespace kforge::generator {
namespace {

using namespace graph_edit;

/// How many times each node is read (its references in every node's arguments).
std::vector<int> uses_of(const Graph& g) {
  std::vector<int> uses(g.nodes.size(), 0);
  const auto count = [&](const auto& self, const json::Value& v) -> void {
    if (const int id = reference(v); id >= 0 && static_cast<size_t>(id) < uses.size()) {
      ++uses[static_cast<size_t>(id)];
      return;
    }
    if (v.is_array())
      for (const auto& x : v.as_array()) self(self, x);
    else if (v.is_object())
      for (const auto& [key, x] : v.as_object()) self(self, x);
  };
  for (const auto& n : g.nodes) {
    count(count, n.args);
    count(count, n.kwargs);
  }
  return uses;
}

/// One split the pass cuts: its input's tree and its pieces.
struct Cut {
  std::vector<std::pair<int64_t, int64_t>> columns;  ///< each piece's [start, end)
  std::set<int> dropped;                             ///< the tree's sums and products
};

class Cutter {
 public:
  explicit Cutter(const Graph& g) : g_(g), uses_(uses_of(g)), pieces_(g.nodes.size(), 0) {
    // each node's pieces read (getitem), counted once for all: a search of the graph for each
    // split was quadratic (an LSTM has a split a step)
    for (const auto& n : g.nodes)
      if (const int of = n.op == "getitem" ? reference(n.args[0]) : -1;
          of >= 0 && static_cast<size_t>(of) < pieces_.size() && n.args[1].is_integer())
        ++pieces_[static_cast<size_t>(of)];
  }

  /// The cut of split node `s`, or none.
  std::optional<Cut> cut_of(const GraphNode& s) {
    static const std::set<std::string> splits{"split", "unsafe_split", "split_with_sizes",
                                              "unsafe_split_with_sizes", "chunk"};
    if (!splits.count(base_name(s.op)) || !s.meta.is_array()) return std::nullopt;
    const GraphNode* e = node(reference(s.args[0]));
    if (!e || e->meta.is_array() || uses_[static_cast<size_t>(e->id)] != 1) return std::nullopt;
    const auto shape = shape_of(e->meta);
    if (shape.size() != 2 || shape[0] >= 16) return std::nullopt;
    const auto& a = s.args.as_array();
    const json::Value& dim = a.size() >= 3 ? a[2] : s.kwargs["dim"];
    if (!dim.is_integer() || (dim.as_int() != 1 && dim.as_int() != -1)) return std::nullopt;
    Cut c;
    int64_t start = 0;
    for (const auto& m : s.meta.as_array()) {
      const auto piece = shape_of(m);
      if (piece.size() != 2 || piece[0] != shape[0]) return std::nullopt;
      c.columns.emplace_back(start, start + piece[1]);
      start += piece[1];
    }
    if (start != shape[1]) return std::nullopt;
    size_t products = 0;
    if (!tree(*e, shape, c.dropped, products, 0) || products == 0 ||
        products * c.columns.size() > kGateProducts || products * c.columns.size() < 2)
      return std::nullopt;
    return c;
  }

  /// Whether every user of split `s` is a piece of it (getitem).
  bool only_pieces_read(const GraphNode& s) const {
    return pieces_[static_cast<size_t>(s.id)] == uses_[static_cast<size_t>(s.id)];
  }

 private:
  const GraphNode* node(int id) const {
    return id >= 0 && static_cast<size_t>(id) < g_.nodes.size() ? &g_.nodes[static_cast<size_t>(id)]
                                                                : nullptr;
  }

  int uses_of_node(int id) const {
    return id >= 0 && static_cast<size_t>(id) < uses_.size() ? uses_[static_cast<size_t>(id)] : 0;
  }

  /// Whether `n` is a product or a sum of products and other tensors of `shape` the pass can cut,
  /// its products and sums added to `inner` (each read only by its parent) and counted.
  bool tree(const GraphNode& n, const std::vector<int64_t>& shape, std::set<int>& inner,
            size_t& products, int depth) {
    if (n.meta.is_array() || shape_of(n.meta) != shape || !n.kwargs.as_object().empty())
      return false;
    const std::string op = n.op;
    if (op == "aten.addmm.default" || op == "aten.mm.default") {
      const bool biased = op == "aten.addmm.default";
      if (n.args.as_array().size() != (biased ? 3u : 2u)) return false;
      if (biased) {
        const GraphNode* b = node(reference(n.args[0]));
        if (!b || b->meta.is_array() || shape_of(b->meta) != std::vector<int64_t>{shape[1]})
          return false;
      }
      const GraphNode* w = node(reference(n.args[biased ? 2 : 1]));
      if (!w || w->meta.is_array() || shape_of(w->meta).size() != 2) return false;
      inner.insert(n.id);
      ++products;
      return true;
    }
    if ((op == "aten.add.Tensor" || op == "aten.add_.Tensor") && depth < 4 &&
        n.args.as_array().size() == 2) {
      // add_ changes its first argument in place: the cut drops the add_, so that argument must
      // be read by nothing else (a tensor read again after it would be read unchanged)
      if (op == "aten.add_.Tensor" && uses_of_node(reference(n.args[0])) != 1) return false;
      for (const auto& x : n.args.as_array()) {
        const GraphNode* m = node(reference(x));
        if (!m || m->meta.is_array() || shape_of(m->meta) != shape) return false;
        // a product or sum read elsewhere too stays whole: a leaf
        if (uses_[static_cast<size_t>(m->id)] == 1) {
          std::set<int> below;
          size_t found = 0;
          if (tree(*m, shape, below, found, depth + 1)) {
            inner.insert(below.begin(), below.end());
            products += found;
          }
        }
      }
      inner.insert(n.id);
      return true;
    }
    return false;
  }

  const Graph& g_;
  std::vector<int> uses_;    ///< each node's readers
  std::vector<int> pieces_;  ///< each node's readers that are its pieces (getitem)
};

/// Writes the columns [s, e) of the tree at node `id` of `g` into `out` (cut's inner nodes
/// rebuilt, anything else sliced); returns the new node's id.
class Writer {
 public:
  Writer(const Graph& g, Graph& out, const std::vector<int>& to) : g_(g), out_(out), to_(to) {}

  int columns(int id, const std::set<int>& inner, int64_t s, int64_t e) {
    const GraphNode& n = g_.nodes[static_cast<size_t>(id)];
    const auto shape = shape_of(n.meta);
    const std::string dtype = n.meta["dtype"].as_string();
    if (!inner.count(id)) return slice(mapped(id), n.meta, 1, s, e);
    if (n.op == "aten.addmm.default" || n.op == "aten.mm.default") {
      const bool biased = n.op == "aten.addmm.default";
      json::Array args;
      if (biased) {
        const int b = reference(n.args[0]);
        args.push_back(node_ref(slice(mapped(b), g_.nodes[static_cast<size_t>(b)].meta, 0, s, e)));
      }
      args.push_back(renumbered(n.args[biased ? 1 : 0], to_));
      const GraphNode& w = g_.nodes[static_cast<size_t>(reference(n.args[biased ? 2 : 1]))];
      if (base_name(w.op) == "t" && w.args.as_array().size() == 1) {
        // t(W): t of W's rows s .. e
        const int under = reference(w.args[0]);
        const GraphNode& wt = g_.nodes[static_cast<size_t>(under)];
        const int rows = slice(mapped(under), wt.meta, 0, s, e);
        const auto& r = out_.nodes[static_cast<size_t>(rows)].meta;
        const auto rs = shape_of(r), rt = strides_of(r);
        args.push_back(
            node_ref(append(out_, "aten.t.default", json::Value(json::Array{node_ref(rows)}),
                            tensor_meta({rs[1], rs[0]}, {rt[1], rt[0]}, dtype))));
      } else {
        args.push_back(node_ref(slice(mapped(w.id), w.meta, 1, s, e)));
      }
      return append(out_, n.op, json::Value(std::move(args)),
                    contiguous_meta({shape[0], e - s}, dtype));
    }
    // a sum
    json::Array args;
    for (const auto& x : n.args.as_array())
      args.push_back(node_ref(columns(reference(x), inner, s, e)));
    return append(out_, "aten.add.Tensor", json::Value(std::move(args)),
                  contiguous_meta({shape[0], e - s}, dtype));
  }

 private:
  json::Value mapped(int id) const { return node_ref(to_[static_cast<size_t>(id)]); }

  /// slice(x, dim, s, e) of a tensor of meta `meta`.
  int slice(json::Value x, const json::Value& meta, int64_t dim, int64_t s, int64_t e) {
    auto shape = shape_of(meta);
    shape[static_cast<size_t>(dim)] = e - s;
    return append(
        out_, "aten.slice.Tensor",
        json::Value(json::Array{std::move(x), json::Value(dim), json::Value(s), json::Value(e)}),
        tensor_meta(shape, strides_of(meta), meta["dtype"].as_string()));
  }

  const Graph& g_;
  Graph& out_;
  const std::vector<int>& to_;
};

}  // namespace

size_t split_gate_products(Graph& g) {
  Cutter cutter(g);
  std::map<int, Cut> cuts;  // by split
  std::set<int> dropped;
  for (const auto& n : g.nodes)
    if (auto c = cutter.cut_of(n); c && cutter.only_pieces_read(n)) {
      dropped.insert(c->dropped.begin(), c->dropped.end());
      dropped.insert(n.id);
      cuts[n.id] = std::move(*c);
    }
  if (cuts.empty()) return 0;
  Graph out;
  std::vector<int> to(g.nodes.size(), -1);
  Writer writer(g, out, to);
  for (const auto& n : g.nodes) {
    if (dropped.count(n.id)) continue;
    if (n.op == "getitem") {
      if (const auto c = cuts.find(reference(n.args[0])); c != cuts.end()) {
        const auto [s, e] = c->second.columns.at(static_cast<size_t>(n.args[1].as_int()));
        const int root = reference(g.nodes[static_cast<size_t>(c->first)].args[0]);
        to[static_cast<size_t>(n.id)] = writer.columns(root, c->second.dropped, s, e);
        continue;
      }
    }
    to[static_cast<size_t>(n.id)] = copy_renumbered(out, n, to);
  }
  g = std::move(out);
  return cuts.size();
}

}  // namespace kforge::generator
