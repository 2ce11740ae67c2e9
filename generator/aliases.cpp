#include "generator/aliases.hpp"

#include <algorithm>
#include <set>
#include <string>

#include "generator/lowering.hpp"

namespace kforge::generator {

namespace {

/// Views: their result is their first argument's memory (some of these may copy; counted as
/// views, they can only make the lowering refuse a graph, never accept a wrong one).
bool is_view(const std::string& op) {
  static const std::set<std::string> views = {
      "view",    "_unsafe_view", "reshape",   "_reshape_alias", "squeeze",    "unsqueeze",
      "flatten", "unflatten",    "view_as",   "permute",        "transpose",  "t",
      "expand",  "expand_as",    "alias",     "detach",         "contiguous", "to",
      "unfold",  "as_strided",   "diagonal",  "movedim",        "swapaxes",   "narrow",
      "select",  "slice",        "lift_fresh"};
  return views.count(op) > 0;
}

/// Views of all of their first argument's elements in its shape: their box is its box.
bool is_whole(const std::string& op) {
  return op == "alias" || op == "detach" || op == "contiguous" || op == "to" || op == "lift_fresh";
}

/// Operators whose result is a tuple of pieces of their first argument along one dimension.
bool is_split(const std::string& op) {
  return op == "split" || op == "split_with_sizes" || op == "unsafe_split" ||
         op == "unsafe_split_with_sizes" || op == "chunk" || op == "unsafe_chunk" || op == "unbind";
}

const json::Value& argument(const GraphNode& n, size_t i, const char* name) {
  if (i < n.args.as_array().size()) return n.args[i];
  return n.kwargs[name];
}

int node_of(const json::Value& v) {
  return static_cast<int>(v["node"].as_int(-1));
}

int64_t wrapped(int64_t x, int64_t size) {
  return x < 0 ? x + size : x;
}

}  // namespace

int Aliases::changed_by(const GraphNode& n) {
  if (const int out = node_of(n.kwargs["out"]); out >= 0) return out;
  const std::string base = base_name(n.op);
  const bool dunder = base.rfind("__", 0) == 0;
  const bool in_place = dunder ? base.rfind("__i", 0) == 0 : !base.empty() && base.back() == '_';
  return in_place && !n.args.as_array().empty() ? node_of(n.args[0]) : -1;
}

Aliases::Aliases(const Graph& graph) {
  std::unordered_map<int, const GraphNode*> nodes;
  for (const auto& n : graph.nodes) {
    nodes[n.id] = &n;
    each_reference(n, [&](int id) { readers_[id].push_back(&n); });
    const std::string op = base_name(n.op);
    int of = changed_by(n);
    if (of < 0 && !n.args.as_array().empty() && (is_view(op) || is_split(op)))
      of = node_of(n.args[0]);
    if (of < 0 && n.op == "getitem") {  // a piece of what a split took apart
      auto tuple = nodes.find(node_of(n.args[0]));
      if (tuple != nodes.end() && is_split(base_name(tuple->second->op))) {
        const GraphNode& t = *tuple->second;
        of = node_of(t.args[0]);
        auto whole = nodes.find(of);
        const auto k = n.args[1].as_int(-1);
        if (whole != nodes.end() && k >= 0) {
          const auto shape = Lowerer::meta_shape(*whole->second);
          const std::string split = base_name(t.op);
          const auto rank = static_cast<int64_t>(shape.size());
          const int64_t dim =
              wrapped(argument(t, split == "unbind" ? 1 : 2, "dim").as_int(0), rank);
          if (dim >= 0 && dim < rank) {
            const int64_t size = shape[static_cast<size_t>(dim)];
            int64_t begin = k, end = k + 1;
            if (split == "split_with_sizes" || split == "unsafe_split_with_sizes") {
              const auto sizes = ints(argument(t, 1, "split_sizes"));
              begin = 0;
              for (int64_t i = 0; i < k && i < static_cast<int64_t>(sizes.size()); ++i)
                begin += sizes[static_cast<size_t>(i)];
              end = k < static_cast<int64_t>(sizes.size()) ? begin + sizes[static_cast<size_t>(k)]
                                                           : size;
            } else if (split != "unbind") {
              const bool chunk = split == "chunk" || split == "unsafe_chunk";
              const int64_t given = argument(t, 1, chunk ? "chunks" : "split_size").as_int(1);
              const int64_t step =
                  chunk ? (size + std::max<int64_t>(given, 1) - 1) / std::max<int64_t>(given, 1)
                        : given;
              begin = k * step;
              end = std::min(size, begin + step);
            }
            piece_[n.id] = {dim, begin, end, split == "unbind"};
          }
        }
      }
    }
    if ((op == "select" || op == "slice") && of >= 0) {
      auto whole = nodes.find(of);
      if (whole != nodes.end()) {
        const auto shape = Lowerer::meta_shape(*whole->second);
        const auto rank = static_cast<int64_t>(shape.size());
        const int64_t dim = wrapped(argument(n, 1, "dim").as_int(0), rank);
        if (dim >= 0 && dim < rank) {
          const int64_t size = shape[static_cast<size_t>(dim)];
          const auto clamp = [size](int64_t x) { return std::clamp<int64_t>(x, 0, size); };
          if (op == "select") {
            const auto& index = argument(n, 2, "index");
            if (index.is_integer()) {
              const int64_t i = wrapped(index.as_int(), size);
              piece_[n.id] = {dim, i, i + 1, true};
            }
          } else {
            const auto& start = argument(n, 2, "start");
            const auto& end = argument(n, 3, "end");
            if ((start.is_null() || start.is_integer()) && (end.is_null() || end.is_integer()))
              piece_[n.id] = {dim, start.is_null() ? 0 : clamp(wrapped(start.as_int(), size)),
                              end.is_null() ? size : clamp(wrapped(end.as_int(), size)), false};
          }
        }
      }
    }
    if (of >= 0 && nodes.count(of)) parent_[n.id] = of;
    members_[lineage(n.id).back()].push_back(n.id);
    add_box(n, op);
  }
}

void Aliases::add_box(const GraphNode& n, const std::string& op) {
  const int p = parent(n.id);
  if (p < 0) {
    if (!n.meta.is_object() || !n.meta["shape"].is_array()) return;
    Box b;
    for (const int64_t size : Lowerer::meta_shape(n)) {
      b.dims.push_back(b.extent.size());
      b.extent.emplace_back(0, size);
    }
    box_[n.id] = std::move(b);
    return;
  }
  auto of = box_.find(p);
  if (of == box_.end()) return;
  auto piece = piece_.find(n.id);
  if (piece == piece_.end()) {  // the whole of its parent: in place, `out`, a split's tuple
    if (changed_by(n) == p || is_whole(op) || is_split(op)) box_[n.id] = of->second;
    return;
  }
  Box b = of->second;
  const auto [dim, begin, end, drops] = piece->second;
  if (dim < 0 || static_cast<size_t>(dim) >= b.dims.size()) return;
  auto& range = b.extent[b.dims[static_cast<size_t>(dim)]];
  range = {range.first + begin, range.first + std::max(begin, end)};
  if (drops) b.dims.erase(b.dims.begin() + dim);
  box_[n.id] = std::move(b);
}

const std::vector<const GraphNode*>& Aliases::readers(int id) const {
  static const std::vector<const GraphNode*> none;
  auto it = readers_.find(id);
  return it == readers_.end() ? none : it->second;
}

int Aliases::parent(int id) const {
  auto it = parent_.find(id);
  return it == parent_.end() ? -1 : it->second;
}

std::vector<int> Aliases::lineage(int id) const {
  std::vector<int> line{id};
  for (int p = parent(id); p >= 0; p = parent(p)) line.push_back(p);
  return line;
}

bool Aliases::overlap(int a, int b) const {
  auto box_a = box_.find(a), box_b = box_.find(b);
  if (box_a != box_.end() && box_b != box_.end() &&
      box_a->second.extent.size() == box_b->second.extent.size()) {
    for (size_t k = 0; k < box_a->second.extent.size(); ++k) {
      const auto [xb, xe] = box_a->second.extent[k];
      const auto [yb, ye] = box_b->second.extent[k];
      if (xe <= yb || ye <= xb) return false;
    }
    return true;
  }
  const auto la = lineage(a), lb = lineage(b);
  if (la.back() != lb.back()) return false;
  size_t i = la.size(), j = lb.size();
  while (i > 0 && j > 0 && la[i - 1] == lb[j - 1]) --i, --j;
  if (i == 0 || j == 0) return true;  // one is a view of the other
  // la[i - 1] and lb[j - 1]: views of the same node, la[i] == lb[j]
  auto x = piece_.find(la[i - 1]), y = piece_.find(lb[j - 1]);
  if (x == piece_.end() || y == piece_.end() || x->second.dim != y->second.dim) return true;
  return x->second.begin < y->second.end && y->second.begin < x->second.end;
}

int Aliases::stale_read(const GraphNode& n) const {
  const int target = changed_by(n);
  if (target < 0) return -1;
  auto members = members_.find(lineage(target).back());
  if (members == members_.end()) return -1;
  for (const int m : members->second) {
    if (m >= n.id) break;
    auto readers = readers_.find(m);
    if (readers == readers_.end()) continue;
    for (const GraphNode* r : readers->second) {
      if (r->id <= n.id) continue;
      // A view of m (or a piece of m's split) read after n reads only its own elements.
      const int through = parent(r->id);
      const bool view_of_m =
          through == m || (through >= 0 && r->op == "getitem" && node_of(r->args[0]) == m);
      if (overlap(view_of_m ? r->id : m, target)) return r->id;
    }
  }
  return -1;
}

}  // namespace kforge::generator
