#include "generator/schedule.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "generator/expr_text.hpp"

namespace kforge::generator {

bool Kernel::reduces() const {
  return std::find(reduced.begin(), reduced.end(), true) != reduced.end();
}

std::vector<int64_t> Kernel::outer_shape() const {
  std::vector<int64_t> out;
  for (size_t d = 0; d < space.size(); ++d)
    if (!inner[d]) out.push_back(space[d]);
  return out;
}

std::vector<int64_t> Kernel::inner_shape() const {
  std::vector<int64_t> out;
  for (size_t d = 0; d < space.size(); ++d)
    if (inner[d]) out.push_back(space[d]);
  return out;
}

std::vector<IndexPtr> Kernel::vars() const {
  return vars(ix::delinear(ix::named("o", numel(outer_shape())), outer_shape()));
}

std::vector<IndexPtr> Kernel::vars(const std::vector<IndexPtr>& outer) const {
  return vars(outer, ix::delinear(ix::named("r", numel(inner_shape())), inner_shape()));
}

std::vector<IndexPtr> Kernel::vars(const std::vector<IndexPtr>& outer,
                                   const std::vector<IndexPtr>& in) const {
  std::vector<IndexPtr> out;
  size_t a = 0, b = 0;
  for (size_t d = 0; d < space.size(); ++d) out.push_back(inner[d] ? in[b++] : outer[a++]);
  return out;
}

IndexPtr Kernel::outer_offset() const {
  return ix::named("o", numel(outer_shape()));
}

namespace {

Kernel open_kernel(const std::vector<int64_t>& space, const std::vector<bool>& reduced) {
  Kernel k;
  k.space = space;
  k.reduced = reduced;
  k.inner = reduced;
  if (!k.reduces() && !space.empty()) k.inner.back() = true;
  return k;
}

void collect_loads(const ExprPtr& e, std::vector<const Expr*>& out) {
  if (e->kind == Expr::Kind::load) out.push_back(e.get());
  for (const auto& a : e->args) collect_loads(a, out);
}

/// Whether reduction `b` is a matrix product: a sum of two factors, each of which skips some
/// outer dimension the other reads (what the tiled GEMM of generator/emit_cuda_gemm.cpp takes);
/// and whether the tiled GEMM may take it: not where the outputs along either side number fewer
/// than 16 (M or N, the outer dimensions only one factor reads), which it never tiles.
enum class ProductKind : signed char { unknown = -1, none, tileable, never_tiled };

/// The most matrix products that share a kernel (those the tiled GEMM never takes).
constexpr long kSharedProducts = 4;

ProductKind product_kind(const Buffer& b) {
  if (b.kind != Buffer::Kind::reduction || b.combine != Combine::sum) return ProductKind::none;
  std::vector<IndexPtr> probe;
  for (size_t d = 0; d < b.space.size(); ++d)
    probe.push_back(ix::named("kf_d" + std::to_string(d) + "_", b.space[d]));
  const ExprPtr body = b.compute(probe);
  if (body->kind != Expr::Kind::call || body->fn != "mul" || body->args.size() != 2)
    return ProductKind::none;
  const std::string a = memory_text(body->args[0]), c = memory_text(body->args[1]);
  int64_t m = 1, n = 1;
  bool a_only = false, c_only = false;
  for (size_t d = 0; d < b.space.size(); ++d) {
    if (b.reduced[d] || b.space[d] == 1) continue;
    const std::string token = "kf_d" + std::to_string(d) + "_";
    const bool in_a = a.find(token) != std::string::npos, in_c = c.find(token) != std::string::npos;
    if (in_a && !in_c) m *= b.space[d];
    if (in_c && !in_a) n *= b.space[d];
    a_only = a_only || (in_a && !in_c);
    c_only = c_only || (in_c && !in_a);
  }
  if (!a_only || !c_only) return ProductKind::none;
  return m < 16 || n < 16 ? ProductKind::never_tiled : ProductKind::tileable;
}

/// Each buffer's product_kind, evaluated once a buffer: each buffer that may join a kernel asks
/// it of the kernel's reductions, and a long program's expressions are deep (KernelBench's
/// 36_LSTMHn at full size: 80 % of `kforge generate`'s time evaluating them again, BENCHMARKS.md).
class Products {
 public:
  explicit Products(const Program& p)
      : program_(p), known_(p.buffers.size(), ProductKind::unknown) {}
  /// Whether buffer `id` is a matrix product the tiled GEMM may take.
  bool tileable(int id) { return kind(id) == ProductKind::tileable; }
  /// Whether buffer `id` is a matrix product.
  bool product(int id) { return kind(id) != ProductKind::none; }

 private:
  ProductKind kind(int id) {
    ProductKind& known = known_[static_cast<size_t>(id)];
    if (known == ProductKind::unknown)
      known = product_kind(program_.buffers[static_cast<size_t>(id)]);
    return known;
  }
  const Program& program_;
  std::vector<ProductKind> known_;
};

/// Stage s's value and offset (its kind chosen) for buffer `b` at the kernel's index `vars`, whose
/// outer dimensions are at row-major offset `outer`.
void place(const Buffer& b, const Kernel& k, const std::vector<IndexPtr>& vars,
           const IndexPtr& outer, Stage& s) {
  switch (s.kind) {
    case Stage::Kind::scan:
      s.offset = ix::linear(vars, k.space);
      s.value = b.compute(vars);
      break;
    case Stage::Kind::reduce:
      s.offset = outer;
      s.value = b.compute(vars);
      break;
    case Stage::Kind::row_store:
      s.offset = ix::linear(vars, k.space);
      s.value = b.compute(b.shape == k.space ? vars : ix::delinear(s.offset, b.shape));
      break;
    case Stage::Kind::outer_store:
      s.offset = outer;
      s.value = b.compute(ix::delinear(s.offset, b.shape));
      break;
  }
}

/// The most nodes a stage of a kernel may have to be computed again in a later stage of it.
constexpr size_t kInlinedStageNodes = 160;

/// `e` with each load of an element that a stage of k of s's kind (row stores of a pointwise
/// kernel, or stores at a reducing kernel's outputs) stores at that very element replaced by that
/// stage's value (cast to the load's type), so that a stage reading what k has just stored can
/// join k: an LSTM step's h_t = o * tanh(c_t) beside its c_t, one kernel a step rather than two
/// (c_t is stored for the next step, so h_t read it back from memory in a launch of its own:
/// KernelBench's 36_LSTMHn, 3072 launches at full size). The value is computed again (cheap beside
/// a launch and a pass over memory; the compiler may share it).
ExprPtr inline_own_elements(const Kernel& k, const Stage& s, const ExprPtr& e) {
  if (e->kind == Expr::Kind::load && e->args.empty()) {
    for (const auto& t : k.stages)
      if (t.buffer == e->buffer && t.kind == s.kind && t.offset->text == e->index->text &&
          t.value->size <= kInlinedStageNodes)
        return t.value->dtype == e->dtype ? t.value : ex::cast(t.value, e->dtype);
    return e;
  }
  if (e->args.empty()) return e;
  std::vector<ExprPtr> args;
  bool changed = false;
  for (const auto& a : e->args) {
    args.push_back(inline_own_elements(k, s, a));
    changed = changed || args.back() != a;
  }
  if (!changed) return e;
  Expr copy = *e;
  copy.size = 1;
  for (const auto& a : args) copy.size += a->size;
  copy.args = std::move(args);
  return std::make_shared<const Expr>(std::move(copy));
}

ExprPtr with_own_elements_inlined(const Kernel& k, const Stage& s) {
  // Not in a reducing kernel, whose stores run in the threads of its outputs, fewer than the
  // elements: KernelBench's 88_Gemm_GroupNorm_Swish_Multiply_Swish's last x * sigmoid(x) in its
  // group norm's kernel (a thread a group) was 2.5 % slower than in a kernel of its own (H100).
  // A stage at the outputs' index (outer_store) runs in those same threads, one element each: an
  // LSTM step's h_t = o * tanh(c_t) beside the c_t its gates' products compute
  // (generator/gate_products.hpp).
  if (k.stages.empty() || (k.reduces() && s.kind != Stage::Kind::outer_store)) return s.value;
  return inline_own_elements(k, s, s.value);
}

/// The stage computing `b` in `k`, or none when b cannot join k.
std::optional<Stage> stage_in(const Program& p, Products& products, const Kernel& k,
                              const Buffer& b) {
  Stage s;
  s.buffer = b.id;
  // A scan is a kernel of its own: a running accumulator along its dimension, nothing beside it.
  const bool scans = std::any_of(k.stages.begin(), k.stages.end(),
                                 [](const Stage& t) { return t.kind == Stage::Kind::scan; });
  if (scans) return std::nullopt;
  if (b.kind == Buffer::Kind::scan) {
    if (!k.stages.empty() || b.space != k.space || b.reduced != k.reduced) return std::nullopt;
    s.kind = Stage::Kind::scan;
    place(b, k, k.vars(), k.outer_offset(), s);
    return s;
  }
  if (b.kind == Buffer::Kind::reduction) {
    if (b.space != k.space || b.reduced != k.reduced || !k.reduces()) return std::nullopt;
    // A matrix product the tiled GEMM may take is the only reduction of its kernel: a gated FFN's
    // x @ w1 and x @ w3 in one kernel were not tiled (robust-kbench's llama_ffw own kernel, 0.07x
    // of eager). Products it never tiles share one (an LSTM step's x_t @ W_ih^T and h @ W_hh^T,
    // batch 10: one launch a step rather than two).
    if (std::any_of(k.stages.begin(), k.stages.end(), [&](const Stage& t) {
          return t.kind == Stage::Kind::reduce &&
                 (products.tileable(b.id) || products.tileable(t.buffer));
        }))
      return std::nullopt;
    // ... at most kSharedProducts of them: the steps' x_t @ W_ih^T of an RNN's first layer, which
    // read nothing the recurrence computes, would otherwise all join one kernel (36_LSTMHn: 512
    // products in one thread's loop).
    if (products.product(b.id) &&
        std::count_if(k.stages.begin(), k.stages.end(), [&](const Stage& t) {
          return t.kind == Stage::Kind::reduce && products.product(t.buffer);
        }) >= kSharedProducts)
      return std::nullopt;
    s.kind = Stage::Kind::reduce;
  } else if (k.reduces() ? numel(b.shape) == numel(k.space) : b.shape == k.space) {
    s.kind = Stage::Kind::row_store;
  } else if (k.reduces() && numel(b.shape) == numel(k.outer_shape())) {
    s.kind = Stage::Kind::outer_store;
  } else {
    return std::nullopt;
  }
  // the kernel's index made only for a buffer that may join it (a long program tries many)
  place(b, k, k.vars(), k.outer_offset(), s);
  s.value = with_own_elements_inlined(k, s);
  // What it reads in k: only k's reductions, at the outer index (their accumulators); never a
  // stack whose pieces k computes (complete only after k).
  std::vector<const Expr*> loads;
  collect_loads(s.value, loads);
  const std::string outer = k.outer_offset()->text;
  for (const Expr* l : loads) {
    for (int piece : p.buffers[static_cast<size_t>(l->buffer)].pieces)
      if (std::any_of(k.stages.begin(), k.stages.end(),
                      [&](const Stage& t) { return t.buffer == piece; }))
        return std::nullopt;
    auto in_k = std::find_if(k.stages.begin(), k.stages.end(),
                             [&](const Stage& t) { return t.buffer == l->buffer; });
    if (in_k == k.stages.end()) continue;
    if (in_k->kind != Stage::Kind::reduce || l->index->text != outer || !l->args.empty())
      return std::nullopt;
  }
  return s;
}

/// The buffers reduction b's element reads, a stack whose pieces are placed in it with them (it
/// is read after they are computed).
std::set<int> reads_of(const Program& p, const Buffer& b) {
  std::vector<IndexPtr> probe;
  for (size_t d = 0; d < b.space.size(); ++d)
    probe.push_back(ix::named("kf_p" + std::to_string(d) + "_", b.space[d]));
  std::set<int> out = loaded_buffers(b.compute(probe));
  for (int id : std::set<int>(out))
    for (int piece : p.buffers[static_cast<size_t>(id)].pieces) out.insert(piece);
  return out;
}

/// The kernels in their order while they are built, with what a buffer that joins an earlier
/// kernel needs to find its candidates without reading every kernel's stages again. A kernel is
/// read after once a later kernel (or library call) reads a buffer it computes, and stays so:
/// kernels move only to the end, and only those nothing after reads, and a buffer is read only
/// after it is computed. The others are kept apart, in their order (`unread`); a kernel's key
/// grows along the order and is new when it moves to the end. Reading every later kernel's stages
/// for each candidate was quadratic in the kernels: 81 % of `kforge generate`'s time on
/// KernelBench's 36_LSTMHn, 1158 kernels at an eighth of its size.
class Kernels {
 public:
  std::vector<Kernel>& list() { return kernels_; }

  void push(Kernel k) {
    const int64_t key = next_key_++;
    keys_.push_back(key);
    kernels_.push_back(Kernel{});
    if (k.library >= 0) {
      producer_[k.library] = key;
      for (int id : program_.buffers[static_cast<size_t>(k.library)].operands) read_by(id, key);
    } else {
      unread_.insert(key);
    }
    std::vector<Stage> stages = std::move(k.stages);
    k.stages.clear();
    kernels_.back() = std::move(k);
    for (auto& st : stages) add_stage(kernels_.size() - 1, std::move(st));
  }

  /// Stage `s` joins kernel `i`: what it reads from earlier kernels is read after them.
  void add_stage(size_t i, Stage s) {
    const int64_t key = keys_[i];
    producer_[s.buffer] = key;
    for (int id : loaded_buffers(s.value)) read_by(id, key);
    kernels_[i].stages.push_back(std::move(s));
  }

  /// Kernel `i`, which nothing after reads, moves to the end.
  void move_to_end(size_t i) {
    Kernel k = std::move(kernels_[i]);
    unread_.erase(keys_[i]);
    kernels_.erase(kernels_.begin() + static_cast<std::ptrdiff_t>(i));
    keys_.erase(keys_.begin() + static_cast<std::ptrdiff_t>(i));
    const int64_t key = next_key_++;
    keys_.push_back(key);
    unread_.insert(key);
    for (const auto& st : k.stages) producer_[st.buffer] = key;
    kernels_.push_back(std::move(k));
  }

  /// The kernels (not library calls) that nothing after reads, the latest first.
  std::vector<size_t> unread_latest_first() const {
    std::vector<size_t> out;
    for (auto it = unread_.rbegin(); it != unread_.rend(); ++it)
      out.push_back(
          static_cast<size_t>(std::lower_bound(keys_.begin(), keys_.end(), *it) - keys_.begin()));
    return out;
  }

  explicit Kernels(const Program& p) : program_(p) {}

 private:
  /// Buffer `buffer` is read by kernel `reader` (a stack whose pieces are placed in it: each
  /// piece).
  void read_by(int buffer, int64_t reader) {
    for (int piece : program_.buffers[static_cast<size_t>(buffer)].pieces) read_by(piece, reader);
    auto it = producer_.find(buffer);
    if (it != producer_.end() && it->second < reader) unread_.erase(it->second);
  }

  const Program& program_;
  std::vector<Kernel> kernels_;
  std::vector<int64_t> keys_;
  int64_t next_key_ = 0;
  std::map<int, int64_t> producer_;
  std::set<int64_t> unread_;
};

/// Reduction `b`, which cannot join the last kernel, joins an earlier one where it may: the latest
/// that takes it (stage_in: never beside a matrix product), as long as no kernel after that one
/// computes what b reads. Sums over the same elements become one pass (a variance's sum of
/// squares beside its mean's sum, both split into partial sums, which the lowering makes one
/// after the other).
bool join_earlier(const Program& p, Products& products, Kernels& all, const Buffer& b) {
  auto& kernels = all.list();
  const auto reads = reads_of(p, b);
  for (size_t i = kernels.size(); i-- > 0;) {
    Kernel& k = kernels[i];
    if (i + 1 < kernels.size() && k.library < 0) {
      if (auto s = stage_in(p, products, k, b)) {
        all.add_stage(i, std::move(*s));
        return true;
      }
    }
    if (reads.count(k.library)) return false;
    for (const auto& st : k.stages)
      if (reads.count(st.buffer)) return false;
  }
  return false;
}

/// Buffer `b`, which joins neither the last kernel nor (a reduction) an earlier one, takes an
/// earlier kernel along instead: that kernel moves to the end and b joins it, where nothing
/// after it reads what it computes (b reads what the kernels between compute). Cross entropy's
/// backward computed each row's maximum and sum of exponentials in a kernel of their own, then
/// the count of its targets (another space), then the gradient, a second pass over each row of
/// logits; now a row's statistics and its gradient are one kernel, the row read once.
bool join_later(const Program& p, Products& products, Kernels& all, const Buffer& b) {
  for (size_t i : all.unread_latest_first()) {
    auto s = stage_in(p, products, all.list()[i], b);
    if (!s) continue;
    all.move_to_end(i);
    all.add_stage(all.list().size() - 1, std::move(*s));
    return true;
  }
  return false;
}

}  // namespace

/// The buffers the outputs need: the outputs and, from each, what its element reads. A value the
/// graph computes and nothing reads (max_pool's indices beside its values) is neither computed
/// nor allocated: in the kernel of what is read it was a second pass over each window.
std::set<int> needed(const Program& p) {
  std::map<int, const Buffer*> by_id;
  for (const auto& b : p.buffers) by_id[b.id] = &b;
  std::set<int> live;
  std::vector<int> todo(p.outputs.begin(), p.outputs.end());
  while (!todo.empty()) {
    const int id = todo.back();
    todo.pop_back();
    auto it = by_id.find(id);
    if (it == by_id.end() || !live.insert(id).second) continue;
    const Buffer& b = *it->second;
    if (b.kind == Buffer::Kind::input) continue;
    if (b.kind == Buffer::Kind::library) {
      todo.insert(todo.end(), b.operands.begin(), b.operands.end());
      continue;
    }
    const bool spaced = b.kind == Buffer::Kind::reduction || b.kind == Buffer::Kind::scan;
    const auto& space = spaced ? b.space : b.shape;
    std::vector<IndexPtr> probe;
    for (size_t d = 0; d < space.size(); ++d)
      probe.push_back(ix::named("kf_p" + std::to_string(d) + "_", space[d]));
    std::vector<const Expr*> reads;
    collect_loads(b.compute(probe), reads);
    for (const Expr* l : reads) todo.push_back(l->buffer);
  }
  return live;
}

std::vector<Kernel> schedule(const Program& p) {
  Kernels all(p);
  Products products(p);
  const auto live = needed(p);
  for (const auto& b : p.buffers) {
    // a stack whose pieces are placed in it is computed by theirs
    if (b.kind == Buffer::Kind::input || !live.count(b.id) || !b.pieces.empty()) continue;
    if (b.kind == Buffer::Kind::library) {  // a step of its own, which nothing joins
      Kernel k;
      k.library = b.id;
      k.space = b.shape;
      all.push(std::move(k));
      continue;
    }
    auto& list = all.list();
    if (!list.empty() && list.back().library < 0) {
      if (auto s = stage_in(p, products, list.back(), b)) {
        all.add_stage(list.size() - 1, std::move(*s));
        continue;
      }
    }
    if (b.kind == Buffer::Kind::reduction && join_earlier(p, products, all, b)) continue;
    if (b.kind != Buffer::Kind::scan && join_later(p, products, all, b)) continue;
    Kernel k = b.kind == Buffer::Kind::reduction || b.kind == Buffer::Kind::scan
                   ? open_kernel(b.space, b.reduced)
                   : open_kernel(b.shape, std::vector<bool>(b.shape.size(), false));
    auto s = stage_in(p, products, k, b);
    k.stages.push_back(*s);
    all.push(std::move(k));
  }
  std::vector<Kernel> kernels = std::move(all.list());
  // What each kernel reads from memory, which reductions it reads as accumulators, what is stored.
  std::set<int> read_elsewhere(p.outputs.begin(), p.outputs.end());
  for (const auto& b : p.buffers)  // a stack's pieces placed in it are stored there
    if (live.count(b.id)) read_elsewhere.insert(b.pieces.begin(), b.pieces.end());
  for (auto& k : kernels) {
    if (k.library >= 0) {
      const auto& operands = p.buffers[static_cast<size_t>(k.library)].operands;
      std::set<int> loads(operands.begin(), operands.end());
      k.loads.assign(loads.begin(), loads.end());
      read_elsewhere.insert(loads.begin(), loads.end());
      continue;
    }
    std::set<int> loads, local;
    const std::string outer = k.reduces() ? k.outer_offset()->text : "";
    for (const auto& s : k.stages) {
      std::vector<const Expr*> reads;
      collect_loads(s.value, reads);
      for (const Expr* l : reads) {
        auto in_k = std::find_if(k.stages.begin(), k.stages.end(),
                                 [&](const Stage& t) { return t.buffer == l->buffer; });
        if (in_k != k.stages.end()) {
          local.insert(l->buffer);
        } else {
          loads.insert(l->buffer);
          read_elsewhere.insert(l->buffer);
        }
      }
    }
    k.loads.assign(loads.begin(), loads.end());
    k.local.assign(local.begin(), local.end());
  }
  for (auto& k : kernels)
    for (const auto& s : k.stages)
      if (s.kind != Stage::Kind::reduce || read_elsewhere.count(s.buffer))
        k.stores.push_back(s.buffer);
  return kernels;
}

namespace {

/// `k` with its stages computed at the index `vars` of its space, its outer dimensions `outer`.
Kernel at_index(const Program& p, const Kernel& k, const std::vector<IndexPtr>& outer,
                const std::vector<IndexPtr>& vars) {
  Kernel out = k;
  const IndexPtr offset = ix::linear(outer, k.outer_shape());
  for (auto& s : out.stages) place(p.buffers[static_cast<size_t>(s.buffer)], k, vars, offset, s);
  return out;
}

}  // namespace

Kernel at_outer_index(const Program& p, const Kernel& k, const std::vector<IndexPtr>& outer) {
  return at_index(p, k, outer, k.vars(outer));
}

Kernel at_inner_index(const Program& p, const Kernel& k, const std::vector<IndexPtr>& inner) {
  const auto outer = ix::delinear(k.outer_offset(), k.outer_shape());
  return at_index(p, k, outer, k.vars(outer, inner));
}

}  // namespace kforge::generator
