// Which of a graph's tensors share memory, and where an in-place change would be read stale.
// The lowering computes an in-place operator out of place (`a.add_(r)` as `a + r`): the nodes
// that read its result see the change. A node that reads the changed memory under a name from
// before the change would see the old values: the tensor a changed view was taken of
// (`y[:, 0].mul_(3)`, then `y + 1`), a tensor filled piece by piece (`out[:, i] = v`, traced as a
// view and a `copy_`), another view of it taken before, or the changed tensor itself. Aliases
// finds such a read so that the lowering refuses the graph instead of writing a wrong kernel.
// Pieces along one dimension (select, slice, the parts of split, chunk and unbind) that do not
// overlap are told apart: an LSTM cell changes its gates' chunks in place one by one.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "generator/graph.hpp"

namespace kforge::generator {

class Aliases {
 public:
  explicit Aliases(const Graph& graph);

  /// The node `n` changes in place: the first argument of an in-place operator (`add_`,
  /// `copy_`), or the `out` an operator writes; -1 for any other node.
  static int changed_by(const GraphNode& n);
  /// A node after `n` that reads memory `n` changes in place through a node from before `n` (not
  /// through `n`'s own result, which the lowering gives the change); -1 where there is none.
  int stale_read(const GraphNode& n) const;
  /// The node whose memory `id` is: the first of the nodes it is a view of (an in-place result,
  /// a split's piece), `id` itself where its memory is its own.
  int memory(int id) const { return lineage(id).back(); }
  /// The nodes that refer to `id`, in graph order, a node once for each reference.
  const std::vector<const GraphNode*>& readers(int id) const;
  /// How many references to `id` the graph holds.
  size_t users(int id) const { return readers(id).size(); }

 private:
  /// Part of a tensor's elements along one of its dimensions, [begin, end); `drops` where the
  /// view has no such dimension (select, unbind's parts).
  struct Piece {
    int64_t dim = 0, begin = 0, end = 0;
    bool drops = false;
  };
  /// The elements of the memory's first node a view reads where they make a box: each of that
  /// node's dimensions' range, and which of them the view's dimensions are.
  struct Box {
    std::vector<std::pair<int64_t, int64_t>> extent;
    std::vector<size_t> dims;
  };
  /// The node whose memory `id` is (a view's, an in-place result's), -1 for memory of its own.
  int parent(int id) const;
  /// `id` and the nodes it is a view of, up to the one whose memory it is.
  std::vector<int> lineage(int id) const;
  /// The box of `n` (of the operator `op`), where its parent's is known and it is a piece or the
  /// whole of it.
  void add_box(const GraphNode& n, const std::string& op);
  /// Whether two nodes of one memory may share an element.
  bool overlap(int a, int b) const;

  std::unordered_map<int, int> parent_;
  std::unordered_map<int, Piece> piece_;  ///< a view that is such a part of its parent
  std::unordered_map<int, Box> box_;      ///< views of slices and selects (or none) of their memory
  std::unordered_map<int, std::vector<int>> members_;  ///< memory → its nodes, in graph order
  std::unordered_map<int, std::vector<const GraphNode*>> readers_;
};

}  // namespace kforge::generator
