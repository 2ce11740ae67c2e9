// CudaKernel's windows (generator/emit_cuda_kernel.hpp): a short window's outputs a thread, their
// loads in groups of four and the padding those hold, border checks, input rows streamed through
// rings in shared memory, and the warp's stores of what its threads kept.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <numeric>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "generator/emit_cuda_kernel.hpp"

namespace kforge::generator::cuda {

std::optional<CudaKernel::WindowSplit> CudaKernel::split_window(const Index& i) const {
  const auto split = ix::along(i, "kf_j");
  if (!split) return std::nullopt;
  const std::string first = "kf_c * " + n(split->stride * window);
  WindowSplit w{split->stride, first, first, split->stride * window};
  for (const auto& t : split->rest) {
    const auto row = rows > 1 ? ix::along(*t, "kf_h") : std::nullopt;
    if (t->kind == Index::Kind::constant) w.with_constants += " + " + t->text;
    if (row && row->rest.empty()) {
      w.thread += " + kf_rg * " + n(row->stride * rows);
      w.with_constants += " + kf_rg * " + n(row->stride * rows);
      w.aligned = std::gcd(w.aligned, row->stride * rows);
      w.own.push_back(ix::mul(ix::named("kf_rw", rows), row->stride));
    } else if (ix::reads(*t, "kf_h")) {
      w.rows_apart = false;
      w.own.push_back(t);
    } else if (ix::reads(*t, "r") || t->kind == Index::Kind::constant) {
      w.own.push_back(t);
    } else {
      w.thread += " + " + t->text;
      w.with_constants += " + " + t->text;
      w.aligned = std::gcd(w.aligned, ix::factor_of(*t));
    }
  }
  return w;
}

std::string CudaKernel::window_check(const Expr& e) const {
  static const std::map<std::string, std::string> ops = {
      {"ge", ">="}, {"gt", ">"}, {"lt", "<"}, {"le", "<="}};
  const auto op = ops.find(e.fn);
  if (e.kind != Expr::Kind::call || op == ops.end() || e.args.size() != 2 ||
      e.args[0]->kind != Expr::Kind::index || e.args[1]->kind != Expr::Kind::constant)
    return {};
  const Index& i = *e.args[0]->index;
  std::vector<IndexPtr> terms =
      i.kind == Index::Kind::sum ? i.terms : std::vector<IndexPtr>{e.args[0]->index};
  IndexPtr rest = ix::constant(0);
  int64_t most = 0;  // the r terms' greatest sum
  // Window outputs: kf_j = kf_c * window + kf_v, a term kf_j * s at its least kf_c * window * s
  // for every output of the thread, at its greatest (window - 1) * s more.
  std::string thread;
  int64_t thread_most = 0;
  bool reads_r = false;
  for (const auto& t : terms) {
    if (window > 1 && ring_rows == 0 && ix::reads(*t, "kf_j") && !ix::reads(*t, "r")) {
      const auto split = ix::along(*t, "kf_j");
      if (!split || split->stride < 0 || !split->rest.empty()) return {};
      thread += " + kf_c * " + n(split->stride * window);
      thread_most += (window - 1) * split->stride;
      continue;
    }
    if (!ix::reads(*t, "r")) {
      rest = ix::add(rest, t);
      continue;
    }
    if (t->may_be_negative) return {};
    reads_r = true;
    most += t->bound - 1;
  }
  if (!reads_r) return {};
  const bool upper = e.fn == "lt" || e.fn == "le";
  return "(static_cast<int64_t>(" + rest->text + thread + ")" +
         (upper ? " + " + n(most + thread_most) : "") + " " + op->second + " " +
         constant_text(e.args[1]->value, DType::i64) + ")";
}

ExprPtr CudaKernel::without_borders(const ExprPtr& e) const {
  if (e->kind != Expr::Kind::call) return e;
  if (e->fn == "where" && e->args.size() == 3) {
    std::vector<std::string> checks;
    for (const Expr* c : conjuncts(*e->args[0])) checks.push_back(window_check(*c));
    if (std::none_of(checks.begin(), checks.end(),
                     [](const std::string& c) { return c.empty(); })) {
      interior_checks.insert(checks.begin(), checks.end());
      return without_borders(e->args[1]);
    }
  }
  return with_args(e, [this](const ExprPtr& a) { return without_borders(a); });
}

std::string CudaKernel::eager_text(const ExprPtr& e) const {
  auto index = [this](const Index& i) { return window_offset(i); };
  return expr_text(
      eager_selects(e),
      [this, index](const Expr& l, const std::string& added) {
        if (std::count(k.local.begin(), k.local.end(), l.buffer))
          return "acc" + std::to_string(l.buffer);
        if (auto v = ring_load(l, added)) return *v;
        if (auto v = vector_load(l, added)) return *v;
        std::string at = window_offset(*l.index) + added;
        if (ix::reads(*l.index, "kf_j") || may_leave_buffer(l))
          at =
              "kf_in(" + at + ", " + n(numel(p.buffers[static_cast<size_t>(l.buffer)].shape)) + ")";
        return "b" + std::to_string(l.buffer) + "[" + at + "]";
      },
      index);
}

std::string CudaKernel::window_offset(const Index& i) const {
  const auto split = ring_rows > 0 ? std::nullopt : split_window(i);
  if (!split) return i.text;
  std::string own = split->stride == 1 ? "kf_v" : "kf_v * " + n(split->stride);
  for (const auto& t : split->own)
    if (t->kind != Index::Kind::constant) own += " + " + t->text;
  return "((" + split->with_constants + ") + (" + own + "))";
}

std::optional<std::string> CudaKernel::vector_register(const Expr& l,
                                                       const std::string& added) const {
  if (window <= 1 || !window_vectors || !added.empty() || l.buffer < 0) return std::nullopt;
  const Buffer& b = p.buffers[static_cast<size_t>(l.buffer)];
  if (b.dtype != DType::f32 || numel(b.shape) % 4 != 0 ||
      std::count(k.stores.begin(), k.stores.end(), l.buffer))
    return std::nullopt;
  const auto split = split_window(*l.index);
  if (!split || !split->rows_apart || split->aligned % 4 != 0) return std::nullopt;
  const std::string& thread = split->thread;
  const std::vector<IndexPtr>& own = split->own;
  std::set<int64_t> offsets;
  const int64_t r_end = numel(k.inner_shape());
  for (int64_t u = 0; u < rows; ++u) {
    for (int64_t v = 0; v < window; ++v) {
      for (int64_t r = 0; r < r_end; ++r) {
        int64_t at = v * split->stride;
        for (const auto& t : own) {
          const auto value = ix::value_at(*t, {{"r", r}, {"kf_rw", u}});
          if (!value) return std::nullopt;
          at += *value;
        }
        offsets.insert(at);
      }
    }
  }
  auto group = std::find_if(vector_loads.begin(), vector_loads.end(), [&](const VectorLoads& g) {
    return g.buffer == l.buffer && g.thread == thread;
  });
  if (!vectors_planned) {
    if (group == vector_loads.end())
      group = vector_loads.insert(vector_loads.end(), VectorLoads{l.buffer, thread});
    group->offsets.insert(offsets.begin(), offsets.end());
    return std::nullopt;
  }
  if (group == vector_loads.end() || group->quads.empty()) return std::nullopt;
  std::string at = split->stride == 1 ? "kf_v" : "kf_v * " + n(split->stride);
  for (const auto& t : own) at += " + " + t->text;
  const std::string g = n(group - vector_loads.begin());
  return "kf_w" + g + "[kf_slot" + g + "(" + at + ")]";
}

std::optional<CudaKernel::RingRead> CudaKernel::ring_read(const Index& i) const {
  const auto split = ix::along(i, "kf_j");
  if (!split || split->stride != 1) return std::nullopt;
  RingRead read;
  for (const auto& t : split->rest) {
    if (ix::reads(*t, "kf_h")) {
      const auto row = ix::along(*t, "kf_h");
      if (!row || !row->rest.empty() || row->stride <= 0 || read.row != 0) return std::nullopt;
      read.row = row->stride;
    } else if (ix::reads(*t, "kf_z")) {
      if (ix::reads(*t, "r")) return std::nullopt;
      read.plane += (read.plane.empty() ? "" : " + ") + t->text;
      read.aligned = std::gcd(read.aligned, ix::factor_of(*t));
    } else if (ix::reads(*t, "r") || t->kind == Index::Kind::constant) {
      read.own.push_back(t);
    } else {
      return std::nullopt;
    }
  }
  if (read.row == 0) return std::nullopt;
  if (read.plane.empty()) read.plane = "0";
  return read;
}

std::optional<std::string> CudaKernel::ring_load(const Expr& l, const std::string& added) const {
  if (ring_rows == 0 || l.buffer < 0 || !l.index || !ix::reads(*l.index, "kf_j"))
    return std::nullopt;
  const Buffer& b = p.buffers[static_cast<size_t>(l.buffer)];
  const auto read = ring_read(*l.index);
  const auto unringed = [this] {
    ++unringed_loads;
    return std::nullopt;
  };
  // a buffer of a multiple of 4 elements: its last 16 bytes are copied whole, as every other
  if (!added.empty() || b.dtype != DType::f32 || l.dtype != DType::f32 || numel(b.shape) % 4 != 0 ||
      std::count(k.stores.begin(), k.stores.end(), l.buffer) || !read || read->row % 4 != 0 ||
      read->aligned % 4 != 0)
    return unringed();
  Ring reach{l.buffer, read->plane, read->row};
  const int64_t half = read->row / 2, r_end = numel(k.inner_shape());
  for (int64_t r = 0; r < r_end; ++r) {
    int64_t at = 0;
    for (const auto& t : read->own) {
      const auto value = ix::value_at(*t, {{"r", r}});
      if (!value) return unringed();
      at += *value;
    }
    const auto [dy, dx] = rows_and_columns(at, read->row);
    reach.above = std::max(reach.above, -dy);
    reach.below = std::max(reach.below, dy);
    reach.left = std::max(reach.left, -dx);
    reach.past = std::max(reach.past, dx);
  }
  auto ring = std::find_if(rings.begin(), rings.end(), [&](const Ring& g) {
    return g.buffer == l.buffer && g.plane == read->plane && g.row == read->row;
  });
  if (!rings_planned) {
    if (ring == rings.end()) ring = rings.insert(rings.end(), reach);
    ring->above = std::max(ring->above, reach.above);
    ring->below = std::max(ring->below, reach.below);
    ring->left = std::max(ring->left, reach.left);
    ring->past = std::max(ring->past, reach.past);
    ring->lead = (ring->left + 3) / 4 * 4;
    ring->tail =
        (std::max<int64_t>(0, k.outer_shape().back() + ring->past - ring->row) + 3) / 4 * 4;
    return std::nullopt;
  }
  if (ring == rings.end()) return unringed();
  std::string own;
  for (const auto& t : read->own) own += (own.empty() ? "" : " + ") + t->text;
  if (own.empty()) own = "0";
  // (own + half + above * row) = (above + dy) * row + (dx + half), both parts non-negative
  const std::string shifted = "(" + own + " + " + n(half + ring->above * read->row) + ")";
  const std::string row = n(read->row);
  return "kf_rr" + n(ring - rings.begin()) + "[" + shifted + " / " + row + "][kf_j + " + shifted +
         " % " + row + " + (" + n(ring->lead - half) + ")]";
}

const CudaKernel::Ring* CudaKernel::ring_of(const Expr& l) const {
  if (l.kind != Expr::Kind::load || l.buffer < 0 || !l.index || !ix::reads(*l.index, "kf_j"))
    return nullptr;
  const auto read = ring_read(*l.index);
  if (!read) return nullptr;
  for (const Ring& g : rings)
    if (g.buffer == l.buffer && g.plane == read->plane && g.row == read->row) return &g;
  return nullptr;
}

void CudaKernel::plan_fills() {
  struct Reads {
    bool bad = false;
    std::optional<double> fill;
    int with_rows = 0, without_rows = 0, with_columns = 0, without_columns = 0;
    int64_t rows = 0;
  };
  std::vector<Reads> seen(rings.size());
  const int64_t r_end = numel(k.inner_shape());
  const auto at_r = [](const Index& i, int64_t r, int64_t h, int64_t j) {
    return ix::value_at(i, {{"r", r}, {"kf_h", h}, {"kf_j", j}});
  };
  const auto guarded = [&](const Expr& where, const Expr& l, Reads& reads) {
    const auto read = ring_read(*l.index);
    if (where.args[2]->kind != Expr::Kind::constant ||
        (reads.fill && *reads.fill != where.args[2]->value))
      return false;
    reads.fill = where.args[2]->value;
    const std::vector<const Expr*> checks = conjuncts(*where.args[0]);
    for (int64_t r = 0; r < r_end; ++r) {
      int64_t at = 0;
      for (const auto& t : read->own) {
        const auto v = ix::value_at(*t, {{"r", r}});
        if (!v) return false;
        at += *v;
      }
      const auto [dy, dx] = rows_and_columns(at, read->row);
      int row_bounds = 0, column_bounds = 0;
      for (const Expr* c : checks) {
        if (c->kind != Expr::Kind::call || (c->fn != "ge" && c->fn != "lt") ||
            c->args.size() != 2 || c->args[0]->kind != Expr::Kind::index ||
            c->args[1]->kind != Expr::Kind::constant)
          return false;
        const Index& p = *c->args[0]->index;
        // p affine in kf_h and kf_j: each term that reads one is that variable times a number
        const std::vector<IndexPtr> terms =
            p.kind == Index::Kind::sum ? p.terms : std::vector<IndexPtr>{c->args[0]->index};
        for (const auto& t : terms)
          for (const char* v : {"kf_h", "kf_j"})
            if (ix::reads(*t, v)) {
              const auto split = ix::along(*t, v);
              if (!split || !split->rest.empty()) return false;
            }
        const auto p0 = at_r(p, r, 0, 0), ph = at_r(p, r, 1, 0), pj = at_r(p, r, 0, 1);
        if (!p0 || !ph || !pj) return false;
        const double bound = c->args[1]->value;
        const bool lower = c->fn == "ge";
        if (lower && bound != 0) return false;
        if (*ph - *p0 == 1 && *pj == *p0 && *p0 == dy) {
          if (!lower) {
            if (reads.rows != 0 && bound != static_cast<double>(reads.rows)) return false;
            reads.rows = static_cast<int64_t>(bound);
          }
          row_bounds |= lower ? 1 : 2;
        } else if (*pj - *p0 == 1 && *ph == *p0 && *p0 == dx) {
          if (!lower && bound != static_cast<double>(read->row)) return false;
          column_bounds |= lower ? 1 : 2;
        } else {
          return false;
        }
      }
      if (row_bounds == 1 || row_bounds == 2 || column_bounds == 1 || column_bounds == 2)
        return false;
      ++(row_bounds ? reads.with_rows : reads.without_rows);
      ++(column_bounds ? reads.with_columns : reads.without_columns);
    }
    return true;
  };
  walk_guarded_reads(
      seen,
      [this](const Expr& l) -> std::optional<size_t> {
        const Ring* g = ring_of(l);
        return g ? std::optional(static_cast<size_t>(g - rings.data())) : std::nullopt;
      },
      guarded);
  for (size_t g = 0; g < rings.size(); ++g) {
    const Reads& reads = seen[g];
    Ring& ring = rings[g];
    ring.fill.reset();
    ring.fill_rows = ring.fill_columns = false;
    if (reads.bad || !reads.fill || (reads.with_rows > 0 && reads.without_rows > 0) ||
        (reads.with_columns > 0 && reads.without_columns > 0) ||
        (reads.with_rows == 0 && reads.with_columns == 0))
      continue;
    ring.fill = reads.fill;
    ring.fill_rows = reads.with_rows > 0;
    ring.fill_columns = reads.with_columns > 0;
    ring.rows = reads.rows;
  }
}

ExprPtr CudaKernel::without_filled_borders(const ExprPtr& e) const {
  if ((ring_rows == 0 && !vector_fills) || e->kind != Expr::Kind::call) return e;
  if (e->fn == "where" && e->args.size() == 3) {
    if (const Ring* g = ring_of(*e->args[1]); g && g->fill) return e->args[1];
    if (const VectorLoads* g = vector_group_of(*e->args[1]); g && g->fill) return e->args[1];
  }
  return with_args(e, [this](const ExprPtr& a) { return without_filled_borders(a); });
}

bool CudaKernel::plan_rings() {
  const std::string kept = out;
  rings.clear();
  unringed_loads = 0;
  rings_planned = false;
  emit_stages();
  out = kept;
  rings_planned = true;
  if (rings.empty() || unringed_loads > 0) return false;
  int64_t span = 0, copiers = 0, row_bytes = 0;
  for (const Ring& g : rings) {
    span = std::max(span, g.span());
    copiers = std::max(copiers, g.width() / 4);
    row_bytes += (g.width() + kRingPad) * 4;
  }
  // the rows a step reads (ring_step + span), those it has in flight past them, and the
  // ring_step rows the step before read, into which the next rows go
  const int64_t least = span + 2 * ring_step;
  // (more than kRingSlots only for several rows a step)
  ring_slots = ring_step > 1 ? std::max(kRingSlots, least) : kRingSlots;
  while (ring_slots > least && ring_slots * row_bytes > kRingBytes) --ring_slots;
  if (ring_slots * row_bytes > kRingBytes || ring_slots < least || copiers > 1024) return false;
  // a warp's multiple that copies an input row 16 bytes a thread: those past it (a padded
  // window's floats before and past the row) in a second turn of a few threads
  int64_t row_copiers = 0;
  for (const Ring& g : rings) row_copiers = std::max(row_copiers, (g.row + 3) / 4);
  threads = static_cast<int>((row_copiers + 31) / 32 * 32);
  window = static_cast<int>((k.outer_shape().back() + threads - 1) / threads);
  plan_fills();
  return true;
}

void CudaKernel::plan_vectors() {
  size_t quads = 0;
  for (auto& g : vector_loads) {
    std::set<int64_t> firsts;
    for (int64_t o : g.offsets) firsts.insert(o - ((o % 4) + 4) % 4);
    if (quads + firsts.size() > vector_quads()) continue;
    quads += firsts.size();
    g.quads.assign(firsts.begin(), firsts.end());
  }
  vectors_planned = true;
}

const CudaKernel::VectorLoads* CudaKernel::vector_group_of(const Expr& l) const {
  if (window <= 1 || !window_vectors || !vectors_planned || l.kind != Expr::Kind::load ||
      l.buffer < 0 || !l.index)
    return nullptr;
  const auto split = split_window(*l.index);
  if (!split) return nullptr;
  for (const VectorLoads& g : vector_loads)
    if (g.buffer == l.buffer && g.thread == split->thread && !g.quads.empty()) return &g;
  return nullptr;
}

void CudaKernel::plan_vector_fills() {
  struct Reads {
    bool bad = false;
    std::optional<double> fill;
    std::optional<int64_t> shift, row;
    int64_t stride = 0;    ///< kf_j's in the loads' offsets
    bool dilated = false;  ///< a read's taps spread over more elements than they number
  };
  std::vector<Reads> seen(vector_loads.size());
  const int64_t r_end = numel(k.inner_shape());
  const auto guarded = [&](const Expr& where, const Expr& l, Reads& reads) {
    const auto split = split_window(*l.index);
    if (rows > 1 || !split || where.args[2]->kind != Expr::Kind::constant ||
        (reads.fill && *reads.fill != where.args[2]->value))
      return false;
    reads.fill = where.args[2]->value;
    if (reads.stride != 0 && reads.stride != split->stride) return false;
    reads.stride = split->stride;
    const std::vector<const Expr*> checks = conjuncts(*where.args[0]);
    int bounds = 0;
    for (const Expr* c : checks) {
      if (c->kind != Expr::Kind::call || (c->fn != "ge" && c->fn != "lt") || c->args.size() != 2 ||
          c->args[0]->kind != Expr::Kind::index || c->args[1]->kind != Expr::Kind::constant)
        return false;
      const bool lower = c->fn == "ge";
      const double bound = c->args[1]->value;
      if (lower && bound != 0) return false;
      if (!lower) {
        if (bound != std::floor(bound) || (reads.row && *reads.row != bound)) return false;
        reads.row = static_cast<int64_t>(bound);
      }
      const auto p = ix::along(*c->args[0]->index, "kf_j");
      if (!p || p->stride != split->stride) return false;
      std::set<int64_t> taps;
      for (int64_t r = 0; r < r_end; ++r) {
        int64_t at = 0, position = 0;
        for (const auto& t : split->own) {
          const auto v = ix::value_at(*t, {{"r", r}});
          if (!v) return false;
          at += *v;
        }
        for (const auto& t : p->rest) {
          const auto v = ix::value_at(*t, {{"r", r}});
          if (!v) return false;
          position += *v;
        }
        if (reads.shift && *reads.shift != position - at) return false;
        reads.shift = position - at;
        taps.insert(at);
      }
      if (!taps.empty() && *taps.rbegin() - *taps.begin() + 1 > r_end) reads.dilated = true;
      bounds |= lower ? 1 : 2;
    }
    return bounds == 3;
  };
  walk_guarded_reads(
      seen,
      [this](const Expr& l) -> std::optional<size_t> {
        const VectorLoads* g = vector_group_of(l);
        return g ? std::optional(static_cast<size_t>(g - vector_loads.data())) : std::nullopt;
      },
      guarded);
  vector_fills = false;
  for (size_t i = 0; i < vector_loads.size(); ++i) {
    const Reads& reads = seen[i];
    VectorLoads& g = vector_loads[i];
    g.fill.reset();
    if (reads.bad || !reads.fill || !reads.shift || !reads.row || g.quads.empty() || fills == 0 ||
        (fills < 0 && !reads.dilated))
      continue;
    g.step = reads.stride * window;
    if (g.step % 4 != 0 || *reads.shift % 4 != 0 || *reads.row % 4 != 0) continue;
    g.fill = reads.fill;
    g.shift = *reads.shift;
    g.row = *reads.row;
    vector_fills = true;
  }
}

void CudaKernel::emit_vector_loads() {
  for (size_t i = 0; i < vector_loads.size(); ++i) {
    const VectorLoads& g = vector_loads[i];
    if (g.quads.empty()) continue;
    const std::string id = n(static_cast<int64_t>(i));
    const std::string size = n(numel(p.buffers[static_cast<size_t>(g.buffer)].shape));
    out += "  float kf_w" + id + "[" + n(static_cast<int64_t>(4 * g.quads.size())) + "];\n";
    std::string slot = "0";
    // " + c" or " - |c|"
    const auto plus = [](int64_t c) { return c < 0 ? " - " + n(-c) : " + " + n(c); };
    for (size_t q = 0; q < g.quads.size(); ++q) {
      const int64_t first = g.quads[q];
      const std::string base = n(static_cast<int64_t>(4 * q));
      out += "  kf_load4(kf_w" + id + " + " + base + ", b" + std::to_string(g.buffer) + ", (" +
             g.thread + ")" + plus(first) + ", " + size + ");\n";
      const std::string here = base + " + static_cast<int>(x" + plus(-first) + ")";
      slot = q == 0 ? here : "x >= " + n(first) + " ? " + here + " : " + slot;
    }
    out += "  const auto kf_slot" + id + " = [](int64_t x) { return " + slot + "; };\n";
    if (!g.fill) continue;
    // the groups' positions in the row: kf_c * step + first + shift
    const auto position = [&](int64_t first) {
      return "kf_c * " + n(g.step) + plus(first + g.shift);
    };
    const std::string fill = constant_text(*g.fill, DType::f32), row = n(g.row);
    out += "  if (!(" + position(g.quads.front()) + " >= 0 && " + position(g.quads.back()) + " < " +
           row + ")) {\n";
    for (size_t q = 0; q < g.quads.size(); ++q) {
      const std::string at = position(g.quads[q]);
      std::string registers;
      for (int64_t e = 0; e < 4; ++e)
        registers += "kf_w" + id + "[" + n(static_cast<int64_t>(4 * q) + e) + "] = ";
      out += "    if (!(" + at + " >= 0 && " + at + " < " + row + ")) " + registers + fill + ";\n";
    }
    out += "  }\n";
  }
}

std::vector<const Stage*> CudaKernel::outer_stores() const {
  std::vector<const Stage*> out;
  for (const auto& s : k.stages)
    if (s.kind == Stage::Kind::outer_store ||
        (s.kind == Stage::Kind::reduce && std::count(k.stores.begin(), k.stores.end(), s.buffer)))
      out.push_back(&s);
  return out;
}

bool CudaKernel::window_stores_fit() const {
  int64_t bytes = 0;
  for (const Stage* s : outer_stores()) {
    const DType t = p.buffers[static_cast<size_t>(s->buffer)].dtype;
    bytes += int64_t{threads} * (window + 1) * element_bytes(t);
  }
  return bytes <= 48 * 1024;
}

void CudaKernel::emit_window_stores(int64_t chunks, int64_t rows, int64_t last) {
  const std::string w = n(window);
  out += "  __syncwarp();\n  {\n  const int64_t kf_first = static_cast<int64_t>(blockIdx.x) * " +
         n(threads) + " + (threadIdx.x & ~31);\n#pragma unroll\n  for (int kf_k = 0; kf_k < " + w +
         "; ++kf_k) {\n  const int kf_m = kf_k * 32 + (threadIdx.x & 31);\n  const int64_t kf_u = "
         "kf_first + kf_m / " +
         w + ";\n  const int64_t kf_q = kf_u / " + n(chunks) +
         ";\n  const int64_t kf_j = (kf_u % " + n(chunks) + ") * " + w + " + kf_m % " + w +
         ";\n  if (kf_q < " + n(rows) + " && kf_j < " + n(last) + ") {\n";
  for (const Stage* s : outer_stores())
    out += "    b" + std::to_string(s->buffer) + "[" + s->offset->text + "] = kf_st" +
           std::to_string(s->buffer) + "[(threadIdx.x & ~31) * " + n(window + 1) +
           " + kf_m + kf_m / " + w + "];\n";
  out += "  }\n  }\n  }\n";
}

std::set<int> CudaKernel::vector_buffers() const {
  std::set<int> out = row_vector_buffers;
  for (const auto& g : vector_loads)
    if (!g.quads.empty()) out.insert(g.buffer);
  for (const auto& g : rings) out.insert(g.buffer);
  return out;
}

int64_t CudaKernel::emit_ring() {
  const auto outer = k.outer_shape();
  const int64_t height = outer[*row_dimension(outer)], last = outer.back();
  const int64_t planes = numel(outer) / (height * last);
  const int64_t bands = (height + ring_rows - 1) / ring_rows;
  const int64_t ahead = ring_slots - 1 - ring_step;
  int64_t span = 0;
  for (const Ring& g : rings) span = std::max(span, g.span());
  const std::string slots = n(ring_slots);
  for (size_t g = 0; g < rings.size(); ++g)
    out += "  __shared__ __align__(16) float kf_ring" + n(int64_t(g)) + "[" + slots + "][" +
           n(rings[g].width() + kRingPad) + "];\n";
  for (size_t g = 0; g < rings.size(); ++g) {
    const Ring& r = rings[g];
    if (!r.fill) continue;
    const std::string fill = "kf_fill" + n(int64_t(g));
    out += "  const float " + fill + " = " + constant_text(*r.fill, DType::f32) + ";\n";
    if (!r.fill_columns) continue;
    // the padding before and past the row, in every slot, before the first barrier
    const int64_t edges = (r.lead + r.tail) / 4;
    out += "  for (int kf_k = threadIdx.x; kf_k < " + n(ring_slots * edges) +
           "; kf_k += " + n(threads) + ") {\n    const int kf_e = kf_k % " + n(edges) + ";\n" +
           "    *reinterpret_cast<float4*>(&kf_ring" + n(int64_t(g)) + "[kf_k / " + n(edges) +
           "][kf_e < " + n(r.lead / 4) + " ? kf_e * 4 : " + n(r.row) +
           " + kf_e * 4]) = make_float4(" + fill + ", " + fill + ", " + fill + ", " + fill +
           ");\n  }\n";
  }
  out += "  const " + ix + " kf_z = blockIdx.x / " + n(bands) + ";\n  const " + ix +
         " kf_h0 = static_cast<" + ix + ">(blockIdx.x % " + n(bands) + ") * " + n(ring_rows) +
         ";\n  const " + ix + " kf_h1 = kf_min_i64(kf_h0 + " + n(ring_rows) + ", " + n(height) +
         ");\n  const int lane = 0;\n  const auto kf_issue = [&](" + ix + " kf_u) {\n";
  for (size_t g = 0; g < rings.size(); ++g) {
    const Ring& r = rings[g];
    const std::string ring = "kf_ring" + n(int64_t(g));
    std::string at = "(" + r.plane + ") + kf_u * " + n(r.row) + " + threadIdx.x * 4";
    if (r.above * r.row + r.lead > 0) at += " - " + n(r.above * r.row + r.lead);
    // a ring that holds its padding in its lead and tail copies the row alone
    const int64_t first = r.fill_columns ? r.lead / 4 : 0,
                  end = r.fill_columns ? (r.lead + r.row) / 4 : r.width() / 4;
    const bool turns = end > threads || first > 0;
    if (turns) at.replace(at.find("threadIdx.x"), 11, "kf_k");
    const std::string k4 = turns ? "kf_k" : "threadIdx.x";
    const std::string copy = std::string(r.above * r.row + r.lead > 0 ? at + " >= 0 && " : "") +
                             at + " + 4 <= " + n(numel(p.buffers[size_t(r.buffer)].shape)) +
                             ")\n      kf_async_copy16(&" + ring + "[kf_u % " + slots + "][" + k4 +
                             " * 4], b" + std::to_string(r.buffer) + " + " + at + ");\n";
    out += std::string(turns ? "    for (int kf_k = threadIdx.x + " + n(first) + "; kf_k < " +
                                   n(end) + "; kf_k += " + n(threads) + ")\n"
                             : "") +
           "    if (" + (turns ? "" : "threadIdx.x < " + n(end) + " && ") + "kf_u < kf_h1 + " +
           n(r.span()) + ") {\n";
    if (r.fill_rows) {
      // rows outside the plane hold the padding
      out += "      if (kf_u < " + n(r.above) + " || kf_u >= " + n(r.above + r.rows) + ")\n" +
             "        *reinterpret_cast<float4*>(&" + ring + "[kf_u % " + slots + "][" + k4 +
             " * 4]) = make_float4(kf_fill" + n(int64_t(g)) + ", kf_fill" + n(int64_t(g)) +
             ", kf_fill" + n(int64_t(g)) + ", kf_fill" + n(int64_t(g)) + ");\n      else if (" +
             copy;
    } else {
      out += "      if (" + copy;
    }
    out += "    }\n";
  }
  const bool steps = ring_step > 1;
  const std::string h = steps ? "kf_hs" : "kf_h";
  out += "    kf_async_commit();\n  };\n#pragma unroll\n  for (int kf_d = 0; kf_d <= " + n(ahead) +
         "; ++kf_d) kf_issue(kf_h0 + kf_d);\n  for (" + ix + " " + h + " = kf_h0; " + h +
         " < kf_h1; " + (steps ? h + " += " + n(ring_step) : "++" + h) + ") {\n  kf_async_wait<" +
         n(ahead - span - (ring_step - 1)) + ">();\n  __syncthreads();\n";
  out += steps ? "#pragma unroll\n  for (int kf_i = 1; kf_i <= " + n(ring_step) +
                     "; ++kf_i) kf_issue(" + h + " + " + n(ahead) + " + kf_i);\n"
               : "  kf_issue(kf_h + " + n(ahead + 1) + ");\n";
  for (size_t g = 0; g < rings.size(); ++g) {
    out += "  const float* const kf_rr" + std::string(steps ? "s" : "") + n(int64_t(g)) + "[] = {";
    for (int64_t d = 0; d <= rings[g].span() + ring_step - 1; ++d)
      out += std::string(d ? ", " : "") + "kf_ring" + n(int64_t(g)) + "[(" + h + " + " + n(d) +
             ") % " + slots + "]";
    out += "};\n";
  }
  out += "#pragma unroll\n  for (int kf_v = 0; kf_v < " + n(window) + "; ++kf_v) {\n  const " + ix +
         " kf_x = threadIdx.x + " + n(threads) + " * kf_v;\n";
  if (steps) {
    out += "  const " + ix + " kf_j = kf_min_i64(kf_x, " + n(last - 1) +
           ");\n#pragma unroll\n  for (int kf_i = 0; kf_i < " + n(ring_step) +
           "; ++kf_i) {\n  const " + ix + " kf_h = kf_hs + kf_i;\n";
    for (size_t g = 0; g < rings.size(); ++g)
      out += "  const float* const* const kf_rr" + n(int64_t(g)) + " = kf_rrs" + n(int64_t(g)) +
             " + kf_i;\n";
    out += "  const bool live = kf_x < " + n(last) + " && kf_h < kf_h1;\n";
  } else {
    out += "  const bool live = kf_x < " + n(last) + ";\n  const " + ix +
           " kf_j = kf_min_i64(kf_x, " + n(last - 1) + ");\n";
  }
  // an output whose padded window lies inside the input (all but the border's) reads the ring
  // without a check an element (interior_condition); unpadded windows check nothing
  const bool padded =
      std::any_of(rings.begin(), rings.end(), [](const Ring& g) { return g.padded(); });
  const std::string kept = out;
  out.clear();
  emit_stages();
  const std::string checked = out;
  std::string inside, condition;
  if (padded) {
    out.clear();
    interior_checks.clear();
    strip_borders = true;
    emit_stages();
    strip_borders = false;
    inside = out;
    condition = interior_condition();
  }
  out = kept + (condition.empty() || inside == checked
                    ? checked
                    : "  if " + condition + " {\n" + inside + "  } else {\n" + checked + "  }\n");
  out += std::string(steps ? "  }\n" : "") + "  }\n  }\n}\n\n";
  return planes * bands;
}

}  // namespace kforge::generator::cuda
