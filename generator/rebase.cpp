#include "generator/rebase.hpp"

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <unordered_map>
#include <utility>

#include "generator/emit.hpp"
#include "generator/schedule.hpp"

namespace kforge::generator {
namespace {

struct Move {
  int to = -1;     ///< the moved buffer
  int64_t by = 0;  ///< elements
};
using Moves = std::map<int, Move>;

void collect_loads(const ExprPtr& e, std::vector<const Expr*>& out) {
  if (e->kind == Expr::Kind::load) out.push_back(e.get());
  for (const auto& a : e->args) collect_loads(a, out);
}

/// An expression with its loads of moved buffers reading the moved ones at their indices less
/// the move; a subtree shared in it stays shared.
class Mover {
 public:
  explicit Mover(const Moves& moves) : moves_(moves) {}

  ExprPtr operator()(const ExprPtr& e) {
    if (const auto done = done_.find(e.get()); done != done_.end()) return done->second;
    std::vector<ExprPtr> args;
    bool changed = false;
    for (const auto& a : e->args) {
      args.push_back((*this)(a));
      changed = changed || args.back() != a;
    }
    const auto move = e->kind == Expr::Kind::load ? moves_.find(e->buffer) : moves_.end();
    ExprPtr out = e;
    if (changed || move != moves_.end()) {
      Expr copy = *e;
      copy.args = std::move(args);
      if (move != moves_.end()) {
        copy.buffer = move->second.to;
        copy.index = ix::add(e->index, ix::constant(-move->second.by));
      }
      out = std::make_shared<const Expr>(std::move(copy));
    }
    done_.emplace(e.get(), out);
    return out;
  }

 private:
  const Moves& moves_;
  std::unordered_map<const Expr*, ExprPtr> done_;
};

}  // namespace

Rebaser::Rebaser(const Program& program) : original_(program), program_(program) {}

Rebaser::Rebased Rebaser::rebase(const Kernel& k) {
  for (int b : wrapped_)
    program_.buffers[static_cast<size_t>(b)].compute =
        original_.buffers[static_cast<size_t>(b)].compute;
  wrapped_.clear();
  if (k.library >= 0) return {&original_, k, {}};
  // The least constant term of each loaded buffer's indices, and the buffers that stay.
  std::map<int, int64_t> least, end;  // end: past the largest index read
  std::set<int> stay;
  for (int b : k.stores) stay.insert(b);
  for (int b : k.local) stay.insert(b);
  for (const Stage& s : k.stages) stay.insert(s.buffer);
  for (const Stage& s : k.stages) {
    std::vector<const Expr*> loads;
    collect_loads(s.value, loads);
    for (const Expr* l : loads) {
      if (!std::count(k.loads.begin(), k.loads.end(), l->buffer)) continue;
      if (!l->args.empty() || l->index->may_be_negative) stay.insert(l->buffer);
      const int64_t c = ix::constant_term(*l->index);
      const auto [at, fresh] = least.emplace(l->buffer, c);
      if (!fresh) at->second = std::min(at->second, c);
      end[l->buffer] = std::max(end[l->buffer], l->index->bound);
    }
  }
  Moves moves;
  for (const auto& [b, c] : least) {
    if (stay.count(b)) continue;
    const int64_t by = c - c % kMovedOffsetUnit;
    if (by <= 0) continue;
    const Buffer& from = original_.buffers[static_cast<size_t>(b)];
    Buffer moved;
    moved.kind = Buffer::Kind::input;
    moved.id = static_cast<int>(program_.buffers.size());
    moved.dtype = from.dtype;
    // as far as the kernel reads, in groups of 4 (the 16-byte loads' bound, what lies past it never
    // picked), not to the base's end: a step's kernel then prints as the other steps' whatever
    // its step (a piece of an RNN's batched input products, generator/step_products.hpp)
    const int64_t read = (end.at(b) - by + 3) / 4 * 4;
    moved.shape = {std::min(numel(from.shape) - by, read)};
    moved.base = b;
    moves.emplace(b, Move{moved.id, by});
    program_.buffers.push_back(std::move(moved));
  }
  if (moves.empty()) return {&original_, k, {}};
  for (const Stage& s : k.stages) {
    Buffer& b = program_.buffers[static_cast<size_t>(s.buffer)];
    b.compute = [compute = b.compute, moves](const std::vector<IndexPtr>& at) {
      return Mover(moves)(compute(at));
    };
    wrapped_.push_back(s.buffer);
  }
  Rebased out{
      &program_, at_outer_index(program_, k, ix::delinear(k.outer_offset(), k.outer_shape())), {}};
  for (int& b : out.kernel.loads) {
    const auto move = moves.find(b);
    if (move == moves.end()) continue;
    out.arguments.emplace(move->second.to,
                          "(b" + std::to_string(b) + " + " + std::to_string(move->second.by) + ")");
    b = move->second.to;
  }
  return out;
}

std::string Rebaser::with_arguments(const std::string& calls,
                                    const std::map<int, std::string>& arguments) {
  if (arguments.empty()) return calls;
  return renamed_buffers(calls, [&](int id) {
    const auto at = arguments.find(id);
    return at == arguments.end() ? std::string() : at->second;
  });
}

}  // namespace kforge::generator
